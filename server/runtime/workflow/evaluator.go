package workflow

import (
	"context"
	"errors"
	"runtime"
	"sync"

	"github.com/jobwheel/jobwheel/internal/lifecycle"
	"github.com/jobwheel/jobwheel/server/runtime/workflow/wfexpr"
)

// Evaluator evaluates the expressions of DECISION and FOREACH nodes for the
// engines of one server (issue 25, item 1): on its own goroutines, never an
// engine's, and never inside a database transaction. A few workers bound
// the CPU expressions take together; each evaluation is bounded by
// Limits (CPU and bytes) and stopped when its engine gives it up. Work
// waits in one queue per app, served in turn, so an app that queues many
// slow expressions delays its own, not another app's.
type Evaluator struct {
	lifecycle.Base
	cfg EvaluatorConfig

	mu     sync.Mutex
	queues map[int64][]*evalJob
	order  []int64 // apps with queued work, in the order they are served
	queued int
	wake   chan struct{}
	ctx    context.Context // the running workers' context; nil when stopped
}

// EvaluatorConfig configures an Evaluator.
type EvaluatorConfig struct {
	// Workers evaluating at once (default: half the CPUs, at least 1).
	Workers int
	// Limits bound each evaluation (defaults: wfexpr's).
	Limits wfexpr.Limits
	// MaxQueued bounds the evaluations waiting (default 10,000): past it
	// Submit refuses, and the engine asks again a second later.
	MaxQueued int
}

type evalJob struct {
	ctx  context.Context
	app  int64
	text string
	env  map[string]any
	done func(v any, err error)
}

// errEvaluatorStopped is what Submit's done hears of work queued when the
// evaluator stopped.
var errEvaluatorStopped = errors.New("the expression evaluator stopped")

// NewEvaluator returns an evaluator; Start runs its workers.
func NewEvaluator(cfg EvaluatorConfig) *Evaluator {
	if cfg.Workers <= 0 {
		cfg.Workers = max(runtime.GOMAXPROCS(0)/2, 1)
	}
	if cfg.MaxQueued <= 0 {
		cfg.MaxQueued = 10000
	}
	cfg.Limits = cfg.Limits.OrDefaults()
	return &Evaluator{cfg: cfg, queues: map[int64][]*evalJob{}, wake: make(chan struct{}, 1)}
}

// Limits are the limits each evaluation runs under.
func (p *Evaluator) Limits() wfexpr.Limits { return p.cfg.Limits }

// Start runs the workers until Stop.
func (p *Evaluator) Start(ctx context.Context) error {
	ctx, ok, started, stopped := p.StartInit(ctx)
	if !ok {
		return nil
	}
	p.mu.Lock()
	p.ctx = ctx
	p.mu.Unlock()
	go func() {
		defer stopped()
		var wg sync.WaitGroup
		for range p.cfg.Workers {
			wg.Go(func() { p.work(ctx) })
		}
		started()
		wg.Wait()
		// What is still queued is given up: its engines have stopped (they
		// stop before the evaluator), and a new owner evaluates again.
		p.mu.Lock()
		var left []*evalJob
		for _, q := range p.queues {
			left = append(left, q...)
		}
		p.queues, p.order, p.queued, p.ctx = map[int64][]*evalJob{}, nil, 0, nil
		p.mu.Unlock()
		for _, j := range left {
			j.done(nil, errEvaluatorStopped)
		}
	}()
	return nil
}

// Submit queues an evaluation of text over env for app; done is called
// once with its value or error, on a worker's goroutine, and must not
// block. Cancelling ctx stops the evaluation (done hears a LimitError with
// ReasonCanceled). False if the evaluator is stopped or full: done is not
// called then.
func (p *Evaluator) Submit(ctx context.Context, app int64, text string, env map[string]any, done func(v any, err error)) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ctx == nil || p.queued >= p.cfg.MaxQueued {
		return false
	}
	if len(p.queues[app]) == 0 {
		p.order = append(p.order, app)
	}
	p.queues[app] = append(p.queues[app], &evalJob{ctx: ctx, app: app, text: text, env: env, done: done})
	p.queued++
	select {
	case p.wake <- struct{}{}:
	default:
	}
	return true
}

// next takes the next job, serving the apps in turn.
func (p *Evaluator) next() *evalJob {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.order) == 0 {
		return nil
	}
	app := p.order[0]
	p.order = p.order[1:]
	q := p.queues[app]
	j := q[0]
	q[0] = nil
	if q = q[1:]; len(q) > 0 {
		p.queues[app] = q
		p.order = append(p.order, app)
	} else {
		delete(p.queues, app)
	}
	p.queued--
	if p.queued > 0 {
		// Another worker may be idle: pass the wake on.
		select {
		case p.wake <- struct{}{}:
		default:
		}
	}
	return j
}

func (p *Evaluator) work(ctx context.Context) {
	for {
		j := p.next()
		if j == nil {
			select {
			case <-ctx.Done():
				return
			case <-p.wake:
				continue
			}
		}
		jctx, cancel := context.WithCancel(j.ctx)
		stop := context.AfterFunc(ctx, cancel)
		v, err := wfexpr.Eval(jctx, j.text, j.env, p.cfg.Limits)
		stop()
		cancel()
		j.done(v, err)
		if ctx.Err() != nil {
			return
		}
	}
}
