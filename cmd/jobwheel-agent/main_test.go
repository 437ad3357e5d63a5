package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/jobwheel/jobwheel/worker/protocol"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestOptionsFlagsWinOverEnvironment(t *testing.T) {
	var out strings.Builder
	o, err := options([]string{"-app", "from-flag", "-slots", "3"}, env(map[string]string{
		"JOBWHEEL_APP": "from-env", "JOBWHEEL_APP_SECRET": "s", "JOBWHEEL_WORKER_TAGS": "a, b,,",
		"JOBWHEEL_SERVERS": "http://a:1,http://b:2", "JOBWHEEL_LOG_LEVEL": "DEBUG",
	}), &out)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config(o, &out)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.App != "from-flag" || cfg.Secret != "s" || cfg.Slots != 3 || !slices.Equal(cfg.Tags, []string{"a", "b"}) ||
		!slices.Equal(cfg.Servers, []string{"http://a:1", "http://b:2"}) || !cfg.Logger.Enabled(t.Context(), slog.LevelDebug) {
		t.Errorf("config %+v", cfg)
	}
	o, _ = options(nil, env(nil), &out)
	if o.servers.Value() != "http://localhost:7700" || o.logLevel.Value() != "info" {
		t.Errorf("defaults %s %s", o.servers.Value(), o.logLevel.Value())
	}
}

// Unset, the agent runs at least 32 tasks at once (4 × CPUs on a bigger
// machine): its scripts mostly wait, and a second's burst of them should
// not queue for slots (minSlots).
func TestAgentSlotsDefaultToAtLeast32(t *testing.T) {
	var out strings.Builder
	o, err := options(nil, env(map[string]string{"JOBWHEEL_APP": "orders", "JOBWHEEL_APP_SECRET": "s"}), &out)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config(o, &out)
	if err != nil {
		t.Fatal(err)
	}
	if want := max(4*runtime.NumCPU(), 32); cfg.Slots != want {
		t.Errorf("slots %d by default; want %d", cfg.Slots, want)
	}
}

// Each setting's bad value is refused naming the variable or flag it came
// from and what is wrong with it, and the agent exits with status 2.
func TestConfigErrorsNameTheSetting(t *testing.T) {
	base := map[string]string{"JOBWHEEL_APP": "orders", "JOBWHEEL_APP_SECRET": "s"}
	for _, tc := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{nil, map[string]string{"JOBWHEEL_APP": ""}, "-app / JOBWHEEL_APP: is empty"},
		{nil, map[string]string{"JOBWHEEL_APP_SECRET": ""}, "-secret / JOBWHEEL_APP_SECRET: is empty"},
		{nil, map[string]string{"JOBWHEEL_SERVERS": "http://a:1,localhost:7700"}, `JOBWHEEL_SERVERS: "localhost:7700" is not an http:// or https:// URL`},
		{[]string{"-servers", "ftp://x"}, nil, `-servers: "ftp://x" is not an http:// or https:// URL`},
		{nil, map[string]string{"JOBWHEEL_WORKER_SLOTS": "many"}, `JOBWHEEL_WORKER_SLOTS: "many" is not a whole number`},
		{nil, map[string]string{"JOBWHEEL_WORKER_SLOTS": "0"}, `JOBWHEEL_WORKER_SLOTS: 0 is less than 1`},
		{nil, map[string]string{"JOBWHEEL_WORKER_SLOTS": "20000"}, `JOBWHEEL_WORKER_SLOTS: 20000 is not between 1 and 10000`},
		{nil, map[string]string{"JOBWHEEL_WORKER_NAME": strings.Repeat("n", 101)}, `JOBWHEEL_WORKER_NAME: is 101 characters; at most 100`},
		{nil, map[string]string{"JOBWHEEL_WORKER_TAGS": strings.Repeat("t,", 65)}, `JOBWHEEL_WORKER_TAGS: 65 tags; at most 64`},
		{nil, map[string]string{"JOBWHEEL_WORKER_WORK_DIR": "/no/such/dir"}, `JOBWHEEL_WORKER_WORK_DIR: "/no/such/dir" cannot be used: no such file or directory`},
		{nil, map[string]string{"JOBWHEEL_LOG_LEVEL": "loud"}, `JOBWHEEL_LOG_LEVEL: "loud" is not debug, info, warn or error`},
		{nil, map[string]string{"JOBWHEEL_DRAIN_TIMEOUT": "soon"}, `JOBWHEEL_DRAIN_TIMEOUT: "soon" is not a duration such as 15s`},
		{nil, map[string]string{"JOBWHEEL_DRAIN_TIMEOUT": "0s"}, `JOBWHEEL_DRAIN_TIMEOUT: 0s is not a positive duration`},
		{[]string{"-drain-timeout", "-5s"}, nil, `-drain-timeout: -5s is not a positive duration`},
		{nil, map[string]string{"JOBWHEEL_JOBS_FILE": "/no/such/jobs.json"}, `JOBWHEEL_JOBS_FILE: open /no/such/jobs.json: no such file or directory`},
	} {
		e := map[string]string{}
		maps.Copy(e, base)
		maps.Copy(e, tc.env)
		var out strings.Builder
		if code := run(t.Context(), tc.args, env(e), &out); code != 2 || !strings.Contains(out.String(), tc.want) {
			t.Errorf("%v %v: exit %d, output %q; want 2 and %q", tc.args, tc.env, code, out.String(), tc.want)
		}
	}
}

