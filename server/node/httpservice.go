package node

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/jobwheel/jobwheel/internal/lifecycle"
)

// shutdownTimeout bounds how long in-flight requests may take to finish.
const shutdownTimeout = 15 * time.Second

// httpService serves the console, the API and the worker channel on a
// listener; stopping it stops accepting requests and lets in-flight ones
// finish (websockets, which are hijacked, end with the services behind
// them).
type httpService struct {
	lifecycle.Base
	listener net.Listener
	server   *http.Server

	mu  sync.Mutex
	err error
}

func newHTTPService(l net.Listener, h http.Handler, log *slog.Logger) *httpService {
	return &httpService{listener: l, server: &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}}
}

func (s *httpService) Start(ctx context.Context) error {
	ctx, ok, started, stopped := s.StartInit(ctx)
	if !ok {
		return nil
	}
	s.server.BaseContext = func(net.Listener) context.Context { return context.WithoutCancel(ctx) }
	served := make(chan error, 1)
	go func() { served <- s.server.Serve(s.listener) }()
	go func() {
		started()
		defer stopped()
		var err error
		select {
		case err = <-served:
		case <-ctx.Done():
			sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownTimeout)
			if serr := s.server.Shutdown(sctx); serr != nil {
				err = fmt.Errorf("stopping HTTP: %w", serr)
			}
			cancel()
			if serr := <-served; serr != nil && !errors.Is(serr, http.ErrServerClosed) {
				err = errors.Join(err, fmt.Errorf("serving HTTP: %w", serr))
			}
		}
		s.mu.Lock()
		s.err = err
		s.mu.Unlock()
	}()
	return nil
}

// Err is why serving ended, if not because of Stop.
func (s *httpService) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}
