package execution

import (
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/worker/protocol"
)

// TestAlarmObservations: the batch hands alarms what their rules watch and
// nothing else: a START_LATE job's dispatch with its lateness (on the
// sim's fake clock), a RECOVERY job's success; a job without such rules
// adds nothing on the scheduling path.
func TestAlarmObservations(t *testing.T) {
	m := newSim(t)
	m.join("w1", 4)
	watched := job(1, func(j *db.Job) {
		j.Alarm = db.Alarm{Rules: []db.AlarmRule{{Type: db.AlarmStartLate, Threshold: 1000}, {Type: db.AlarmFailure}, {Type: db.AlarmRecovery}},
			Channels: []db.AlarmChannel{{Type: db.ChannelWebhook, Target: "https://hooks.example/x"}}}
	})
	plain := job(2, nil)
	// Fired at t0, dispatched 5 s later: 5 s late.
	c := m.batch(func(c *changes) {
		m.s.now = t0.Add(5 * time.Second)
		m.s.fire(c, []firing{{id: 10, at: m.s.now}, {id: 11, at: m.s.now}}, []db.Instance{
			{ID: 10, AppID: 1, JobID: 1, Status: db.StatusWaiting, TriggerType: db.TriggerAPI, TriggerAt: t0, Attempt: 1},
			{ID: 11, AppID: 1, JobID: 2, Status: db.StatusWaiting, TriggerType: db.TriggerAPI, TriggerAt: t0, Attempt: 1},
		}, map[int64]*db.Job{1: watched, 2: plain})
	})
	if len(c.started) != 1 || c.started[0].in.ID != 10 || c.started[0].in.ActualTriggerAt.Sub(c.started[0].in.TriggerAt) != 5*time.Second {
		t.Fatalf("started %+v; want instance 10 only, dispatched 5 s after its fire", c.started)
	}
	var tasks = map[int64]int64{}
	for _, list := range c.dispatch {
		for _, tk := range list {
			tasks[tk.inst.ID] = tk.ID
		}
	}
	for id, want := range map[int64]int{10: 1, 11: 0} {
		c := m.report("w1", tasks[id], protocol.TaskSucceeded, "ok")
		if len(c.successes) != want || len(c.failures) != 0 {
			t.Fatalf("instance %d succeeded: %d successes handed to alarms, want %d", id, len(c.successes), want)
		}
	}
}
