package main

import (
	"os"
	"strings"
)

// The app secret lets whoever holds it connect as any worker of the app,
// and the scripts the agent runs are the app's EDITORs' code, not its
// OWNERs'. The agent hands them an environment without JOBWHEEL_*, but a
// process's initial environment and arguments stay readable in
// /proc/<pid>/environ and /proc/<pid>/cmdline for processes of the same
// user, so the agent must not keep the secret there: keepSecret (per
// platform) takes it out of the process's environment and arguments
// before anything runs, and getenv hands it to the configuration.

const (
	secretEnv   = "JOBWHEEL_APP_SECRET"
	secretFDEnv = "JOBWHEEL_APP_SECRET_FD" // set for the agent after it re-executed itself
)

// withSecret returns a getenv that answers secret for secretEnv.
func withSecret(secret string) func(string) string {
	return func(k string) string {
		if k == secretEnv && secret != "" {
			return secret
		}
		return os.Getenv(k)
	}
}

// cutSecretFlag removes a -secret flag and its value from args and
// returns them and the secret ("" if there was none).
func cutSecretFlag(args []string) (rest []string, secret string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(rest, args[i:]...), secret
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && name == "secret" {
			if hasValue {
				secret = value
			} else if i+1 < len(args) {
				secret = args[i+1]
				i++
			}
			continue
		}
		rest = append(rest, a)
	}
	return rest, secret
}
