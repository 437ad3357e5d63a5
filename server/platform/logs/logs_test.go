package logs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/internal/testfactory"
	"github.com/jobwheel/jobwheel/worker/protocol"
)

// tenant is an app with a job and an instance given to its worker.
type tenant struct {
	app, instance int64
	worker        string
}

func newTenant(t *testing.T, d *db.DB, name string) tenant {
	t.Helper()
	a := testfactory.App(t, d, &testfactory.AppOpts{Name: name})
	j := testfactory.Job(t, d, a.ID, &testfactory.JobOpts{Name: "j", MisfirePolicy: "SKIP"})
	worker := name + "-worker"
	in := testfactory.Instance(t, d, j, &testfactory.InstanceOpts{Status: db.StatusRunning, WorkerID: worker})
	return tenant{app: a.ID, instance: in.ID, worker: worker}
}

func lines(instance int64, from, to int, at time.Time, text string) *protocol.Logs {
	l := &protocol.Logs{}
	for i := from; i <= to; i++ {
		l.Lines = append(l.Lines, protocol.LogLine{InstanceID: instance, Seq: int64(i), Time: at, Level: "INFO", Text: fmt.Sprintf("%s %d", text, i)})
	}
	return l
}

func stored(t *testing.T, d *db.DB, instance int64) []db.InstanceLog {
	t.Helper()
	list, _, err := d.LogList(context.Background(), instance, 0, 10000)
	if err != nil {
		t.Fatal(err)
	}
	return list
}

// TestOneBatchCannotFailAnother (issue 11, item 2): stored in one go with
// other tenants' batches, a batch the database refuses (a year-0 time,
// past the hub's checks) or one writing into another app's instance fails
// alone: the other app's lines are all stored, and the worker at fault is
// told a code, never the database's error.
func TestOneBatchCannotFailAnother(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		a, b := newTenant(t, d, "alpha"), newTenant(t, d, "beta")
		s := New(d, nil, nil, slog.New(slog.DiscardHandler))
		now := time.Now()
		batches := []batch{
			{app: a.app, worker: a.worker, logs: lines(a.instance, 1, 100, now, "alpha")},
			{app: b.app, worker: b.worker, logs: lines(b.instance, 1, 10, time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC), "year zero")},
			{app: b.app, worker: b.worker, logs: lines(a.instance, 1, 10, now, "into alpha")},
			{app: b.app, worker: b.worker, logs: lines(b.instance, 11, 12, now, "nul \x00 byte")},
			{app: a.app, worker: a.worker, logs: lines(a.instance, 101, 200, now, "alpha")},
		}
		results := s.storeAll(context.Background(), batches)
		for _, i := range []int{0, 4} {
			if results[i] != nil {
				t.Fatalf("alpha's batch %d: %v", i, results[i])
			}
		}
		got := stored(t, d, a.instance)
		if len(got) != 200 {
			t.Fatalf("alpha's instance has %d lines, want 200", len(got))
		}
		for i, l := range got {
			if l.Seq != int64(i+1) || l.Text != fmt.Sprintf("alpha %d", i+1) || l.WorkerID != a.worker {
				t.Fatalf("alpha's line %d = %+v", i, l)
			}
		}
		var pe *protocol.Error
		if !errors.As(results[2], &pe) || pe.Code != protocol.CodeRefused {
			t.Fatalf("beta writing into alpha's instance: %v, want REFUSED", results[2])
		}
		if d.Dialect() == db.Postgres { // SQLite stores the year 0 as text
			if !errors.As(results[1], &pe) || pe.Code != protocol.CodeInternal || strings.Contains(pe.Message, "SQLSTATE") ||
				strings.Contains(strings.ToLower(pe.Message), "timestamp") {
				t.Fatalf("the batch PostgreSQL refused: %v, want INTERNAL without the database's words", results[1])
			}
		}
		if results[3] != nil {
			t.Fatalf("a line with NUL: %v", results[3])
		}
		var nul *db.InstanceLog
		for _, l := range stored(t, d, b.instance) {
			if strings.HasPrefix(l.Text, "nul") {
				nul = &l
			}
		}
		if nul == nil || nul.Text != "nul \uFFFD byte 12" && nul.Text != "nul \uFFFD byte 11" {
			t.Fatalf("the line with NUL was stored as %+v", nul)
		}
	})
}

// TestWorkerWritesOnlyItsInstances (issue 11, item 10): a worker's lines
// for an instance of its app that was never given to it are refused, and
// those for an instance it was given are stored as the worker's.
func TestWorkerWritesOnlyItsInstances(t *testing.T) {
	t.Parallel()
	d := dbtest.Open(t, db.SQLite)
	a := newTenant(t, d, "alpha")
	s := New(d, nil, nil, slog.New(slog.DiscardHandler))
	results := s.storeAll(context.Background(), []batch{
		{app: a.app, worker: "intruder", logs: lines(a.instance, 1, 3, time.Now(), "not mine")},
		{app: a.app, worker: a.worker, logs: lines(a.instance, 1, 3, time.Now(), "mine")},
	})
	var pe *protocol.Error
	if !errors.As(results[0], &pe) || pe.Code != protocol.CodeRefused || !strings.Contains(pe.Message, "not given to this worker") {
		t.Fatalf("another worker's lines: %v", results[0])
	}
	if results[1] != nil {
		t.Fatal(results[1])
	}
	for _, l := range stored(t, d, a.instance) {
		if l.WorkerID != a.worker || !strings.HasPrefix(l.Text, "mine") {
			t.Fatalf("stored %+v", l)
		}
	}
}
