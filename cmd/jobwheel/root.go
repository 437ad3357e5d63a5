package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/jobwheel/jobwheel/cmd/jobwheel/internal/contexts"
	"github.com/jobwheel/jobwheel/graph/client"
)

// cli is one run of the tool: its streams, environment and global flags.
type cli struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string

	// Global flags.
	contextName string
	app         string
	output      string
	configPath  string

	file *contexts.File
}

const rootHelp = `jobwheel is the command-line tool of jobwheel, a distributed job scheduler.

It talks to a server's GraphQL API with a token it keeps per server
(jobwheel login), lists what runs there, runs jobs and workflows and waits
for their outcome, and applies configuration files of jobs, workflows and
calendars (jobwheel apply).

Environment: JOBWHEEL_SERVER and JOBWHEEL_TOKEN override the context's
server and token; JOBWHEEL_APP is the app when --app is not given.`

func (c *cli) root() *cobra.Command {
	root := &cobra.Command{
		Use:           "jobwheel",
		Short:         "jobwheel's command-line tool: run, watch and configure jobs and workflows",
		Long:          rootHelp,
		SilenceErrors: true,
		SilenceUsage:  true,
		Version:       version(),
		Example: `  jobwheel login http://localhost:7700 --username admin
  jobwheel jobs --app demo
  jobwheel run hello --app demo --follow
  jobwheel apply -f jobs/`,
	}
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error { return &usageError{err.Error()} })
	pf := root.PersistentFlags()
	pf.StringVar(&c.contextName, "context", "", "the context (server) to use instead of the current one")
	pf.StringVarP(&c.app, "app", "a", "", "the app (default: $JOBWHEEL_APP, else the context's app)")
	pf.StringVarP(&c.output, "output", "o", "table", "output format of lists and objects: table, json or yaml")
	pf.StringVar(&c.configPath, "config", "", "the configuration file (default: the user's config directory/jobwheel/config.yaml)")
	_ = root.RegisterFlagCompletionFunc("output", cobra.FixedCompletions([]string{"table", "json", "yaml"}, cobra.ShellCompDirectiveNoFileComp))
	_ = root.RegisterFlagCompletionFunc("app", c.completeApps)
	_ = root.RegisterFlagCompletionFunc("context", c.completeContexts)
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		switch c.output {
		case "table", "json", "yaml":
			return nil
		}
		return usagef("--output %q: use table, json or yaml", c.output)
	}
	root.AddGroup(&cobra.Group{ID: "setup", Title: "Servers:"}, &cobra.Group{ID: "read", Title: "Reading:"},
		&cobra.Group{ID: "act", Title: "Acting:"}, &cobra.Group{ID: "config", Title: "Configuration as code:"})
	for _, cmd := range []*cobra.Command{c.loginCmd(), c.logoutCmd(), c.contextCmd()} {
		cmd.GroupID = "setup"
		root.AddCommand(cmd)
	}
	for _, cmd := range c.readCmds() {
		cmd.GroupID = "read"
		root.AddCommand(cmd)
	}
	for _, cmd := range c.actCmds() {
		cmd.GroupID = "act"
		root.AddCommand(cmd)
	}
	for _, cmd := range []*cobra.Command{c.applyCmd(), c.diffCmd(), c.exportCmd(), c.importCmd()} {
		cmd.GroupID = "config"
		root.AddCommand(cmd)
	}
	return root
}

// version is the module version the binary was built from.
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		v := bi.Main.Version
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				v += " (" + s.Value[:12] + ")"
			}
		}
		return v
	}
	return "unknown"
}

// config loads the configuration file once.
func (c *cli) config() (*contexts.File, error) {
	if c.file != nil {
		return c.file, nil
	}
	path := c.configPath
	if path == "" {
		var err error
		if path, err = contexts.DefaultPath(); err != nil {
			return nil, err
		}
	}
	f, err := contexts.Load(path)
	if err != nil {
		return nil, err
	}
	c.file = f
	return f, nil
}

