package harness

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"time"
)

// CLI runs the command-line tool (cmd/jobwheel) as a user would, with a
// home and configuration directory of its own.
type CLI struct {
	tb  TB
	bin string
	// Home is its HOME and XDG_CONFIG_HOME: the configuration file is
	// Home/jobwheel/config.yaml.
	Home string
	// Env adds environment variables (KEY=value) to every run.
	Env []string
}

// NewCLI returns the tool, built if need be.
func NewCLI(tb TB) *CLI {
	tb.Helper()
	bin := Build(tb).CLI
	if bin == "" {
		tb.Fatalf("no command-line tool among the prebuilt binaries (%s)", os.Getenv(BinEnv))
	}
	return &CLI{tb: tb, bin: bin, Home: tb.TempDir()}
}

// CLIResult is one run's outcome.
type CLIResult struct {
	Code           int
	Stdout, Stderr string
}

// cliFailsafe bounds one run, so a hung command fails its test instead of
// the whole suite's timeout; it is no assertion on speed.
const cliFailsafe = 3 * time.Minute

// Run runs the tool with args, stdin as its standard input, and waits
// for it to exit.
func (c *CLI) Run(stdin string, args ...string) CLIResult {
	c.tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), cliFailsafe)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.bin, args...)
	cmd.Env = append(append(cleanEnv(), "HOME="+c.Home, "XDG_CONFIG_HOME="+c.Home), c.Env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	res := CLIResult{Stdout: out.String(), Stderr: errb.String()}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		res.Code = exit.ExitCode()
	case err != nil:
		c.tb.Fatalf("running jobwheel %s: %v", strings.Join(args, " "), err)
	}
	if ctx.Err() != nil {
		c.tb.Fatalf("jobwheel %s did not exit within %s; stderr:\n%s", strings.Join(args, " "), cliFailsafe, res.Stderr)
	}
	c.tb.Logf("jobwheel %s: exit %d\nstdout:\n%sstderr:\n%s", strings.Join(args, " "), res.Code, res.Stdout, res.Stderr)
	return res
}

// cleanEnv is the test's environment without the tool's own variables,
// so a developer's JOBWHEEL_TOKEN does not leak into a test.
func cleanEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "JOBWHEEL_SERVER=") || strings.HasPrefix(kv, "JOBWHEEL_TOKEN=") || strings.HasPrefix(kv, "JOBWHEEL_APP=") {
			continue
		}
		out = append(out, kv)
	}
	return out
}
