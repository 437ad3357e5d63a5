// Command jobwheel is jobwheel's command-line tool: it logs in to servers
// (contexts), lists apps, jobs, workflows, instances, workers and runs,
// runs jobs and workflows and follows them to their outcome, acts on
// instances and runs, and applies configuration files (apply, diff,
// export). It talks to the server only through the GraphQL API (package
// graph/client). docs/cli.md is its reference.
//
// Exit codes: 0 done (an instance or run SUCCEEDED; diff found nothing
// to change); 1 an error; 2 a usage error; 3 the instance or run FAILED;
// 4 it was STOPPED or CANCELED; 5 diff found changes.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// Exit codes.
const (
	exitOK       = 0
	exitError    = 1
	exitUsage    = 2
	exitFailed   = 3
	exitStopped  = 4
	exitChanges  = 5
	exitSignaled = 130
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv)
	stop()
	os.Exit(code)
}

// run runs one command line and returns the exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	c := &cli{stdin: stdin, stdout: stdout, stderr: stderr, getenv: getenv}
	root := c.root()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	var coded *exitCode
	if errors.As(err, &coded) {
		if coded.err != nil {
			fmt.Fprintln(stderr, "jobwheel:", coded.err)
		}
		return coded.code
	}
	if ctx.Err() != nil {
		fmt.Fprintln(stderr, "jobwheel: interrupted")
		return exitSignaled
	}
	var usage *usageError
	if errors.As(err, &usage) || isCobraUsage(err) {
		fmt.Fprintf(stderr, "jobwheel: %v\nRun '%s --help' for usage.\n", err, commandPath(root, args))
		return exitUsage
	}
	fmt.Fprintln(stderr, "jobwheel:", c.explain(err))
	return exitError
}

// exitCode ends a command with a code of its own (an outcome, not an
// error); err, if any, is printed.
type exitCode struct {
	code int
	err  error
}

func (e *exitCode) Error() string {
	if e.err != nil {
		return e.err.Error()
	}
	return fmt.Sprintf("exit %d", e.code)
}

// usageError is a command line the command cannot take.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }
