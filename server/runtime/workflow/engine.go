package workflow

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/internal/clock"
	"github.com/jobwheel/jobwheel/internal/lifecycle"
	"github.com/jobwheel/jobwheel/internal/testsignal"
	"github.com/jobwheel/jobwheel/internal/tracing"
	"github.com/jobwheel/jobwheel/server/runtime/workflow/wfexpr"
)

// Store is what the engine needs from the database outside transactions;
// inside them it uses *db.Store.
type Store interface {
	InTx(ctx context.Context, fn func(ctx context.Context, tx *db.Store) error) error
	WorkflowInstanceListByIDs(ctx context.Context, ids []int64) ([]db.WorkflowInstance, error)
	WorkflowInstanceListActive(ctx context.Context, appID int64) ([]db.WorkflowInstance, error)
	WorkflowListByIDs(ctx context.Context, ids []int64) ([]db.Workflow, error)
	WorkflowCountActive(ctx context.Context, workflowID int64) (int, error)
	WorkflowInstanceListQueued(ctx context.Context, workflowID int64, now time.Time, limit int) ([]db.WorkflowInstance, error)
	WorkflowInstanceListActiveByWorkflow(ctx context.Context, workflowID int64) ([]db.WorkflowInstance, error)
	WorkflowInstanceTransition(ctx context.Context, t db.WorkflowInstanceTransition) (bool, error)
}

// Executor is the app's execution actor: it runs the job instances the
// engine creates, and re-reads instances the engine stopped.
type Executor interface {
	Fire(instanceIDs []int64, at time.Time)
	Kick()
}

// Notifier hears of runs that changed (API subscriptions).
type Notifier interface {
	WorkflowInstancesChanged(appID int64, wiIDs []int64)
}

// Alarmer hears of runs that ended (package alarm). It only queues: it
// never blocks.
type Alarmer interface {
	WorkflowInstanceEnded(wi db.WorkflowInstance)
}

// Deps are the server-wide parts every engine uses.
type Deps struct {
	Store    Store
	Notifier Notifier // may be nil
	Alarmer  Alarmer  // may be nil
	ServerID string
	Log      *slog.Logger
	// Clock defaults to the system clock.
	Clock clock.Clock
	// ReconcileEvery is how often every active instance is looked at again, in
	// case a notification was lost. Default 10s.
	ReconcileEvery time.Duration
	// Evaluator evaluates DECISION and FOREACH expressions, for every
	// engine of the server; nil gives each engine one of its own, started
	// and stopped with it (tests).
	Evaluator *Evaluator
	// Tracer traces workflow instances and their nodes' transitions
	// (traces.go); its zero value is off.
	Tracer tracing.Tracer
}

// Engine runs the workflows of one owned app.
type Engine struct {
	lifecycle.Base
	deps  Deps
	log   *slog.Logger
	clock clock.Clock
	app   int64
	epoch int64
	exec  Executor
	fence *db.Fence

	mailbox chan []int64 // run ids to look at
	mu      sync.Mutex
	stopped <-chan struct{}

	eval    *Evaluator
	ownEval bool // started and stopped with the engine

	// Only the engine's goroutine touches what follows.
	//
	// deadlines are approvals' deadlines by instance; soon are instances to
	// look at again at once (a compare-and-set lost, a parent whose child
	// ended), retry those to look at again after a failure, at a time.
	deadlines map[int64]time.Time
	soon      map[int64]bool
	retry     map[int64]time.Time
	// evals are evaluation outcomes not applied yet, by instance and node
	// row; pending the evaluations under way, likewise; unsent those the
	// evaluator could not take yet (full), sent again each second.
	evals   map[int64]map[int64]evalOutcome
	pending map[int64]map[int64]*pendingEval
	unsent  []evalRequest

	// evalMu guards evalDone, the finished evaluations the evaluator's
	// workers hand to the engine's goroutine; evalWake tells it.
	evalMu   sync.Mutex
	evalDone []finishedEval
	evalWake chan struct{}

	// Decided, if Init'ed by a test, signals each instance decided and written.
	Decided testsignal.Signal[int64]
}

// New returns the engine of an app held under epoch, running job instances
// through exec.
func New(deps Deps, appID, epoch int64, exec Executor) *Engine {
	if deps.ReconcileEvery == 0 {
		deps.ReconcileEvery = 10 * time.Second
	}
	e := &Engine{deps: deps, log: deps.Log.With("app", appID), clock: clock.OrSystem(deps.Clock), app: appID, epoch: epoch,
		exec: exec, fence: &db.Fence{AppID: appID, ServerID: deps.ServerID, Epoch: epoch},
		mailbox: make(chan []int64, 4096), evalWake: make(chan struct{}, 1), eval: deps.Evaluator}
	if e.eval == nil {
		e.eval, e.ownEval = NewEvaluator(EvaluatorConfig{Workers: 1}), true
	}
	return e
}

