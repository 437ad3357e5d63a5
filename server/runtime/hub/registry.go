package hub

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"

	"github.com/jobwheel/jobwheel/internal/lifecycle"
	"github.com/jobwheel/jobwheel/worker/protocol"
)

// Handler receives what one app's workers send (package execution's
// actor). Report and Map must call done once what they were given is
// durable (or failed); the worker is acked then. Calls for one worker
// arrive in the order the worker sent them.
type Handler interface {
	WorkerJoined(w WorkerInfo)
	WorkerLeft(workerID string)
	WorkerHeartbeat(workerID string, hb *protocol.Heartbeat)
	Report(workerID string, r *protocol.Report, done func(error))
	Map(workerID string, m *protocol.Map, done func(error))
	// Results answers a request for a page of a POST or REDUCE task's
	// results: done gets the page, or why it cannot be had.
	Results(workerID string, r *protocol.Results, done func([]protocol.TaskResult, bool, error))
}

// errRegistryClosed refuses a worker joining an app this server has just
// stopped running.
var errRegistryClosed = errors.New("this server no longer owns the app")

// Registry is the connected workers of one app this server owns, under one
// lease epoch. It is part of the owned app: started with it, and stopping
// it redirects every worker to whoever owns the app next.
type Registry struct {
	lifecycle.Base
	app     int64
	epoch   int64
	handler Handler

	mu     sync.Mutex
	conns  map[string]*conn
	closed bool
}

// NewRegistry returns the registry of an app held under epoch, routing
// what its workers send to handler.
func NewRegistry(appID, epoch int64, handler Handler) *Registry {
	return &Registry{app: appID, epoch: epoch, handler: handler, conns: map[string]*conn{}}
}

// Epoch is the lease epoch the app is held under.
func (r *Registry) Epoch() int64 { return r.epoch }

// Start opens the registry to workers.
func (r *Registry) Start(ctx context.Context) error {
	ctx, ok, started, stopped := r.StartInit(ctx)
	if !ok {
		return nil
	}
	r.mu.Lock()
	r.closed = false
	r.mu.Unlock()
	go func() {
		started()
		defer stopped()
		<-ctx.Done()
		r.closeAll(&protocol.Redirect{Reason: "this server no longer owns the app"})
	}()
	return nil
}

// closeAll refuses new workers and tells every connected one to go.
func (r *Registry) closeAll(why *protocol.Redirect) {
	r.mu.Lock()
	r.closed = true
	list := make([]*conn, 0, len(r.conns))
	for _, c := range r.conns {
		list = append(list, c)
	}
	r.mu.Unlock()
	for _, c := range list {
		c.closeWith(protocol.TypeRedirect, why)
	}
}

// join registers a worker's connection; one of the same worker id that was
// still registered is returned to be closed.
func (r *Registry) join(c *conn) (replaced *conn, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, errRegistryClosed
	}
	replaced = r.conns[c.info.ID]
	r.conns[c.info.ID] = c
	return replaced, nil
}

// leave removes c if it is still the registered connection of its worker.
func (r *Registry) leave(c *conn) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.conns[c.info.ID] != c {
		return false
	}
	delete(r.conns, c.info.ID)
	return true
}

// Send sends a message to a worker. onReply, if not nil, gets the worker's
// ack or an error (not connected, connection lost, no reply in time).
func (r *Registry) Send(workerID, typ string, body any, onReply func(*protocol.Ack, error)) error {
	r.mu.Lock()
	c := r.conns[workerID]
	r.mu.Unlock()
	if c == nil {
		err := fmt.Errorf("worker %s is not connected", workerID)
		if onReply != nil {
			onReply(nil, err)
		}
		return err
	}
	return c.send(typ, body, onReply)
}

// Workers returns the connected workers, by id.
func (r *Registry) Workers() []WorkerInfo {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]WorkerInfo, 0, len(r.conns))
	for _, c := range r.conns {
		info := c.info
		info.Busy = int(c.busy.Load())
		out = append(out, info)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}
