package e2e

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/e2e/harness"
	"github.com/jobwheel/jobwheel/internal/testkit"
)

// poolView is a pool as the tests read it.
type poolView struct {
	ID        string
	Name      string
	Slots     int
	UsedSlots int
	Holders   []struct{ ID, Status string }
	Queue     []struct {
		ID, Status, Reason, Result string
		PoolPosition               *int
	}
}

func createPool(t *testing.T, c *harness.Client, app, name string, slots int) string {
	t.Helper()
	var out struct{ CreatePool struct{ ID string } }
	if err := c.Do(`mutation($in: PoolInput!) { createPool(input: $in) { id } }`,
		map[string]any{"in": map[string]any{"app": app, "name": name, "slots": slots}}, &out); err != nil {
		t.Fatalf("createPool %s: %v", name, err)
	}
	return out.CreatePool.ID
}

func readPool(t *testing.T, c *harness.Client, id string) poolView {
	t.Helper()
	var out struct{ Pool poolView }
	if err := c.Do(`query($id: ID!) { pool(id: $id) { id name slots usedSlots holders { id status }
		queue { id status reason result poolPosition } } }`, map[string]any{"id": id}, &out); err != nil {
		t.Fatalf("pool %s: %v", id, err)
	}
	return out.Pool
}

// waitPool polls a pool until cond holds.
func waitPool(t *testing.T, c *harness.Client, id, what string, cond func(poolView) bool) poolView {
	t.Helper()
	var last poolView
	if !testkit.Poll(settle, func() bool { last = readPool(t, c, id); return cond(last) }) {
		t.Fatalf("pool %s: %s did not happen; last %+v", id, what, last)
	}
	return last
}

// slotScript is a SHELL script that fails (exit 9) if more than slots
// copies of it run at once — each puts a file in dir while it runs and
// counts them — and, while gate names a file, waits for it to exist.
func slotScript(dir string, slots int, gate string) string {
	s := fmt.Sprintf(`d=%s; touch "$d/$JOBWHEEL_INSTANCE_ID"; n=$(ls "$d" | wc -l); if [ "$n" -gt %d ]; then echo "$n at once"; rm -f "$d/$JOBWHEEL_INSTANCE_ID"; exit 9; fi; `, dir, slots)
	if gate != "" {
		s += fmt.Sprintf(`while [ ! -f %s ]; do sleep 0.1; done; `, gate)
	}
	return s + `sleep 0.3; rm -f "$d/$JOBWHEEL_INSTANCE_ID"; echo ok`
}

