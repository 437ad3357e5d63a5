package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/jobwheel/jobwheel/cmd/jobwheel/internal/contexts"
	"github.com/jobwheel/jobwheel/graph/client"
)

func (c *cli) loginCmd() *cobra.Command {
	var name, username, token string
	var passwordStdin, tokenStdin bool
	cmd := &cobra.Command{
		Use:   "login [SERVER]",
		Short: "Log in to a server and keep its token in a context",
		Long: `Log in to a server (http(s)://host:port) and keep the token in a context of
the configuration file (mode 0600), which becomes the current one.

With a username and password, the server's login mutation exchanges them
for a session token, which lasts until the session ends (jobwheel login
again then). With an API token (the console's Settings, or the
createApiToken mutation), the token is checked and kept as it is.
Without --password-stdin or a token, the password is asked for.`,
		Example: `  jobwheel login http://localhost:7700 --username admin
  echo "$PASSWORD" | jobwheel login https://jobwheel.example.com -u ci --password-stdin
  echo "$JOBWHEEL_API_TOKEN" | jobwheel login https://jobwheel.example.com --token-stdin --name prod --app billing

With --app, the context acts on that app by default.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			server := c.getenv("JOBWHEEL_SERVER")
			if len(args) == 1 {
				server = args[0]
			}
			if server == "" {
				return usagef("name the server: jobwheel login http(s)://host:port")
			}
			u, err := url.Parse(server)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				return usagef("%q is not a server address such as http://localhost:7700", server)
			}
			server = strings.TrimRight(u.String(), "/")
			if tokenStdin {
				if token, err = readLine(c.stdin); err != nil {
					return fmt.Errorf("reading the token from standard input: %w", err)
				}
			}
			cl := client.New(server)
			ctxEntry := contexts.Context{Name: name, Server: server, App: c.app}
			if ctxEntry.Name == "" {
				ctxEntry.Name = u.Host
			}
			if token != "" {
				cl.Token = token
				var me struct{ Me *struct{ Username string } }
				err := c.do(cmd.Context(), cl, `{ me { username } }`, nil, &me)
				var gqlErrs client.Errors
				if errors.As(err, &gqlErrs) && gqlErrs.Code() == "UNAUTHENTICATED" {
					me.Me, err = nil, nil
				}
				if err != nil {
					return fmt.Errorf("checking the token with %s: %w", server, c.explain(err))
				}
				if me.Me == nil {
					return fmt.Errorf("%s refused the token: it is wrong, revoked or expired", server)
				}
				ctxEntry.Token, ctxEntry.User = token, me.Me.Username
			} else {
				if username == "" {
					if username, err = c.prompt("Username: "); err != nil {
						return err
					}
				}
				var password string
				if passwordStdin {
					password, err = readLine(c.stdin)
				} else {
					password, err = c.promptSecret("Password: ")
				}
				if err != nil {
					return err
				}
				var out struct {
					Login struct {
						Token     string
						ExpiresAt string
						User      struct{ Username string }
					}
				}
				err = c.do(cmd.Context(), cl, `mutation($u: String!, $p: String!) { login(username: $u, password: $p) { token expiresAt user { username } } }`,
					map[string]any{"u": username, "p": password}, &out)
				if err != nil {
					return fmt.Errorf("logging in to %s: %w", server, c.explain(err))
				}
				ctxEntry.Token, ctxEntry.User, ctxEntry.Expires = out.Login.Token, out.Login.User.Username, out.Login.ExpiresAt
			}
			f, err := c.config()
			if err != nil {
				return err
			}
			if old := f.Get(ctxEntry.Name); old != nil && ctxEntry.App == "" {
				ctxEntry.App = old.App
			}
			f.Put(ctxEntry)
			f.Current = ctxEntry.Name
			if err := f.Save(); err != nil {
				return err
			}
			how := "with an API token"
			if ctxEntry.Expires != "" {
				how = "until " + ctxEntry.Expires
			}
			fmt.Fprintf(c.stderr, "Logged in to %s as %s %s (context %q, kept in %s).\n", server, ctxEntry.User, how, ctxEntry.Name, f.Path())
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&name, "name", "", "the context's name (default: the server's host:port)")
	f.StringVarP(&username, "username", "u", "", "the user to log in as (asked for when neither it nor a token is given)")
	f.BoolVar(&passwordStdin, "password-stdin", false, "read the password from standard input")
	f.StringVar(&token, "token", "", "an API token to keep instead of logging in (it shows in the shell's history: prefer --token-stdin)")
	f.BoolVar(&tokenStdin, "token-stdin", false, "read an API token from standard input")
	cmd.MarkFlagsMutuallyExclusive("token", "token-stdin", "password-stdin")
	cmd.MarkFlagsMutuallyExclusive("token", "username")
	return cmd
}

func (c *cli) logoutCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "logout",
		Short: "End the session of the current context and forget its token",
		Example: `  jobwheel logout
  jobwheel logout --context prod`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, err := c.current()
			if err != nil {
				return err
			}
			if ctx == nil || ctx.Token == "" {
				return fmt.Errorf("not logged in (jobwheel context list shows the contexts)")
			}
			if ctx.Expires != "" {
				// A session: end it on the server too. An API token is
				// only forgotten here; revoke it in the console.
				cl := client.New(ctx.Server)
				cl.Token = ctx.Token
				if err := c.do(cmd.Context(), cl, `mutation { logout }`, nil, nil); err != nil {
					fmt.Fprintf(c.stderr, "the server did not end the session (%v); forgetting the token anyway\n", c.explain(err))
				}
			}
			ctx.Token, ctx.User, ctx.Expires = "", "", ""
			if err := c.file.Save(); err != nil {
				return err
			}
			fmt.Fprintf(c.stderr, "Logged out of %s (context %q).\n", ctx.Server, ctx.Name)
			return nil
		},
	}
}

func (c *cli) contextCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:     "context",
		Aliases: []string{"contexts", "ctx"},
		Short:   "List the servers logged in to, and switch between them",
		Long: `A context is a server with the token to call it with and a default app,
kept in the configuration file. jobwheel login adds one; the current
context is the one commands use unless --context names another.`,
		Example: `  jobwheel context
  jobwheel context use prod
  jobwheel context app billing
  jobwheel context delete staging`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return c.listContexts() },
	}
	cmd.AddCommand(&cobra.Command{
		Use:     "list",
		Short:   "List the contexts; * marks the current one",
		Example: "  jobwheel context list -o yaml",
		Args:    cobra.NoArgs,
		RunE:    func(*cobra.Command, []string) error { return c.listContexts() },
	}, &cobra.Command{
		Use:               "use NAME",
		Short:             "Make a context the current one",
		Example:           "  jobwheel context use prod",
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: c.completeContexts,
		RunE: func(_ *cobra.Command, args []string) error {
			f, err := c.config()
			if err != nil {
				return err
			}
			if f.Get(args[0]) == nil {
				return fmt.Errorf("no context named %q (jobwheel context list shows them; jobwheel login adds one)", args[0])
			}
			f.Current = args[0]
			if err := f.Save(); err != nil {
				return err
			}
			fmt.Fprintf(c.stderr, "Now using context %q.\n", args[0])
			return nil
		},
	}, &cobra.Command{
		Use:     "app APP",
		Short:   "Set the app the current context's commands act on by default",
		Example: "  jobwheel context app billing",
		Args:    cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			ctx, err := c.current()
			if err != nil {
				return err
			}
			if ctx == nil {
				return fmt.Errorf("no current context: jobwheel login first")
			}
			ctx.App = args[0]
			if err := c.file.Save(); err != nil {
				return err
			}
			fmt.Fprintf(c.stderr, "Context %q acts on app %q by default.\n", ctx.Name, args[0])
			return nil
		},
	}, &cobra.Command{
		Use:               "delete NAME",
		Short:             "Delete a context and its token",
		Example:           "  jobwheel context delete staging",
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: c.completeContexts,
		RunE: func(_ *cobra.Command, args []string) error {
			f, err := c.config()
			if err != nil {
				return err
			}
			if !f.Delete(args[0]) {
				return fmt.Errorf("no context named %q", args[0])
			}
			return f.Save()
		},
	})
	return cmd
}

func (c *cli) listContexts() error {
	f, err := c.config()
	if err != nil {
		return err
	}
	type row struct {
		Name    string `json:"name"`
		Current bool   `json:"current"`
		Server  string `json:"server"`
		User    string `json:"user"`
		App     string `json:"app"`
		Expires string `json:"expires,omitempty"`
	}
	var items []row
	var rows [][]string
	for _, x := range f.Contexts {
		items = append(items, row{x.Name, x.Name == f.Current, x.Server, x.User, x.App, x.Expires})
		mark := ""
		if x.Name == f.Current {
			mark = "*"
		}
		rows = append(rows, []string{mark, x.Name, x.Server, orDash(x.User), orDash(x.App), orDash(x.Expires)})
	}
	return c.show(items, []string{"", "NAME", "SERVER", "USER", "APP", "SESSION ENDS"}, rows)
}

// prompt asks for a line on the terminal.
func (c *cli) prompt(label string) (string, error) {
	if !isTerminal(c.stdin) {
		return "", usagef("no terminal to ask %q on: give it as a flag", strings.TrimSuffix(label, ": "))
	}
	fmt.Fprint(c.stderr, label)
	return readLine(c.stdin)
}

// promptSecret asks for a password without echoing it.
func (c *cli) promptSecret(label string) (string, error) {
	f, ok := c.stdin.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return "", usagef("no terminal to ask for the password on: pipe it with --password-stdin, or use --token-stdin")
	}
	fmt.Fprint(c.stderr, label)
	b, err := term.ReadPassword(int(f.Fd()))
	fmt.Fprintln(c.stderr)
	return string(b), err
}

func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

func isTerminalOut(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// readLine reads one line, without its line ending.
func readLine(r io.Reader) (string, error) {
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil && (err != io.EOF || line == "") {
		if err == io.EOF {
			return "", fmt.Errorf("nothing on standard input")
		}
		return "", err
	}
	return strings.TrimRight(line, "\r\n"), nil
}
