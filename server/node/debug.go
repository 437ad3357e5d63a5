package node

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"time"

	"github.com/jobwheel/jobwheel/internal/lifecycle"
)

// debugService serves net/http/pprof on a listener of its own
// (JOBWHEEL_DEBUG_ADDR, off by default): CPU, heap, allocation, goroutine,
// block and mutex profiles under /debug/pprof/ and the runtime execution
// trace at /debug/pprof/trace, for `go tool pprof` and `go tool trace`. It
// is apart from the API's listener so profiles are never reachable where
// the console is, need no login, and a long profile request cannot hold up
// the API's shutdown.
type debugService struct {
	lifecycle.Base
	listener net.Listener
	server   *http.Server
	log      *slog.Logger
	// what is served, for the log: "pprof", "metrics".
	what string
}

// newSideService serves h on a listener of its own, apart from the API's
// (the debug and the metrics listeners).
func newSideService(what string, l net.Listener, h http.Handler, log *slog.Logger) *debugService {
	return &debugService{listener: l, log: log, what: what, server: &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}}
}

func newDebugService(l net.Listener, log *slog.Logger) *debugService {
	mux := http.NewServeMux()
	// The handlers are registered on a mux of our own, not on
	// http.DefaultServeMux (which importing net/http/pprof also fills and
	// nothing here serves).
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return newSideService("pprof", l, mux, log)
}

func (s *debugService) Start(ctx context.Context) error {
	ctx, ok, started, stopped := s.StartInit(ctx)
	if !ok {
		return nil
	}
	served := make(chan error, 1)
	go func() { served <- s.server.Serve(s.listener) }()
	go func() {
		started()
		defer stopped()
		select {
		case err := <-served:
			if err != nil && !errors.Is(err, http.ErrServerClosed) {
				s.log.Error("side listener stopped", "serving", s.what, "err", fmt.Errorf("serving %s on %s: %w", s.what, s.listener.Addr(), err))
			}
		case <-ctx.Done():
			// Close, not Shutdown: a profile or trace in progress runs for
			// the seconds it was asked for and would hold up the stop.
			_ = s.server.Close()
			if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
				s.log.Warn("side listener", "serving", s.what, "err", fmt.Errorf("serving %s on %s: %w", s.what, s.listener.Addr(), err))
			}
		}
	}()
	return nil
}