// TestPools: a pool's slots bound what runs at once across jobs and
// workflow nodes, what waits is shown in order with its place, and bad
// uses are refused naming the field (issue 26 item 14).
func TestPools(t *testing.T) {
	t.Parallel()
	w := &wf{cluster: newCluster(t, dbtest.NewSchema(t), 2), t: t}
	c := w.c

	t.Run("two slots across two jobs: the rest wait in fire order, shown with their place", func(t *testing.T) {
		w.t = t
		dir, gate := t.TempDir(), filepath.Join(t.TempDir(), "go")
		pool := createPool(t, c, w.app, "db", 2)
		a := w.job(t, map[string]any{"name": "write-a", "processorType": "SHELL", "processor": slotScript(dir, 2, gate), "pool": "db", "maxInstances": 10})
		b := w.job(t, map[string]any{"name": "write-b", "processorType": "SHELL", "processor": slotScript(dir, 2, gate), "pool": "db", "maxInstances": 10})
		var ids []string
		for i := range 5 {
			ids = append(ids, w.cluster.run(t, []string{a, b}[i%2]))
		}
		p := waitPool(t, c, pool, "2 holders and 3 waiting", func(p poolView) bool { return len(p.Holders) == 2 && len(p.Queue) == 3 })
		if p.UsedSlots != 2 {
			t.Errorf("usedSlots %d; want 2", p.UsedSlots)
		}
		for i, q := range p.Queue {
			if q.Status != "WAITING" || q.Reason != "POOL_FULL" || q.PoolPosition == nil || *q.PoolPosition != i+1 || !strings.Contains(q.Result, `pool "db"`) {
				t.Errorf("queue[%d] %+v; want WAITING, POOL_FULL, position %d, naming the pool", i, q, i+1)
			}
		}
		var waiting []string
		for _, q := range p.Queue {
			waiting = append(waiting, q.ID)
		}
		if !slices.Equal(waiting, ids[2:]) {
			t.Errorf("queue %v; want the last three fires in fire order %v", waiting, ids[2:])
		}
		if err := os.WriteFile(gate, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		for _, id := range ids {
			if in := w.wait(t, id, "SUCCEEDED", "FAILED"); in.Status != "SUCCEEDED" {
				t.Errorf("instance %s: %s %q; want SUCCEEDED (more than 2 ran at once?)", id, in.Status, in.Result)
			}
		}
		waitPool(t, c, pool, "every slot released", func(p poolView) bool { return p.UsedSlots == 0 && len(p.Holders) == 0 && len(p.Queue) == 0 })
	})

	t.Run("a mutex on a FOREACH node runs its elements one at a time; a waiting one can be stopped", func(t *testing.T) {
		w.t = t
		dir := t.TempDir()
		createPool(t, c, w.app, "mutex", 1)
		each := w.shell("each-locked", slotScript(dir, 1, ""))
		id := w.workflow("serial", []map[string]any{{"key": "each", "type": "FOREACH", "jobId": each, "expression": "[1, 2, 3, 4]",
			"parallelism": 4, "pool": "mutex"}}, []map[string]any{})
		r := w.waitWorkflowInstance(w.run(id, nil), "SUCCEEDED", "FAILED")
		if n := r.Node("each"); r.Status != "SUCCEEDED" || len(n.Instances) != 4 {
			t.Fatalf("run %s with %d element instances (%v); want 4 elements that never overlapped", r.Status, len(n.Instances), n.Instances)
		}

		gate := filepath.Join(t.TempDir(), "go")
		hold := w.job(t, map[string]any{"name": "hold", "processorType": "SHELL", "processor": slotScript(dir, 1, gate), "pool": "mutex"})
		first := w.cluster.run(t, hold)
		mutexID := poolID(t, c, w.app, "mutex")
		waitPool(t, c, mutexID, "the first holding it", func(p poolView) bool { return len(p.Holders) == 1 })
		other := w.job(t, map[string]any{"name": "other", "processorType": "SHELL", "processor": "echo other", "pool": "mutex"})
		second := w.cluster.run(t, other)
		waitPool(t, c, mutexID, "the second waiting", func(p poolView) bool { return len(p.Queue) == 1 && p.Queue[0].ID == second })
		w.op(`mutation($id: ID!) { stopInstance(id: $id) { id } }`, map[string]any{"id": second})
		waitPool(t, c, mutexID, "the stopped one gone from the queue", func(p poolView) bool { return len(p.Queue) == 0 })
		if err := os.WriteFile(gate, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		w.wait(t, first, "SUCCEEDED")
		if in := w.wait(t, second, "STOPPED"); in.Reason != "STOPPED" {
			t.Errorf("the stopped waiter: %s %s", in.Status, in.Reason)
		}
		third := w.cluster.run(t, other)
		w.wait(t, third, "SUCCEEDED")
	})

	t.Run("bad uses are refused naming the field; a named pool cannot be deleted", func(t *testing.T) {
		w.t = t
		small := createPool(t, c, w.app, "small", 2)
		_, err := c.CreateJob(map[string]any{"app": w.app, "name": "nopool", "scheduleType": "API", "processorType": "SHELL", "processor": "true", "pool": "nope"})
		expectBadInput(t, err, "pool", "no pool named")
		_, err = c.CreateJob(map[string]any{"app": w.app, "name": "toobig", "scheduleType": "API", "processorType": "SHELL", "processor": "true", "pool": "small", "poolSlots": 3})
		expectBadInput(t, err, "poolSlots", "which has 2")
		_, err = c.CreateJob(map[string]any{"app": w.app, "name": "slotsonly", "scheduleType": "API", "processorType": "SHELL", "processor": "true", "poolSlots": 1})
		expectBadInput(t, err, "poolSlots", "with a pool only")
		_, err = c.CreateWorkflow(map[string]any{"app": w.app, "name": "badnode", "scheduleType": "API",
			"nodes": []map[string]any{{"key": "d", "type": "DECISION", "expression": "true", "pool": "small"}}, "edges": []map[string]any{}})
		expectBadInput(t, err, "nodes[0].pool", "JOB and FOREACH")
		err = c.Do(`mutation($in: PoolInput!) { createPool(input: $in) { id } }`, map[string]any{"in": map[string]any{"app": w.app, "name": "zero", "slots": 0}}, nil)
		expectBadInput(t, err, "slots", "out of range")
		w.job(t, map[string]any{"name": "uses-small", "processorType": "SHELL", "processor": "true", "pool": "small", "poolSlots": 2})
		err = c.Do(`mutation($id: ID!, $in: PoolInput!) { updatePool(id: $id, input: $in) { id } }`,
			map[string]any{"id": small, "in": map[string]any{"app": w.app, "name": "small", "slots": 1}}, nil)
		expectBadInput(t, err, "slots", `job "uses-small" takes 2`)
		err = c.Do(`mutation($id: ID!) { deletePool(id: $id) }`, map[string]any{"id": small}, nil)
		var errs harness.Errors
		if !errors.As(err, &errs) || errs.Code() != "CONFLICT" || !strings.Contains(err.Error(), "uses-small") {
			t.Errorf("deleting a pool a job names: %v; want CONFLICT naming the job", err)
		}
	})
}

func poolID(t *testing.T, c *harness.Client, app, name string) string {
	t.Helper()
	var out struct{ Pools []struct{ ID, Name string } }
	if err := c.Do(`query($app: String!) { pools(app: $app) { id name } }`, map[string]any{"app": app}, &out); err != nil {
		t.Fatal(err)
	}
	for _, p := range out.Pools {
		if p.Name == name {
			return p.ID
		}
	}
	t.Fatalf("no pool %s", name)
	return ""
}

func expectBadInput(t *testing.T, err error, field, reason string) {
	t.Helper()
	var errs harness.Errors
	if !errors.As(err, &errs) || errs.Code() != "BAD_INPUT" || errs[0].Field() != field || !strings.Contains(err.Error(), reason) {
		t.Errorf("got %v; want BAD_INPUT on %s saying %q", err, field, reason)
	}
}

// TestPoolSurvivesOwnerKill: kill -9 of the owner while a mutex is held
// and another instance waits for it. The new owner rebuilds the holder and
// the queue from the database: the waiter starts only once the holder
// ended (never two at once), and every slot is free at the end.
func TestPoolSurvivesOwnerKill(t *testing.T) {
	t.Parallel()
	f := newFleet(t, 2)
	f.addApp("locks", 0)
	owner := f.settled("locks", "")
	c := f.api()
	pool := createPool(t, c, "locks", "mutex", 1)
	dir, gate := t.TempDir(), filepath.Join(t.TempDir(), "go")
	job, err := c.CreateJob(map[string]any{"app": "locks", "name": "locked", "scheduleType": "API", "processorType": "SHELL",
		"processor": slotScript(dir, 1, gate), "pool": "mutex", "maxInstances": 10})
	if err != nil {
		t.Fatal(err)
	}
	run := func() string {
		id, err := f.api().RunJob(job, "")
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	holder := run()
	if _, err := c.WaitInstance(holder, settle, "RUNNING"); err != nil {
		t.Fatal(err)
	}
	waiter := run()
	waitPool(t, c, pool, "the second waiting", func(p poolView) bool { return len(p.Queue) == 1 && p.Queue[0].ID == waiter })

	f.server(owner).Kill()
	heir := f.settled("locks", owner)
	t.Logf("locks: %s killed while the mutex was held; %s owns it", owner, heir)
	c = f.api()
	late := run() // fired on the new owner: it queues behind the waiter
	p := waitPool(t, c, pool, "the holder kept and both waiting, in order", func(p poolView) bool {
		return len(p.Holders) == 1 && p.Holders[0].ID == holder && len(p.Queue) == 2
	})
	if p.Queue[0].ID != waiter || p.Queue[1].ID != late || p.UsedSlots != 1 {
		t.Fatalf("after the take-over: %+v; want holder %s, then %s and %s waiting", p, holder, waiter, late)
	}
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{holder, waiter, late} {
		in, err := c.WaitInstance(id, 2*settle, "SUCCEEDED", "FAILED")
		if err != nil {
			t.Fatal(err)
		}
		if in.Status != "SUCCEEDED" {
			t.Errorf("instance %s: %s %q; want SUCCEEDED (two held the mutex at once?)", id, in.Status, in.Result)
		}
	}
	waitPool(t, c, pool, "nothing held or waiting", func(p poolView) bool { return p.UsedSlots == 0 && len(p.Holders) == 0 && len(p.Queue) == 0 })
	if _, err := c.WaitInstance(run(), settle, "SUCCEEDED"); err != nil {
		t.Fatalf("a run after everything ended: %v (a slot leaked?)", err)
	}
	f.assertNothingRanTwice()
}
