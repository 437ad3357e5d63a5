// Package contexts keeps the command-line tool's servers: its file
// (os.UserConfigDir()/jobwheel/config.yaml, mode 0600, since it holds
// tokens) lists contexts — a server URL with the token to call it with
// and a default app — and names the current one.
package contexts

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"go.yaml.in/yaml/v3"
)

// Context is one server to talk to.
type Context struct {
	Name   string `yaml:"name"`
	Server string `yaml:"server"`
	// Token is a session's (login with a password) or an API token.
	Token string `yaml:"token,omitempty"`
	// User is who the token acts as, as the server said at login.
	User string `yaml:"user,omitempty"`
	// Expires is when a session token ends (RFC 3339); empty for an API
	// token, which lasts until revoked.
	Expires string `yaml:"expires,omitempty"`
	// App is the app commands act on when --app is not given.
	App string `yaml:"app,omitempty"`
}

// File is the configuration file's content.
type File struct {
	Current  string    `yaml:"current,omitempty"`
	Contexts []Context `yaml:"contexts"`

	path string
}

// DefaultPath is os.UserConfigDir()/jobwheel/config.yaml.
func DefaultPath() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("finding the configuration directory: %w (set XDG_CONFIG_HOME or HOME)", err)
	}
	return filepath.Join(dir, "jobwheel", "config.yaml"), nil
}

// Load reads the file at path; a missing file is an empty one.
func Load(path string) (*File, error) {
	f := &File{path: path}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if err := yaml.Unmarshal(b, f); err != nil {
		return nil, fmt.Errorf("reading %s: %w (fix or delete the file, then log in again)", path, err)
	}
	return f, nil
}

// Path is where the file is kept.
func (f *File) Path() string { return f.path }

// Save writes the file with mode 0600 (its directory 0700), replacing it
// whole so a crash never leaves half a file.
func (f *File) Save() error {
	if err := os.MkdirAll(filepath.Dir(f.path), 0o700); err != nil {
		return fmt.Errorf("creating %s: %w", filepath.Dir(f.path), err)
	}
	b, err := yaml.Marshal(f)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(f.path), ".config-*.yaml")
	if err != nil {
		return fmt.Errorf("writing %s: %w", f.path, err)
	}
	// Gone after the rename; removed if anything failed before it.
	defer func() { _ = os.Remove(tmp.Name()) }()
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("writing %s: %w", f.path, err)
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), f.path); err != nil {
		return fmt.Errorf("writing %s: %w", f.path, err)
	}
	return nil
}

// Get returns the context of a name, or nil.
func (f *File) Get(name string) *Context {
	for i := range f.Contexts {
		if f.Contexts[i].Name == name {
			return &f.Contexts[i]
		}
	}
	return nil
}

// Put adds c, or replaces the context of its name.
func (f *File) Put(c Context) {
	if old := f.Get(c.Name); old != nil {
		*old = c
		return
	}
	f.Contexts = append(f.Contexts, c)
}

// Delete removes the context of a name; false if there is none. Deleting
// the current context leaves none current.
func (f *File) Delete(name string) bool {
	i := slices.IndexFunc(f.Contexts, func(c Context) bool { return c.Name == name })
	if i < 0 {
		return false
	}
	f.Contexts = slices.Delete(f.Contexts, i, i+1)
	if f.Current == name {
		f.Current = ""
	}
	return true
}
