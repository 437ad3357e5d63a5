package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// keepSecret takes the app secret out of the agent's environment and
// arguments, where the scripts it runs could read it (/proc/$PPID/environ,
// /proc/$PPID/cmdline): a Go program cannot rewrite its initial
// environment block, so the agent re-executes itself once with the secret
// removed from both and handed over through a pipe, which the new image
// reads and closes. It then marks itself non-dumpable, so processes of the
// same user (but not root) cannot read its memory or /proc files at all.
//
// It returns the getenv the configuration reads, which knows the secret,
// and the arguments to parse. It does not return when it re-executes.
func keepSecret(args []string) (func(string) string, []string, error) {
	defer func() {
		// PR_SET_DUMPABLE = 4: owned by root, unreadable by the same user.
		_, _, _ = syscall.RawSyscall(syscall.SYS_PRCTL, 4, 0, 0)
	}()
	if fd := os.Getenv(secretFDEnv); fd != "" {
		n, err := strconv.Atoi(fd)
		if err != nil {
			return nil, nil, fmt.Errorf("%s=%q is not a file descriptor", secretFDEnv, fd)
		}
		f := os.NewFile(uintptr(n), "app secret")
		b, err := io.ReadAll(io.LimitReader(f, 64<<10))
		_ = f.Close()
		_ = os.Unsetenv(secretFDEnv)
		if err != nil {
			return nil, nil, fmt.Errorf("reading the app secret from the agent's pipe: %w", err)
		}
		return withSecret(string(b)), args, nil
	}
	rest, flagSecret := cutSecretFlag(args)
	secret := flagSecret
	if secret == "" {
		secret = os.Getenv(secretEnv)
	}
	if secret == "" || (flagSecret == "" && !hasEnv(secretEnv)) {
		return os.Getenv, args, nil // nothing to hide (a configuration error is reported later)
	}
	exe, err := os.Executable()
	if err != nil {
		// No /proc: nobody can read the environment there either.
		_ = os.Unsetenv(secretEnv)
		return withSecret(secret), rest, nil
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, fmt.Errorf("hiding the app secret: %w", err)
	}
	// The pipe's buffer holds the secret; the new image reads it.
	if _, err := io.WriteString(w, secret); err != nil {
		return nil, nil, fmt.Errorf("hiding the app secret: %w", err)
	}
	_ = w.Close()
	// Keep the read end open across exec (F_SETFD = 2, no FD_CLOEXEC).
	if _, _, errno := syscall.Syscall(syscall.SYS_FCNTL, r.Fd(), syscall.F_SETFD, 0); errno != 0 {
		return nil, nil, fmt.Errorf("hiding the app secret: %w", errno)
	}
	env := make([]string, 0, len(os.Environ())+1)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, secretEnv+"=") && !strings.HasPrefix(kv, secretFDEnv+"=") {
			env = append(env, kv)
		}
	}
	env = append(env, secretFDEnv+"="+strconv.Itoa(int(r.Fd())))
	err = syscall.Exec(exe, append([]string{os.Args[0]}, rest...), env)
	return nil, nil, fmt.Errorf("hiding the app secret: re-executing %s: %w", exe, err)
}

func hasEnv(k string) bool {
	_, ok := os.LookupEnv(k)
	return ok
}
