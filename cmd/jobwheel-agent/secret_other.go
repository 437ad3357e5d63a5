//go:build !linux

package main

import "os"

// keepSecret takes the app secret out of the agent's environment as far
// as the platform allows: here, only the Go copy of it (see the Linux
// version for what more is done there).
func keepSecret(args []string) (func(string) string, []string, error) {
	secret := os.Getenv(secretEnv)
	_ = os.Unsetenv(secretEnv)
	return withSecret(secret), args, nil
}