type pendingEval struct {
	gen    int
	key    string
	cancel context.CancelFunc
}

type finishedEval struct {
	req      evalRequest
	outcome  evalOutcome
	canceled bool
}

// Start looks at every active instance of the app (a new owner resumes them),
// then decides runs as they change, until Stop.
func (e *Engine) Start(ctx context.Context) error {
	ctx, ok, started, stopped := e.StartInit(ctx)
	if !ok {
		return nil
	}
	if e.ownEval {
		if err := e.eval.Start(ctx); err != nil {
			stopped()
			return err
		}
	}
	e.mu.Lock()
	e.stopped = ctx.Done()
	e.mu.Unlock()
	// What the last run kept in memory is not carried over: the database
	// says what is under way, and evaluations lost are begun again.
	e.deadlines, e.soon, e.retry = map[int64]time.Time{}, map[int64]bool{}, map[int64]time.Time{}
	e.evals, e.pending, e.unsent = map[int64]map[int64]evalOutcome{}, map[int64]map[int64]*pendingEval{}, nil
	e.evalMu.Lock()
	e.evalDone = nil
	e.evalMu.Unlock()
	go func() {
		started()
		defer stopped()
		if e.ownEval {
			defer e.eval.Stop()
		}
		e.loop(ctx)
		for _, m := range e.pending {
			for _, p := range m {
				if p.cancel != nil {
					p.cancel()
				}
			}
		}
	}()
	return nil
}

// Fire starts WAITING runs whose time has come (from the trigger loop's
// wheel).
func (e *Engine) Fire(wiIDs []int64, _ time.Time) { e.WorkflowInstancesChanged(wiIDs) }

// WorkflowInstancesChanged makes the engine look at runs now: one of their nodes'
// instances ended, a nested instance ended, or the API changed them.
func (e *Engine) WorkflowInstancesChanged(wiIDs []int64) {
	if len(wiIDs) == 0 {
		return
	}
	e.mu.Lock()
	stopped := e.stopped
	e.mu.Unlock()
	select {
	case <-stopped:
		return
	default:
	}
	select {
	case e.mailbox <- slices.Clone(wiIDs):
	case <-stopped:
	}
}

func (e *Engine) loop(ctx context.Context) {
	e.reconcile(ctx)
	tick := e.clock.NewTimer(time.Second)
	defer tick.Stop()
	lastReconcile := e.clock.Now()
	for {
		ids := map[int64]bool{}
		if len(e.soon) > 0 {
			ids, e.soon = e.soon, map[int64]bool{}
		} else {
			select {
			case <-ctx.Done():
				return
			case list := <-e.mailbox:
				for _, id := range list {
					ids[id] = true
				}
			case <-e.evalWake:
				e.evaluated(ids)
			case <-tick.C():
				tick.Reset(time.Second)
				now := e.clock.Now()
				if now.Sub(lastReconcile) >= e.deps.ReconcileEvery {
					lastReconcile = now
					e.reconcile(ctx)
					continue
				}
				for id, at := range e.deadlines {
					if !now.Before(at) {
						ids[id] = true
						delete(e.deadlines, id)
					}
				}
				for id, at := range e.retry {
					if !now.Before(at) {
						ids[id] = true
						delete(e.retry, id)
					}
				}
				e.resend(ctx)
			}
		}
		if ctx.Err() != nil {
			return
		}
	more:
		for len(ids) < 500 {
			select {
			case list := <-e.mailbox:
				for _, id := range list {
					ids[id] = true
				}
			default:
				break more
			}
		}
		e.process(ctx, ids)
	}
}

// reconcile looks at every active instance of the app.
func (e *Engine) reconcile(ctx context.Context) {
	wis, err := e.deps.Store.WorkflowInstanceListActive(ctx, e.app)
	if err != nil {
		if ctx.Err() == nil {
			e.log.Warn("workflow: reading active instances; looking again later", "err", err)
		}
		return
	}
	ids := map[int64]bool{}
	for _, r := range wis {
		ids[r.ID] = true
	}
	e.process(ctx, ids)
}

// process decides each instance, in id order (a parent before the children it
// starts), each in its own transaction.
func (e *Engine) process(ctx context.Context, set map[int64]bool) {
	if len(set) == 0 {
		return
	}
	ids := make([]int64, 0, len(set))
	for id := range set {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	wis, err := e.deps.Store.WorkflowInstanceListByIDs(ctx, ids)
	if err != nil {
		if ctx.Err() == nil {
			e.log.Warn("workflow: reading runs; retrying", "err", err)
			e.again(ctx, ids)
		}
		return
	}
	var follow []int64
	for i := range wis {
		r := &wis[i]
		if r.AppID != e.app || ctx.Err() != nil {
			continue
		}
		var next []int64
		var err error
		switch r.Status {
		case db.WorkflowWaiting:
			next, err = e.start(ctx, r)
		case db.WorkflowRunning, db.WorkflowPaused:
			next, err = e.advance(ctx, r.ID)
		default:
			e.forget(r.ID) // ended: its evaluations are of no use
		}
		switch {
		case errors.Is(err, errLost):
			// Moved meanwhile (an API call, a report): look again.
			follow = append(follow, r.ID)
		case db.IsRetryable(err):
			// PostgreSQL ended the transaction for a deadlock with another
			// (an operation, the execution actor): decide again at once.
			e.log.Debug("workflow: decision ended by the database for a conflict; deciding again", "workflowInstance", r.ID, "err", err)
			follow = append(follow, r.ID)
		case errors.Is(err, db.ErrFenced):
			e.log.Warn("workflow: the app's lease moved on; leaving the instance to its new owner", "workflowInstance", r.ID)
			return
		case err != nil && ctx.Err() == nil:
			e.log.Error("workflow: deciding an instance failed; retrying", "workflowInstance", r.ID, "err", err)
			e.again(ctx, []int64{r.ID})
		}
		follow = append(follow, next...)
		e.Decided.Signal(r.ID)
	}
	for _, id := range follow {
		e.soon[id] = true
	}
}

// again looks at instances once more a second later.
func (e *Engine) again(_ context.Context, ids []int64) {
	at := e.clock.Now().Add(time.Second)
	for _, id := range ids {
		e.retry[id] = at
	}
}

// errLost says a compare-and-set lost: something else moved the instance or a
// node; the transaction is rolled back and the instance looked at again.
var errLost = errors.New("the instance moved meanwhile")

// start starts a WAITING run that is due, within its workflow's
// maxInstances: over the limit, CANCEL records it CANCELED, QUEUE leaves it
// waiting for an earlier instance to end (runs start in the order they fired).
func (e *Engine) start(ctx context.Context, r *db.WorkflowInstance) ([]int64, error) {
	now := e.clock.Now()
	if r.TriggerAt.After(db.Stamp(now)) {
		return nil, nil // not due yet: the trigger loop fires it when it is
	}
	toStart := []int64{r.ID}
	var timeout *int64
	if r.ParentInstanceID == nil {
		wfs, err := e.deps.Store.WorkflowListByIDs(ctx, []int64{r.WorkflowID})
		if err != nil {
			return nil, err
		}
		if len(wfs) == 0 {
			return nil, nil // deleted; its instances went with it
		}
		wf := &wfs[0]
		timeout = wf.TimeoutMs
		active, err := e.deps.Store.WorkflowCountActive(ctx, wf.ID)
		if err != nil {
			return nil, err
		}
		free := wf.MaxInstances - active
		if free <= 0 {
			switch wf.OverlapPolicy {
			case db.OverlapQueue:
				return nil, nil // queued: an earlier instance's end starts it
			case db.OverlapReplace:
				if err := e.replace(ctx, wf, r, 1-free); err != nil {
					return nil, err
				}
				free = 1
			default:
				return nil, e.cancel(ctx, r, fmt.Sprintf("%d run(s) of the workflow already running (maxInstances %d)", active, wf.MaxInstances))
			}
		}
		// The oldest waiting instances go first, so a queue keeps fire order.
		queued, err := e.deps.Store.WorkflowInstanceListQueued(ctx, wf.ID, db.Stamp(now), free)
		if err != nil {
			return nil, err
		}
		toStart = toStart[:0]
		for _, q := range queued {
			toStart = append(toStart, q.ID)
		}
	}
	var follow []int64
	for _, id := range toStart {
		next, err := e.startOne(ctx, id, timeout)
		if err != nil {
			return follow, err
		}
		follow = append(follow, next...)
	}
	return follow, nil
}

// replace stops the oldest n running top-level instances of wf, each with
// everything in it, for r to start (overlap policy REPLACE).
func (e *Engine) replace(ctx context.Context, wf *db.Workflow, r *db.WorkflowInstance, n int) error {
	active, err := e.deps.Store.WorkflowInstanceListActiveByWorkflow(ctx, wf.ID)
	if err != nil {
		return err
	}
	now := db.Stamp(e.clock.Now())
	why := fmt.Sprintf("replaced by run %d (overlap policy REPLACE)", r.ID)
	var stopped []int64
	for i := 0; i < n && i < len(active); i++ {
		id := active[i].ID
		err := e.deps.Store.InTx(ctx, func(ctx context.Context, tx *db.Store) error {
			if ok, err := tx.FenceHolds(ctx, e.fence); err != nil || !ok {
				return errors.Join(err, db.ErrFenced)
			}
			if _, _, err := tx.WorkflowInstanceLock(ctx, id); err != nil {
				return err
			}
			return stopWorkflowInstance(ctx, tx, id, why, now)
		})
		if err != nil {
			return err
		}
		stopped = append(stopped, id)
		e.log.Info("workflow: run replaced", "workflowInstance", id, "by", r.ID)
	}
	if len(stopped) > 0 {
		e.exec.Kick() // their job instances stop on their workers
		e.notify(stopped...)
		for _, id := range stopped {
			e.forget(id)
			e.soon[id] = true // tells the alarms and a parent, as any end
		}
	}
	return nil
}

func (e *Engine) cancel(ctx context.Context, r *db.WorkflowInstance, why string) error {
	now := db.Stamp(e.clock.Now())
	moved, err := e.deps.Store.WorkflowInstanceTransition(ctx, db.WorkflowInstanceTransition{ID: r.ID, From: []string{db.WorkflowWaiting}, To: db.WorkflowCanceled,
		Reason: new("MAX_INSTANCES"), Result: &why, FinishedAt: &now})
	if err == nil && moved {
		e.notify(r.ID)
	}
	return err
}

// startOne moves an instance WAITING → RUNNING, creates its node rows and makes
// its first decision, in one transaction.
func (e *Engine) startOne(ctx context.Context, wiID int64, timeout *int64) ([]int64, error) {
	var p *plan
	var v *view
	var fire []int64
	now := db.Stamp(e.clock.Now())
	err := e.deps.Store.InTx(ctx, func(ctx context.Context, tx *db.Store) error {
		if ok, err := tx.FenceHolds(ctx, e.fence); err != nil || !ok {
			return errors.Join(err, db.ErrFenced)
		}
		t := db.WorkflowInstanceTransition{ID: wiID, From: []string{db.WorkflowWaiting}, To: db.WorkflowRunning,
			StartedAt: &now, Epoch: &e.epoch, BudgetFromApp: true}
		if timeout != nil && *timeout > 0 {
			t.TimeoutMs, t.Deadline = timeout, new(now.Add(time.Duration(*timeout)*time.Millisecond))
		}
		moved, err := tx.WorkflowInstanceTransition(ctx, t)
		if err != nil || !moved {
			return err // started by someone else meanwhile: nothing to do
		}
		r, err := tx.WorkflowInstanceGet(ctx, wiID)
		if err != nil {
			return err
		}
		// Its own node rows are the first of its budget.
		if ok, err := tx.WorkflowInstanceUseBudget(ctx, r.ID, len(r.Graph.Nodes)); err != nil {
			return err
		} else if !ok {
			why := fmt.Sprintf("the workflow has %d nodes; the app's budget per instance is %d (nodes and FOREACH elements across nested instances)",
				len(r.Graph.Nodes), r.Budget)
			p = &plan{ended: true, runMove: &db.WorkflowInstanceTransition{ID: r.ID, From: []string{db.WorkflowRunning}, To: db.WorkflowFailed,
				Reason: new(db.NodeReasonBudget), Result: &why, FinishedAt: &now}}
			v = &view{wi: r, nodes: map[string]*db.WorkflowNodeRun{}}
			_, err := tx.WorkflowInstanceTransition(ctx, *p.runMove)
			return err
		}
		r.BudgetUsed = len(r.Graph.Nodes)
		if err := tx.WorkflowNodeRunCreateMany(ctx, nodeRows(r)); err != nil {
			return err
		}
		if e.deps.Tracer.On() {
			if err := e.traceStart(ctx, tx, r, now); err != nil {
				return err
			}
		}
		if v, err = e.load(ctx, tx, r, r); err != nil {
			return err
		}
		p = decide(v, now, e.epoch)
		fire, err = e.apply(ctx, tx, v, p, now)
		return err
	})
	if err != nil || p == nil {
		return nil, err
	}
	e.log.Info("workflow: run started", "workflowInstance", wiID, "workflow", v.wi.WorkflowID, "version", v.wi.Version)
	return e.after(ctx, v, p, fire, now), nil
}

// advance makes one decision on a RUNNING or PAUSED run.
func (e *Engine) advance(ctx context.Context, wiID int64) ([]int64, error) {
	var p *plan
	var v *view
	var fire []int64
	now := db.Stamp(e.clock.Now())
	err := e.deps.Store.InTx(ctx, func(ctx context.Context, tx *db.Store) error {
		if ok, err := tx.FenceHolds(ctx, e.fence); err != nil || !ok {
			return errors.Join(err, db.ErrFenced)
		}
		r, root, err := tx.WorkflowInstanceLock(ctx, wiID)
		if err != nil {
			return err
		}
		if r.Status != db.WorkflowRunning && r.Status != db.WorkflowPaused {
			return nil
		}
		if v, err = e.load(ctx, tx, r, root); err != nil {
			return err
		}
		p = decide(v, now, e.epoch)
		if p.empty() {
			return nil
		}
		fire, err = e.apply(ctx, tx, v, p, now)
		return err
	})
	if err != nil || p == nil {
		return nil, err
	}
	return e.after(ctx, v, p, fire, now), nil
}

// nodeRows are a new instance's node rows, all WAITING.
func nodeRows(r *db.WorkflowInstance) []db.WorkflowNodeRun {
	rows := make([]db.WorkflowNodeRun, len(r.Graph.Nodes))
	for i, n := range r.Graph.Nodes {
		rows[i] = db.WorkflowNodeRun{WorkflowInstanceID: r.ID, NodeKey: n.Key, NodeType: n.Type, Status: db.NodeWaiting, Generation: 1}
	}
	return rows
}

// load reads what a decision on r needs.
func (e *Engine) load(ctx context.Context, tx *db.Store, r, root *db.WorkflowInstance) (*view, error) {
	v := &view{wi: r, nodes: map[string]*db.WorkflowNodeRun{}, instances: map[string][]db.Instance{},
		children: map[string]*childInstance{}, jobs: map[int64]*db.Job{}, targets: map[int64]*db.Workflow{},
		evals: e.evals[r.ID], pending: e.pendingOf(r.ID), elements: map[string][]db.WorkflowElement{}, runs: map[string][]*childInstance{},
		rootID: root.ID, budget: root.Budget, budgetUsed: root.BudgetUsed}
	rows, err := tx.WorkflowNodeRunListByInstances(ctx, []int64{r.ID})
	if err != nil {
		return nil, err
	}
	for i := range rows {
		v.nodes[rows[i].NodeKey] = &rows[i]
	}
	ins, err := tx.InstanceListByWorkflowInstances(ctx, []int64{r.ID})
	if err != nil {
		return nil, err
	}
	for _, in := range ins {
		n := v.nodes[deref(in.WorkflowNodeID)]
		if n != nil && deref(in.WorkflowGeneration) == n.Generation {
			v.instances[n.NodeKey] = append(v.instances[n.NodeKey], in)
		}
	}
	// A FOREACH with elements still to make: the next ones, as many as its
	// parallelism may run.
	for _, n := range r.Graph.Nodes {
		row := v.nodes[n.Key]
		if n.Type != db.NodeForeach || n.WorkflowID != 0 || row == nil || row.Status != db.NodeRunning || row.Items <= len(v.instances[n.Key]) {
			continue
		}
		els, err := tx.WorkflowElementListUnmade(ctx, row, max(n.Parallelism, 1))
		if err != nil {
			return nil, err
		}
		v.elements[n.Key] = els
	}
	// A FOREACH over a workflow: its element runs, the next elements to run,
	// and once every run has ended, their node rows (what they added).
	for _, n := range r.Graph.Nodes {
		row := v.nodes[n.Key]
		if n.Type != db.NodeForeach || n.WorkflowID == 0 || row == nil || row.Status != db.NodeRunning || row.Items == 0 {
			continue
		}
		runs, err := tx.WorkflowInstanceListElements(ctx, r.ID, n.Key, row.Generation)
		if err != nil {
			return nil, err
		}
		ended := 0
		for i := range runs {
			v.runs[n.Key] = append(v.runs[n.Key], &childInstance{wi: &runs[i]})
			if db.IsWorkflowInstanceFinal(runs[i].Status) {
				ended++
			}
		}
		switch {
		case len(runs) < row.Items:
			els, err := tx.WorkflowElementListUnrun(ctx, row, max(n.Parallelism, 1))
			if err != nil {
				return nil, err
			}
			v.elements[n.Key] = els
		case ended == len(runs):
			ids := make([]int64, len(runs))
			for i := range runs {
				ids[i] = runs[i].ID
			}
			rows, err := tx.WorkflowNodeRunListByInstances(ctx, ids)
			if err != nil {
				return nil, err
			}
			byRun := map[int64]*childInstance{}
			for _, c := range v.runs[n.Key] {
				byRun[c.wi.ID] = c
			}
			for _, cn := range rows {
				byRun[cn.WorkflowInstanceID].nodes = append(byRun[cn.WorkflowInstanceID].nodes, cn)
			}
		}
	}
	var childIDs []int64
	for _, n := range v.nodes {
		if n.ChildInstanceID != nil {
			childIDs = append(childIDs, *n.ChildInstanceID)
		}
	}
	if len(childIDs) > 0 {
		children, err := tx.WorkflowInstanceListByIDs(ctx, childIDs)
		if err != nil {
			return nil, err
		}
		childNodes, err := tx.WorkflowNodeRunListByInstances(ctx, childIDs)
		if err != nil {
			return nil, err
		}
		for i := range children {
			c := &childInstance{wi: &children[i]}
			for _, cn := range childNodes {
				if cn.WorkflowInstanceID == c.wi.ID {
					c.nodes = append(c.nodes, cn)
				}
			}
			v.children[deref(c.wi.ParentNodeKey)] = c
		}
	}
	var jobIDs, targetIDs []int64
	for _, n := range r.Graph.Nodes {
		row := v.nodes[n.Key]
		if row != nil && n.Type == db.NodeForeach && n.WorkflowID != 0 && !db.IsNodeFinal(row.Status) {
			targetIDs = append(targetIDs, n.WorkflowID) // its element runs are made as places free
			continue
		}
		evaluating := row != nil && row.Status == db.NodeRunning && n.Type == db.NodeForeach && row.Items == 0
		if row == nil || (row.Status != db.NodeWaiting && !evaluating) {
			continue
		}
		switch n.Type {
		case db.NodeJob, db.NodeForeach:
			jobIDs = append(jobIDs, n.JobID)
		case db.NodeNested:
			targetIDs = append(targetIDs, n.WorkflowID)
		}
	}
	if len(jobIDs) > 0 {
		jobs, err := tx.JobListByIDs(ctx, jobIDs)
		if err != nil {
			return nil, err
		}
		for i := range jobs {
			if jobs[i].AppID == r.AppID {
				v.jobs[jobs[i].ID] = &jobs[i]
			}
		}
	}
	if len(targetIDs) > 0 {
		wfs, err := tx.WorkflowListByIDs(ctx, targetIDs)
		if err != nil {
			return nil, err
		}
		for i := range wfs {
			if wfs[i].AppID == r.AppID {
				v.targets[wfs[i].ID] = &wfs[i]
			}
		}
		for p := r.ParentInstanceID; p != nil && v.depth <= maxDepth; v.depth++ {
			parent, err := tx.WorkflowInstanceGet(ctx, *p)
			if err != nil {
				return nil, err
			}
			p = parent.ParentInstanceID
		}
	}
	return v, nil
}

// apply writes a plan; it returns the job instances to fire once it is
// committed. A compare-and-set that loses returns errLost.
func (e *Engine) apply(ctx context.Context, tx *db.Store, v *view, p *plan, now time.Time) ([]int64, error) {
	var fire []int64
	if p.budgetUse > 0 {
		// The decision counted within the budget read under the top
		// instance's lock: this cannot fail.
		if ok, err := tx.WorkflowInstanceUseBudget(ctx, v.rootID, p.budgetUse); err != nil || !ok {
			return nil, errors.Join(err, errLost)
		}
	}
	for _, el := range p.elements {
		if err := tx.WorkflowElementCreateMany(ctx, el.node, el.gen, el.items); err != nil {
			return nil, err
		}
	}
	for i := range p.creates {
		c := &p.creates[i]
		// A traced run's job instances are traced under it.
		c.instance.TraceParent = v.wi.TraceParent
		if err := tx.InstanceCreate(ctx, &c.instance); err != nil {
			return nil, err
		}
		if c.link >= 0 {
			p.moves[c.link].InstanceID = &c.instance.ID
		}
		if !c.held {
			fire = append(fire, c.instance.ID)
		}
	}
	for i := range p.children {
		c := &p.children[i]
		c.wi.TraceParent = v.wi.TraceParent
		if _, err := tx.WorkflowInstanceCreate(ctx, &c.wi); err != nil {
			return nil, err
		}
		if err := tx.WorkflowNodeRunCreateMany(ctx, nodeRows(&c.wi)); err != nil {
			return nil, err
		}
		if c.link >= 0 {
			p.moves[c.link].ChildID = &c.wi.ID
		}
	}
	for _, m := range p.moves {
		ok, err := tx.WorkflowNodeRunTransition(ctx, m, e.fence)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, errLost
		}
	}
	if len(p.release) > 0 {
		if err := tx.InstanceReleaseMany(ctx, p.release, now); err != nil {
			return nil, err
		}
		fire = append(fire, p.release...)
	}
	for _, id := range p.stop {
		if _, err := tx.InstanceStop(ctx, id, db.ReasonStopped); err != nil && !errors.Is(err, db.ErrNotFound) {
			return nil, err
		}
	}
	for _, id := range p.stopWorkflowInstances {
		if err := stopWorkflowInstance(ctx, tx, id, "stopped: its parent run fails fast", now); err != nil {
			return nil, err
		}
	}
	if p.runMove != nil {
		ok, err := tx.WorkflowInstanceTransition(ctx, *p.runMove)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, errLost
		}
		if p.ended && p.runMove.To == db.WorkflowSucceeded && v.wi.ParentInstanceID == nil {
			if err := e.startDownstream(ctx, tx, v, p, now); err != nil {
				return nil, err
			}
		}
	}
	return fire, nil
}