// JOBWHEEL_LOG_LEVEL quiets the agent's own log only: tasks' lines are all
// shipped (the demo agent runs at warn, and its jobs' output must still
// reach the console).
func TestLogLevelDoesNotFilterTaskLines(t *testing.T) {
	var out strings.Builder
	o, err := options(nil, env(map[string]string{"JOBWHEEL_APP": "a", "JOBWHEEL_APP_SECRET": "s", "JOBWHEEL_LOG_LEVEL": "warn"}), &out)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config(o, &out)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Logger.Enabled(t.Context(), slog.LevelInfo) {
		t.Error("the agent's own log is not at warn")
	}
	if cfg.TaskLogLevel != nil && cfg.TaskLogLevel.Level() > slog.LevelDebug {
		t.Errorf("task lines below %s are not shipped", cfg.TaskLogLevel.Level())
	}
}

func TestHelpDocumentsEveryVariable(t *testing.T) {
	var out strings.Builder
	if code := run(t.Context(), []string{"-h"}, env(map[string]string{"JOBWHEEL_APP_SECRET": "topsecret"}), &out); code != 0 {
		t.Errorf("exit %d", code)
	}
	for _, v := range []string{"JOBWHEEL_SERVERS", "JOBWHEEL_APP", "JOBWHEEL_APP_SECRET", "JOBWHEEL_WORKER_TAGS",
		"JOBWHEEL_WORKER_SLOTS", "JOBWHEEL_WORKER_NAME", "JOBWHEEL_WORKER_WORK_DIR", "JOBWHEEL_LOG_LEVEL", "JOBWHEEL_DRAIN_TIMEOUT",
		"JOBWHEEL_JOBS_FILE", "http://localhost:7700"} {
		if !strings.Contains(out.String(), v) {
			t.Errorf("-h does not mention %s", v)
		}
	}
	if strings.Contains(out.String(), "topsecret") {
		t.Error("-h prints the secret")
	}
}

func TestBadConfigurationExits2(t *testing.T) {
	for _, args := range [][]string{{"-app", "a"}, {"-app", "a", "-secret", "s", "-log-level", "loud"}, {"-nope"}, {"extra"}} {
		var out strings.Builder
		if code := run(t.Context(), args, env(nil), &out); code != 2 {
			t.Errorf("%v: exit %d\n%s", args, code, out.String())
		}
	}
}

