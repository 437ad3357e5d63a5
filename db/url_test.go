package db_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/jobwheel/jobwheel/db"
)

// A URL of a database jobwheel does not support is refused saying which
// forms it accepts (mysql://x used to be opened as a SQLite file named
// "mysql://x" and fail with "out of memory (14)"), and never echoed, as it
// may hold a password.
func TestCheckURL(t *testing.T) {
	for _, tc := range []struct {
		url  string
		want string // "" for accepted; else a part of the error
	}{
		{"postgres://postgres@127.0.0.1:5432/test?sslmode=disable", ""},
		{"postgresql://u:p@db/x", ""},
		{"sqlite:jobwheel.db", ""},
		{"sqlite:///tmp/jobwheel.db", ""},
		{"file:jobwheel.db?cache=shared", ""},
		{"jobwheel.db", ""},
		{"/var/lib/jobwheel/jobwheel.db", ""},
		{"sqlite::memory:", ""},
		{"mysql://root:hunter2@x/db", `PostgreSQL or SQLite, not "mysql"; use postgres://`},
		{"postgres:x", `not "postgres"`},
		{"redis://x", "sqlite:<file>"},
		{"", "empty; use"},
		{"sqlite:", "no SQLite file named"},
		{"sqlite:x.db?a=%zz", "bad query string"},
	} {
		err := db.CheckURL(tc.url)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%q: %v; want it accepted", tc.url, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%q: error %v; want one saying %q", tc.url, err, tc.want)
		case err != nil && strings.Contains(err.Error(), "hunter2"):
			t.Errorf("%q: the error shows the password: %v", tc.url, err)
		}
	}
}

// A SQLite file in a directory that does not exist is named as such, not
// as SQLite's "out of memory (14)".
func TestOpenSQLiteInAMissingDirectory(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such-dir", "x.db")
	_, err := db.Open(t.Context(), "sqlite:"+missing)
	if err == nil || !strings.Contains(err.Error(), "the directory "+filepath.Dir(missing)+" does not exist") {
		t.Errorf("error %v; want one naming the missing directory", err)
	}
	if _, err := db.Open(t.Context(), "mysql://x"); err == nil || !strings.Contains(err.Error(), `not "mysql"`) {
		t.Errorf("mysql://x: error %v", err)
	}
}