// current is the context commands use: --context, else the current one;
// nil (and no error) when there is none.
func (c *cli) current() (*contexts.Context, error) {
	f, err := c.config()
	if err != nil {
		return nil, err
	}
	name := c.contextName
	if name == "" {
		name = f.Current
	}
	if name == "" {
		return nil, nil
	}
	ctx := f.Get(name)
	if ctx == nil {
		return nil, fmt.Errorf("no context named %q in %s (jobwheel context list shows them)", name, f.Path())
	}
	return ctx, nil
}

// client is a GraphQL client of the server to use: JOBWHEEL_SERVER and
// JOBWHEEL_TOKEN, else the context's.
func (c *cli) client() (*client.Client, error) {
	ctx, err := c.current()
	if err != nil {
		return nil, err
	}
	server, token := c.getenv("JOBWHEEL_SERVER"), c.getenv("JOBWHEEL_TOKEN")
	if ctx != nil {
		if server == "" {
			server = ctx.Server
		}
		if token == "" && c.getenv("JOBWHEEL_SERVER") == "" {
			token = ctx.Token
		}
	}
	if server == "" {
		return nil, errors.New("no server: run jobwheel login URL first (or set JOBWHEEL_SERVER and JOBWHEEL_TOKEN)")
	}
	cl := client.New(server)
	cl.Token = token
	return cl, nil
}

// appName is the app to act on: --app, $JOBWHEEL_APP, the context's.
func (c *cli) appName() (string, error) {
	if c.app != "" {
		return c.app, nil
	}
	if a := c.getenv("JOBWHEEL_APP"); a != "" {
		return a, nil
	}
	ctx, err := c.current()
	if err != nil {
		return "", err
	}
	if ctx != nil && ctx.App != "" {
		return ctx.App, nil
	}
	return "", usagef("no app: give --app NAME (jobwheel apps lists them), or set a default with jobwheel context app NAME")
}

// explain turns an error into what to do about it.
func (c *cli) explain(err error) error {
	var gqlErrs client.Errors
	if errors.As(err, &gqlErrs) && len(gqlErrs) > 0 {
		e := gqlErrs[0]
		switch e.Code() {
		case "UNAUTHENTICATED":
			return fmt.Errorf("%s: not logged in, or the session ended: run jobwheel login", e.Message)
		case "FORBIDDEN":
			return fmt.Errorf("%s: your role does not allow it; an OWNER of the app can give you EDITOR (jobwheel apps shows your role)", e.Message)
		case "RATE_LIMITED":
			return fmt.Errorf("%s: wait and try again", e.Message)
		}
		msgs := make([]string, len(gqlErrs))
		for i, x := range gqlErrs {
			msgs[i] = x.Message
		}
		return errors.New(strings.Join(msgs, "; "))
	}
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		return fmt.Errorf("cannot reach the server at %s (%w): is it running, and is the address right? (jobwheel context list shows the servers)",
			urlErr.URL, urlErr.Err)
	}
	return err
}

// do runs a query or mutation with the command's context.
func (c *cli) do(ctx context.Context, cl *client.Client, query string, vars map[string]any, out any) error {
	return cl.DoContext(ctx, query, vars, out)
}

// isCobraUsage says whether err is cobra's complaint about the command
// line (unknown command, wrong number of arguments).
func isCobraUsage(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "accepts ", "requires at least", "requires at most", "unknown flag", "unknown shorthand flag",
		"flag needs an argument", "invalid argument", "required flag"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

// commandPath is the command a command line names, for "--help" hints.
func commandPath(root *cobra.Command, args []string) string {
	cmd, _, err := root.Find(args)
	if err != nil || cmd == nil {
		return root.Name()
	}
	return cmd.CommandPath()
}

func (c *cli) completeApps(cmd *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
	cl, err := c.client()
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out struct{ Apps []struct{ Name string } }
	if err := c.do(cmd.Context(), cl, `{ apps { name } }`, nil, &out); err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	names := make([]string, len(out.Apps))
	for i, a := range out.Apps {
		names[i] = a.Name
	}
	return names, cobra.ShellCompDirectiveNoFileComp
}

func (c *cli) completeContexts(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	f, err := c.config()
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var names []string
	for _, x := range f.Contexts {
		names = append(names, x.Name)
	}
	return names, cobra.ShellCompDirectiveNoFileComp
}