// server answers discovery and hellos: AUTH for a wrong secret, welcome
// otherwise.
func server(t *testing.T) (*httptest.Server, <-chan protocol.Hello) {
	hellos := make(chan protocol.Hello, 10)
	var srv *httptest.Server
	up := websocket.Upgrader{}
	mux := http.NewServeMux()
	mux.HandleFunc(protocol.DiscoverPath, func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(protocol.DiscoverResponse{Server: srv.URL})
	})
	mux.HandleFunc(protocol.ConnectPath, func(w http.ResponseWriter, r *http.Request) {
		c, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer c.Close()
		_, data, err := c.ReadMessage()
		if err != nil {
			return
		}
		f, body, err := protocol.Decode(data)
		if err != nil {
			t.Errorf("hello: %v", err)
			return
		}
		h := body.(*protocol.Hello)
		hellos <- *h
		var reply []byte
		if h.Auth != "right" {
			reply, _ = protocol.Encode(0, f.ID, protocol.TypeError, &protocol.Error{Code: protocol.CodeAuth, Message: "bad secret"})
		} else {
			reply, _ = protocol.Encode(0, f.ID, protocol.TypeWelcome, &protocol.Welcome{ServerID: "s1", Epoch: 1, HeartbeatMs: 1000})
		}
		_ = c.WriteMessage(websocket.TextMessage, reply)
		for {
			if _, _, err := c.ReadMessage(); err != nil {
				return
			}
		}
	})
	srv = httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv, hellos
}

func TestWrongSecretExits1SayingSo(t *testing.T) {
	srv, _ := server(t)
	var out strings.Builder
	code := run(t.Context(), []string{"-servers", srv.URL, "-app", "orders", "-secret", "wrong"}, env(nil), &out)
	if code != 1 || !strings.Contains(out.String(), `the server refused the app secret for app "orders"`) {
		t.Errorf("exit %d\n%s", code, out.String())
	}
}

func TestSignalStopsGracefully(t *testing.T) {
	srv, hellos := server(t)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan int, 1)
	var out strings.Builder
	go func() {
		done <- run(ctx, []string{"-app", "orders"}, env(map[string]string{"JOBWHEEL_SERVERS": srv.URL, "JOBWHEEL_APP_SECRET": "right"}), &syncWriter{w: &out})
	}()
	var h protocol.Hello
	select {
	case h = <-hellos:
	case <-time.After(20 * time.Second):
		t.Fatal("no hello")
	}
	for _, want := range []string{"SHELL", "PYTHON", "HTTP"} {
		if !slices.Contains(h.Types, want) {
			t.Errorf("types %v lack %s", h.Types, want)
		}
	}
	// The agent is the worker package: it speaks that package's optional
	// features, holding tasks dispatched ahead among them.
	for _, want := range []string{protocol.FeaturePagedResults, protocol.FeatureStartAt} {
		if !slices.Contains(h.Features, want) {
			t.Errorf("features %v lack %s", h.Features, want)
		}
	}
	if !slices.Equal(h.Processors, []string{"example.broadcast", "example.context", "example.fail", "example.fanout", "example.logs", "example.mapreduce", "example.noop", "example.sleep"}) {
		t.Errorf("processors %v", h.Processors)
	}
	cancel() // what SIGTERM does
	if code := <-done; code != 0 {
		t.Errorf("exit %d", code)
	}
}

type syncWriter struct {
	mu sync.Mutex
	w  *strings.Builder
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

func TestCutSecretFlag(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		rest   []string
		secret string
	}{
		{[]string{"-app", "a", "-secret", "s1", "-slots", "2"}, []string{"-app", "a", "-slots", "2"}, "s1"},
		{[]string{"--secret=s2", "-app=a"}, []string{"-app=a"}, "s2"},
		{[]string{"-app", "a"}, []string{"-app", "a"}, ""},
		{[]string{"-app", "a", "--", "-secret", "x"}, []string{"-app", "a", "--", "-secret", "x"}, ""},
	} {
		rest, secret := cutSecretFlag(tc.args)
		if !slices.Equal(rest, tc.rest) || secret != tc.secret {
			t.Errorf("cutSecretFlag(%q) = %q, %q; want %q, %q", tc.args, rest, secret, tc.rest, tc.secret)
		}
	}
}
