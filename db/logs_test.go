package db_test

import (
	"context"
	"testing"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/internal/testfactory"
)

// Reserving log sequence numbers tells the instance's current attempt, so
// the lines stored record it: a retried instance's log reads by attempt.
func TestLogReserveSeqTellsTheAttempt(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		app := newApp(t, d)
		job := testfactory.Job(t, d, app.ID, nil)
		in := testfactory.Instance(t, d, job, nil)
		store := func(n int, text string) (int64, int) {
			t.Helper()
			first, attempt, err := d.LogReserveSeq(ctx, app.ID, in.ID, n)
			if err != nil {
				t.Fatal(err)
			}
			var rows []db.InstanceLog
			for i := range n {
				seq := first + int64(i)
				rows = append(rows, db.InstanceLog{InstanceID: in.ID, Seq: seq, WorkerID: "w", WorkerSeq: seq, Time: db.Now(),
					Level: "INFO", Text: text, Attempt: attempt})
			}
			if err := d.LogInsertMany(ctx, rows); err != nil {
				t.Fatal(err)
			}
			return first, attempt
		}
		if first, attempt := store(2, "first try"); first != 1 || attempt != 1 {
			t.Fatalf("first lines: seq %d, attempt %d; want 1, 1", first, attempt)
		}
		if ok, err := d.InstanceRetry(ctx, in.ID, db.StatusWaiting, 2, db.Now(), "", nil); err != nil || !ok {
			t.Fatalf("retrying: %v, %v", ok, err)
		}
		if first, attempt := store(1, "second try"); first != 3 || attempt != 2 {
			t.Fatalf("a retry's lines: seq %d, attempt %d; want 3, 2", first, attempt)
		}
		lines, _, err := d.LogList(ctx, in.ID, 0, 10)
		if err != nil {
			t.Fatal(err)
		}
		var got []int
		for _, l := range lines {
			got = append(got, l.Attempt)
		}
		if len(got) != 3 || got[0] != 1 || got[1] != 1 || got[2] != 2 {
			t.Fatalf("stored attempts %v, want [1 1 2]", got)
		}
		if _, _, err := d.LogReserveSeq(ctx, app.ID+1000, in.ID, 1); err == nil {
			t.Fatal("another app's instance: no error")
		}
	})
}
