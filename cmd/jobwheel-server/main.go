// Command jobwheel-server is the jobwheel scheduler server: it schedules the jobs of
// the apps it holds leases on, dispatches them to workers over the worker
// channel, and serves the GraphQL API and the console.
//
// Configuration is by flags or the environment; run with -h for the list.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/jobwheel/jobwheel/server/node"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		fmt.Fprintln(os.Stderr, "jobwheel server:", err)
		os.Exit(1)
	}
}

// run starts the server and blocks until ctx is cancelled (a signal), then
// shuts down gracefully.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cfg, err := node.ParseConfig(args, getenv, stderr)
	if err != nil {
		return err
	}
	cfg.Version = version
	n, err := node.Start(ctx, cfg, stdout, cfg.Logger(stderr))
	if err != nil {
		return err
	}
	<-ctx.Done()
	return n.Shutdown()
}