// startDownstream records a run of each workflow linked downstream of a
// top-level run that succeeds, in the transaction that ends it: the
// success starts each exactly once, whatever fail-over follows (one
// indexed read when there is none).
func (e *Engine) startDownstream(ctx context.Context, tx *db.Store, v *view, p *plan, now time.Time) error {
	started, err := tx.WorkflowLinkStart(ctx, v.wi.WorkflowID, v.wi.ID, 0, 0, func(ctx context.Context) (map[string]any, error) {
		rows, err := tx.WorkflowNodeRunListByInstances(ctx, []int64{v.wi.ID})
		if err != nil {
			return nil, err
		}
		return map[string]any{"type": "WORKFLOW", "workflowId": strconv.FormatInt(v.wi.WorkflowID, 10),
			"runId": strconv.FormatInt(v.wi.ID, 10), "context": v.wi.ContextWith(rows)}, nil
	}, now)
	for _, r := range started {
		p.downstream = append(p.downstream, r.ID)
	}
	return err
}

// after does what follows a committed decision: runs the created
// instances, and returns the instances to look at next (new nested instances, a
// parent whose child ended, the next queued instance).
func (e *Engine) after(ctx context.Context, v *view, p *plan, fire []int64, now time.Time) []int64 {
	if e.deps.Tracer.On() {
		e.traceMoves(v, p, now)
	}
	if len(fire) > 0 {
		e.exec.Fire(fire, now)
	}
	if len(p.stop) > 0 {
		e.exec.Kick()
	}
	for _, id := range p.consumed {
		delete(e.evals[v.wi.ID], id)
	}
	// An evaluation under way for a node that no longer runs (stopped,
	// failed fast, reset) is of no use.
	for id, pe := range e.pending[v.wi.ID] {
		if n := v.nodes[pe.key]; n == nil || n.ID != id || n.Status != db.NodeRunning || n.Generation != pe.gen {
			if pe.cancel != nil {
				pe.cancel()
			}
			delete(e.pending[v.wi.ID], id)
		}
	}
	for _, r := range p.evaluate {
		e.submit(ctx, r)
	}
	if p.ended {
		e.forget(v.wi.ID)
	}
	var follow []int64
	changed := []int64{v.wi.ID}
	for _, c := range p.children {
		follow = append(follow, c.wi.ID)
		changed = append(changed, c.wi.ID)
	}
	follow = append(follow, p.stopWorkflowInstances...)
	// Downstream runs started by this run's success start now.
	follow = append(follow, p.downstream...)
	changed = append(changed, p.downstream...)
	// The instance is looked at again when its next deadline passes: its
	// own, an approval's, a NESTED node's.
	delete(e.deadlines, v.wi.ID)
	if !p.ended {
		var next *time.Time
		earliest := func(t *time.Time) {
			if t != nil && (next == nil || t.Before(*next)) {
				next = t
			}
		}
		earliest(v.wi.Deadline)
		for _, n := range v.nodes {
			if n.Status == db.NodeAwaitingApproval || n.Status == db.NodeRunning {
				earliest(n.Deadline)
			}
		}
		if next != nil {
			e.deadlines[v.wi.ID] = *next
		}
	}
	if p.ended {
		e.log.Info("workflow: run ended", "workflowInstance", v.wi.ID, "status", p.runMove.To, "result", deref(p.runMove.Result))
		if e.deps.Alarmer != nil {
			r := *v.wi
			r.Status, r.FinishedAt, r.Result = p.runMove.To, p.runMove.FinishedAt, deref(p.runMove.Result)
			if p.runMove.Reason != nil {
				r.Reason = *p.runMove.Reason
			}
			e.deps.Alarmer.WorkflowInstanceEnded(r)
		}
		if v.wi.ParentInstanceID != nil {
			follow = append(follow, *v.wi.ParentInstanceID)
		} else if queued, err := e.deps.Store.WorkflowInstanceListQueued(ctx, v.wi.WorkflowID, now, 1); err == nil && len(queued) > 0 {
			follow = append(follow, queued[0].ID)
		}
	}
	e.notify(changed...)
	return follow
}

