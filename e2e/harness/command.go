package harness

import (
	"fmt"
	"os"
	"strconv"
	"time"
)

// Command is a TB (and a dbtest.TB) for programs outside `go test` — the
// benchmarks and the soak — so they start servers, agents and databases
// the way tests do. Cleanups run last first at Close; Fatalf says why on
// stderr, cleans up and exits with the command's code.
type Command struct {
	name      string
	fatalCode int
	dir       string
	cleanups  []func()
	// Keep leaves the temporary directory in place at Close (for a look
	// at what the processes wrote).
	Keep bool
}

// NewCommand prefixes messages with name, exits with fatalCode on Fatalf,
// and keeps its temporary directories under one it removes at Close.
func NewCommand(name string, fatalCode int) *Command {
	dir, err := os.MkdirTemp("", "jobwheel-"+name+"-")
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: creating a temporary directory: %v\n", name, err)
		os.Exit(fatalCode)
	}
	return &Command{name: name, fatalCode: fatalCode, dir: dir}
}

// Dir is the command's temporary directory.
func (c *Command) Dir() string { return c.dir }

func (c *Command) Helper() {}

func (c *Command) Logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, c.name+": "+format+"\n", args...)
}

// Errorf only reports: a command has no failed-but-going-on state.
func (c *Command) Errorf(format string, args ...any) { c.Logf(format, args...) }

func (c *Command) Fatalf(format string, args ...any) {
	c.Logf(format, args...)
	c.Close()
	os.Exit(c.fatalCode)
}

func (c *Command) Cleanup(fn func()) { c.cleanups = append(c.cleanups, fn) }

func (c *Command) TempDir() string {
	d, err := os.MkdirTemp(c.dir, "t")
	if err != nil {
		c.Fatalf("%v", err)
	}
	return d
}

// Close runs the cleanups, last first, and removes the temporary directory
// unless Keep is set. It may be called again.
func (c *Command) Close() {
	for i := len(c.cleanups) - 1; i >= 0; i-- {
		c.cleanups[i]()
	}
	c.cleanups = nil
	if !c.Keep {
		_ = os.RemoveAll(c.dir)
	}
}

// App is an app created for a run, with the agents started for it.
type App struct {
	ID     int64
	Name   string
	Secret string
	Agents []*Process
	// AgentOptions are each agent's options, to start it again after a kill.
	AgentOptions []AgentOptions
}

// StartApp creates the app through c, starts n agents for it — agent i
// (from 0) with the options agent(i) returns, App and Secret filled in —
// and waits up to timeout until all n are connected.
func StartApp(tb TB, c *Client, name string, n int, timeout time.Duration, agent func(i int) AgentOptions) *App {
	tb.Helper()
	idStr, secret, err := c.CreateApp(name)
	if err != nil {
		tb.Fatalf("creating app %s: %v", name, err)
	}
	id, err := strconv.ParseInt(idStr, 10, 64)
	if err != nil {
		tb.Fatalf("app %s has id %q: %v", name, idStr, err)
	}
	a := &App{ID: id, Name: name, Secret: secret}
	for i := range n {
		opts := agent(i)
		opts.App, opts.Secret = name, secret
		a.AgentOptions = append(a.AgentOptions, opts)
		a.Agents = append(a.Agents, StartAgent(tb, opts))
	}
	if _, err := c.WaitWorkers(name, n, timeout); err != nil {
		tb.Fatalf("waiting for the agents of %s: %v", name, err)
	}
	return a
}
