package e2e

import (
	"database/sql"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"testing"

	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/e2e/harness"
	"github.com/jobwheel/jobwheel/internal/testkit"
)

// Map-reduce at size, on PostgreSQL with real agents: example.mapreduce
// squares 1..N in N subtasks and its reduce sums them exactly, so a
// subtask lost, run twice or counted twice shows in the result. Each run
// also checks the tasks table for retries no fault explains.
func TestMapReduceAtSize(t *testing.T) {
	t.Parallel()
	dbURL := dbtest.NewSchema(t)
	cl := newCluster(t, dbURL, 3)
	// The tests read the tasks table with plain SQL on the pool db.Open made.
	q := &taskQueries{t: t, db: dbtest.OpenURL(t, dbURL).Bun().DB}
	job := cl.job(t, map[string]any{"name": "squares", "executionMode": "MAP_REDUCE", "processorType": "GO",
		"processor": "example.mapreduce", "taskRetries": 3, "taskConcurrency": 256})

	parent := t
	t.Run("100k subtasks, an agent joining mid-run", func(t *testing.T) {
		const n = 100_000
		id := cl.runWith(t, job, fmt.Sprint(n))
		// A fourth agent starts once the run is under way: it gets tasks.
		q.waitCount(id, "status = 'SUCCEEDED' AND kind = 'MAP'", 1000)
		cl.addAgent(parent, "late") // it stays for the runs after this one
		in := cl.waitLong(t, id, "SUCCEEDED")
		if want := squaresSum(n); in.Result != want {
			t.Fatalf("result %q; want %q", in.Result, want)
		}
		if in.Tasks.Total != n+2 || in.Tasks.Succeeded != n+2 {
			t.Errorf("tasks %+v; want %d (the root, %d subtasks, the reduce), all succeeded", in.Tasks, n+2, n)
		}
		if r := q.count(id, "retries > 0"); r != 0 {
			t.Errorf("%d tasks were retried in a run without faults, e.g. %q", r, q.results(id, "retries > 0"))
		}
		if late := q.count(id, "kind = 'MAP' AND worker_id LIKE 'late-%'"); late == 0 {
			t.Error("the agent that joined mid-run ran no subtask")
		}
	})

	t.Run("the agent running the root killed mid-map", func(t *testing.T) {
		const n = 30_000
		// The root maps 10,000 subtasks per call and pauses 2 s between
		// calls: it is killed after its first call was stored.
		id := cl.runWith(t, job, fmt.Sprint(n, ",2000"))
		q.waitCount(id, "kind = 'MAP'", 10_000)
		root := q.workerOf(id, "ROOT")
		cl.agentOf(t, root).Kill()
		in := cl.waitLong(t, id, "SUCCEEDED")
		// Run again elsewhere, the root maps the same subtasks under the
		// same keys: they are stored once, so the sum is of n squares.
		if want := squaresSum(n); in.Result != want {
			t.Fatalf("result %q; want %q", in.Result, want)
		}
		if got := q.count(id, "kind = 'MAP'"); got != n {
			t.Errorf("%d subtasks stored; want %d", got, n)
		}
		if r := q.count(id, "kind = 'ROOT' AND retries = 1"); r != 1 {
			t.Errorf("the root was not run again once after its worker died")
		}
	})

	t.Run("the agent running the reduce killed", func(t *testing.T) {
		const n = 20_000
		// The reduce pauses 3 s before it reads: it is killed then.
		id := cl.runWith(t, job, fmt.Sprint(n, ",3000"))
		q.waitCount(id, "kind = 'REDUCE' AND status = 'RUNNING'", 1)
		cl.agentOf(t, q.workerOf(id, "REDUCE")).Kill()
		in := cl.waitLong(t, id, "SUCCEEDED")
		if want := squaresSum(n); in.Result != want {
			t.Fatalf("result %q; want %q", in.Result, want)
		}
		if r := q.count(id, "kind = 'REDUCE' AND retries = 1"); r != 1 {
			t.Errorf("the reduce was not run again once after its worker died")
		}
	})

	t.Run("broadcast shards", func(t *testing.T) {
		workers, err := cl.c.WaitWorkers(cl.app, 2, connect)
		if err != nil {
			t.Fatal(err)
		}
		alive := 0
		for _, w := range workers {
			if w.Alive {
				alive++
			}
		}
		bc := cl.job(t, map[string]any{"name": "shards", "processorType": "SHELL", "executionMode": "BROADCAST",
			"processor": `echo "shard $JOBWHEEL_SHARD_INDEX of $JOBWHEEL_SHARD_TOTAL"`})
		in := cl.wait(t, cl.run(t, bc), "SUCCEEDED")
		var shards []string
		for _, l := range in.Logs.Lines {
			if strings.HasPrefix(l.Text, "shard ") {
				shards = append(shards, l.Text)
			}
		}
		slices.Sort(shards)
		var want []string
		for i := range alive {
			want = append(want, fmt.Sprintf("shard %d of %d", i, alive))
		}
		if !slices.Equal(shards, want) {
			t.Errorf("broadcast tasks said %q; want %q", shards, want)
		}
	})
}

// squaresSum is example.mapreduce's result for 1..n.
func squaresSum(n int64) string {
	// n(n+1)(2n+1)/6
	s := new(big.Int).Mul(big.NewInt(n), big.NewInt(n+1))
	s.Mul(s, big.NewInt(2*n+1)).Div(s, big.NewInt(6))
	return fmt.Sprintf("sum of %d squares = %s", n, s)
}

func (cl *cluster) runWith(t *testing.T, jobID, params string) string {
	t.Helper()
	id, err := cl.c.RunJob(jobID, params)
	if err != nil {
		t.Fatalf("runJob: %v", err)
	}
	return id
}

// waitLong waits for a big run: many times settle, never a speed bound.
func (cl *cluster) waitLong(t *testing.T, instanceID string, want ...string) *harness.Instance {
	t.Helper()
	in, err := cl.c.WaitInstance(instanceID, 10*settle, want...)
	if err != nil {
		t.Fatalf("%v\nserver output (tail):\n%s", err, tail(cl.srv.Output(), 60))
	}
	return in
}

// agentOf is the agent process of a worker id (<name>-<random>).
func (cl *cluster) agentOf(t *testing.T, workerID string) *harness.Process {
	t.Helper()
	name, _, _ := strings.Cut(workerID, "-")
	for i, a := range cl.agents {
		if cl.names[i] == name {
			return a
		}
	}
	t.Fatalf("no agent runs worker %s", workerID)
	return nil
}

// taskQueries read an instance's tasks straight from the database, which
// the test uses to pick its moment and to check what happened.
type taskQueries struct {
	t  *testing.T
	db *sql.DB
}

func (q *taskQueries) count(instanceID, where string) int {
	q.t.Helper()
	var n int
	if err := q.db.QueryRow("SELECT count(*) FROM tasks WHERE instance_id = $1 AND "+where, instanceID).Scan(&n); err != nil {
		q.t.Fatal(err)
	}
	return n
}

// results lists up to five tasks' results (a retry's reason is there).
func (q *taskQueries) results(instanceID, where string) []string {
	q.t.Helper()
	rows, err := q.db.Query("SELECT id, result FROM tasks WHERE instance_id = $1 AND "+where+" ORDER BY id LIMIT 5", instanceID)
	if err != nil {
		q.t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id int64
		var result sql.NullString
		if err := rows.Scan(&id, &result); err != nil {
			q.t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("task %d: %s", id, result.String))
	}
	if err := rows.Err(); err != nil {
		q.t.Fatal(err)
	}
	return out
}

func (q *taskQueries) waitCount(instanceID, where string, atLeast int) {
	q.t.Helper()
	if !testkit.Poll(10*settle, func() bool { return q.count(instanceID, where) >= atLeast }) {
		q.t.Fatalf("instance %s never had %d tasks where %s", instanceID, atLeast, where)
	}
}

func (q *taskQueries) workerOf(instanceID, kind string) string {
	q.t.Helper()
	var w string
	err := q.db.QueryRow("SELECT worker_id FROM tasks WHERE instance_id = $1 AND kind = $2 AND status IN ('DISPATCHED', 'RUNNING')",
		instanceID, kind).Scan(&w)
	if err != nil {
		q.t.Fatalf("the %s task of instance %s on a worker: %v", kind, instanceID, err)
	}
	return w
}