// submit hands an evaluation to the evaluator; one it cannot take yet
// waits in unsent.
func (e *Engine) submit(ctx context.Context, r evalRequest) {
	pe := &pendingEval{gen: r.gen, key: r.key}
	if e.pending[r.wi] == nil {
		e.pending[r.wi] = map[int64]*pendingEval{}
	}
	if old := e.pending[r.wi][r.node]; old != nil && old.cancel != nil {
		old.cancel()
	}
	e.pending[r.wi][r.node] = pe
	e.send(ctx, r, pe)
}

func (e *Engine) send(ctx context.Context, r evalRequest, pe *pendingEval) {
	ectx, cancel := context.WithCancel(ctx)
	ok := e.eval.Submit(ectx, e.app, r.text, r.env, func(v any, err error) {
		var le *wfexpr.LimitError
		canceled := errors.Is(err, errEvaluatorStopped) || (errors.As(err, &le) && le.Reason == wfexpr.ReasonCanceled)
		o := outcomeOf(r.nodeType, v, err)
		o.gen = r.gen
		e.evalMu.Lock()
		e.evalDone = append(e.evalDone, finishedEval{req: r, outcome: o, canceled: canceled})
		e.evalMu.Unlock()
		select {
		case e.evalWake <- struct{}{}:
		default:
		}
	})
	if !ok {
		cancel()
		e.unsent = append(e.unsent, r)
		return
	}
	pe.cancel = cancel
}

