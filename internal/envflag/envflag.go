// Package envflag reads a program's settings from flags and from
// environment variables of the same meaning, a flag given on the command
// line winning, and names the one a bad value came from in errors: the
// server and the agent share it so their settings behave alike.
//
//	set := envflag.New("jobwheel-agent", os.Getenv, os.Stderr)
//	ttl := set.String("lease-ttl", "JOBWHEEL_LEASE_TTL", "15s", "how long a lease lasts")
//	if err := set.Parse(os.Args[1:]); err != nil { … }
//	d, err := ttl.Duration() // `JOBWHEEL_LEASE_TTL: "abc" is not a duration such as 15s or 1m30s`
//
// Defaults are not read from the environment before parsing, so -h never
// prints a secret given by environment.
package envflag

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// Set is a program's settings.
type Set struct {
	fs       *flag.FlagSet
	getenv   func(string) string
	settings []*Setting
}

// New makes an empty Set; usage and parse errors of the command line are
// written to out.
func New(program string, getenv func(string) string, out io.Writer) *Set {
	fs := flag.NewFlagSet(program, flag.ContinueOnError)
	fs.SetOutput(out)
	s := &Set{fs: fs, getenv: getenv}
	fs.Usage = func() {
		fmt.Fprintf(out, "Usage of %s (each flag or the environment variable beside it; a flag wins):\n\n", program)
		s.PrintDefaults()
	}
	return s
}

// SetUsage replaces what -h prints; it usually ends with PrintDefaults.
func (s *Set) SetUsage(f func()) { s.fs.Usage = f }

// PrintDefaults writes every setting, in the order they were added: its
// flag, its variable, its default and what it means.
func (s *Set) PrintDefaults() {
	w := s.fs.Output()
	for _, st := range s.settings {
		fmt.Fprintf(w, "  -%s, $%s", st.Flag, st.Env)
		if st.Default != "" {
			fmt.Fprintf(w, " (default %s)", st.Default)
		}
		fmt.Fprintf(w, "\n    \t%s\n", st.usage)
	}
}

// Setting is one flag and its environment variable.
type Setting struct {
	Flag, Env, Default string
	value              string
	usage              string
	from               string // what supplied value: "-flag", "ENV" or "" (the default)
	given              *string
	isBool             bool
}

// String adds a setting. def is its value when neither the flag nor the
// variable is given (the empty string counts as not given).
func (s *Set) String(flagName, env, def, usage string) *Setting {
	st := &Setting{Flag: flagName, Env: env, Default: def, usage: usage, given: new(string)}
	s.fs.Var((*textValue)(st), flagName, usage)
	s.settings = append(s.settings, st)
	return st
}

// Bool adds a setting that may be given as a bare flag (-demo means
// -demo=true).
func (s *Set) Bool(flagName, env, def, usage string) *Setting {
	st := s.String(flagName, env, def, usage)
	st.isBool = true
	return st
}

// Parse reads the command line, then fills each setting from its flag if
// given, else from its environment variable if set, else its default.
func (s *Set) Parse(args []string) error {
	if err := s.fs.Parse(args); err != nil {
		return err
	}
	if s.fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", s.fs.Args())
	}
	set := map[string]bool{}
	s.fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	for _, st := range s.settings {
		switch {
		case set[st.Flag]:
			st.value, st.from = *st.given, "-"+st.Flag
		case s.getenv(st.Env) != "":
			st.value, st.from = s.getenv(st.Env), st.Env
		default:
			st.value, st.from = st.Default, ""
		}
	}
	return nil
}

// Value is the setting's value after Parse.
func (st *Setting) Value() string { return st.value }

// Name is what errors call the setting: the flag or the variable its value
// came from, or both for a default.
func (st *Setting) Name() string {
	if st.from != "" {
		return st.from
	}
	return "-" + st.Flag + " / " + st.Env
}

// Errorf is an error about the setting's value, prefixed with its Name.
func (st *Setting) Errorf(format string, args ...any) error {
	return errors.New(st.Name() + ": " + fmt.Sprintf(format, args...))
}

// Duration parses the value as a Go duration.
func (st *Setting) Duration() (time.Duration, error) {
	d, err := time.ParseDuration(strings.TrimSpace(st.value))
	if err != nil {
		return 0, st.Errorf("%q is not a duration such as 15s, 2m or 168h", st.value)
	}
	return d, nil
}

// Bool parses the value as true or false (also 1/0, t/f, yes/no, on/off).
func (st *Setting) Bool() (bool, error) {
	switch strings.ToLower(strings.TrimSpace(st.value)) {
	case "1", "t", "true", "yes", "on":
		return true, nil
	case "", "0", "f", "false", "no", "off":
		return false, nil
	}
	return false, st.Errorf("%q is not true or false (1 or 0)", st.value)
}

// Int parses the value as a whole number.
func (st *Setting) Int() (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(st.value))
	if err != nil {
		return 0, st.Errorf("%q is not a whole number", st.value)
	}
	return n, nil
}

// List splits the value at commas, dropping empty items.
func (st *Setting) List() []string {
	var out []string
	for p := range strings.SplitSeq(st.value, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// textValue is the flag.Value of a Setting: it records what the command
// line gave.
type textValue Setting

func (v *textValue) String() string {
	if v == nil || v.given == nil {
		return ""
	}
	return *v.given
}

func (v *textValue) Set(s string) error { *v.given = s; return nil }

func (v *textValue) IsBoolFlag() bool { return v.isBool }
