package db

import (
	"strings"
	"testing"
)

func TestPoolModeFromTheURL(t *testing.T) {
	cases := []struct {
		url, dsn, mode, err string
	}{
		{"postgres://u@h:5432/d?sslmode=disable", "postgres://u@h:5432/d?sslmode=disable", PoolSession, ""},
		{"postgres://u@h:6432/d?pool_mode=transaction&sslmode=disable", "postgres://u@h:6432/d?sslmode=disable", PoolTransaction, ""},
		{"postgres://u@h/d?pool_mode=session&search_path=x", "postgres://u@h/d?search_path=x", PoolSession, ""},
		{"postgres://u@h/d?pool_mode=statement", "", "", "pool_mode=\"statement\""},
		{"postgres://u@h/d?pool_mode=transaction&search_path=x", "", "", "search_path cannot be used with pool_mode=transaction"},
		{"postgres://u@h/d?pool_mode=transaction&statement_timeout=5s", "", "", "statement_timeout cannot be used"},
		{"postgres://u@h/d?pool_mode=transaction&sslmode=require&connect_timeout=5s&application_name=jw", "postgres://u@h/d?application_name=jw&connect_timeout=5s&sslmode=require", PoolTransaction, ""},
	}
	for _, c := range cases {
		dsn, mode, err := splitPoolMode(c.url)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: err %v; want one saying %q", c.url, err, c.err)
			}
			if CheckURL(c.url) == nil {
				t.Errorf("%s: CheckURL accepted it", c.url)
			}
			continue
		}
		if err != nil || dsn != c.dsn || mode != c.mode {
			t.Errorf("%s: %q %q %v; want %q %q", c.url, dsn, mode, err, c.dsn, c.mode)
		}
	}
}