// resend offers the evaluator again what it could not take.
func (e *Engine) resend(ctx context.Context) {
	list := e.unsent
	e.unsent = nil
	for _, r := range list {
		if pe := e.pending[r.wi][r.node]; pe != nil && pe.gen == r.gen && pe.cancel == nil {
			e.send(ctx, r, pe)
		}
	}
}

// evaluated takes the evaluations that finished: their instances are looked
// at, and their next decision applies the outcomes.
func (e *Engine) evaluated(ids map[int64]bool) {
	e.evalMu.Lock()
	list := e.evalDone
	e.evalDone = nil
	e.evalMu.Unlock()
	for _, f := range list {
		pe := e.pending[f.req.wi][f.req.node]
		if pe == nil || pe.gen != f.req.gen {
			continue // given up meanwhile
		}
		delete(e.pending[f.req.wi], f.req.node)
		if len(e.pending[f.req.wi]) == 0 {
			delete(e.pending, f.req.wi)
		}
		if f.canceled {
			// Not an outcome: if the node still runs, the next decision
			// begins the evaluation again (counted).
			ids[f.req.wi] = true
			continue
		}
		if e.evals[f.req.wi] == nil {
			e.evals[f.req.wi] = map[int64]evalOutcome{}
		}
		e.evals[f.req.wi][f.req.node] = f.outcome
		ids[f.req.wi] = true
	}
}

