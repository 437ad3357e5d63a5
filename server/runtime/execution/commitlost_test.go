package execution

import (
	"context"
	"testing"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/internal/testkit"
	"github.com/jobwheel/jobwheel/worker/protocol"
)

// TestCommitWithLostAnswerRunsTheFireOnce (issue 30): the connection dies
// after the fire's COMMIT reached PostgreSQL and before its answer came
// back, as when the primary is killed or the network cut at that moment.
// The actor cannot know whether the fire and its task were written; it
// must neither take the fire as lost (it was committed) nor act on it
// twice. It sends nothing from the batch, re-reads the app, and then the
// instance runs exactly once: one task, dispatched once, succeeded.
func TestCommitWithLostAnswerRunsTheFireOnce(t *testing.T) {
	t.Parallel()
	d, cut := dbtest.OpenCommitCut(t)
	b := setupOn(t, d)
	b.join("w1", 2)
	j := b.job(nil)
	cutDone := cut()
	id := b.fire(j)
	testkit.Receive(t, "the fire's COMMIT to be carried out with its answer lost", cutDone)

	w, task := b.dispatched()
	if task.InstanceID != id {
		t.Fatalf("dispatched %+v; want instance %d's task", task, id)
	}
	b.report(w, task, protocol.TaskRunning, protocol.TaskSucceeded)
	in := b.waitStatus(id, db.StatusSucceeded)
	if in.Attempt != 1 {
		t.Errorf("the instance succeeded on attempt %d; want 1 (the lost answer must not count as a failure)", in.Attempt)
	}
	tasks, _, err := d.TaskList(context.Background(), id, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) != 1 {
		t.Errorf("instance %d has %d tasks; want 1", id, len(tasks))
	}
	// The one dispatch was the only one.
	for {
		select {
		case f := <-b.rec.frames:
			if dd, ok := f.body.(*protocol.Dispatch); ok {
				t.Errorf("a second dispatch: %+v", dd)
			}
			continue
		default:
		}
		break
	}
}
