package execution

import "github.com/jobwheel/jobwheel/db"

// A batch whose write failed is not sent. But a failed write may have
// committed: the connection can die after COMMIT reached PostgreSQL and
// before its answer came back (the primary killed, a network cut), and
// then the database holds the batch's tasks as dispatched to workers that
// never received them. The actor re-reads the app after a failed write
// (adopt); what it reads decides, not the error. A task of the failed
// batch that the database shows DISPATCHED on the worker it was meant
// for was committed and never sent: it is sent now. One that is not there
// was not committed: its fire is redone (Unfired) like any failed write's.

// sentTask is a task a failed batch would have dispatched.
type sentTask struct {
	worker   string
	id       int64
	instance int64
	attempt  int
}

// holdUnsent keeps the dispatches of a batch whose write failed, for the
// next adopt to check against the database.
func (a *Actor) holdUnsent(c *changes) {
	for wid, list := range c.dispatch {
		for _, t := range list {
			if t.ID != 0 {
				a.unsent = append(a.unsent, sentTask{worker: wid, id: t.ID, instance: t.InstanceID, attempt: t.InstanceAttempt})
			}
		}
	}
}

// resendUnsent, in an adopt that has just read the app, adds to c's
// dispatches the held tasks the database shows committed and never sent.
// They are not acked: until the worker acks the dispatch, its heartbeat
// not listing them is no sign of a lost task.
func (a *Actor) resendUnsent(c *changes) {
	for _, u := range a.unsent {
		t := a.st.tasks[u.id]
		if t == nil || deref(t.WorkerID) != u.worker || t.Status != db.StatusDispatched ||
			t.InstanceID != u.instance || t.InstanceAttempt != u.attempt {
			continue // not committed, or moved on since
		}
		t.acked = false
		c.dispatch[u.worker] = append(c.dispatch[u.worker], t)
	}
	a.unsent = nil
}