// forget drops what the engine keeps for an instance that ended.
func (e *Engine) forget(wiID int64) {
	for _, pe := range e.pending[wiID] {
		if pe.cancel != nil {
			pe.cancel()
		}
	}
	delete(e.pending, wiID)
	delete(e.evals, wiID)
}

// pendingOf are the node rows of an instance whose evaluation is under way.
func (e *Engine) pendingOf(wiID int64) map[int64]bool {
	out := map[int64]bool{}
	for id := range e.pending[wiID] {
		out[id] = true
	}
	return out
}

func (e *Engine) notify(wiIDs ...int64) {
	if e.deps.Notifier != nil {
		e.deps.Notifier.WorkflowInstancesChanged(e.app, wiIDs)
	}
}

// stopWorkflowInstance ends an instance STOPPED with everything in it, in a
// few statements however large it is: its nested instances at any depth,
// their unfinished nodes and their job instances.
func stopWorkflowInstance(ctx context.Context, tx *db.Store, wiID int64, why string, now time.Time) error {
	moved, err := tx.WorkflowInstanceTransition(ctx, db.WorkflowInstanceTransition{ID: wiID,
		From: []string{db.WorkflowWaiting, db.WorkflowRunning, db.WorkflowPaused}, To: db.WorkflowStopped, Result: &why, FinishedAt: &now})
	if err != nil || !moved {
		return err
	}
	tree, err := tx.WorkflowInstanceListSubtree(ctx, wiID)
	if err != nil {
		return err
	}
	if _, err := tx.WorkflowInstanceStopMany(ctx, tree[1:], why, now); err != nil {
		return err
	}
	if _, err := tx.InstanceStopByWorkflowInstances(ctx, tree, db.ReasonStopped); err != nil {
		return err
	}
	return tx.WorkflowNodeRunStopMany(ctx, tree, why, now)
}
