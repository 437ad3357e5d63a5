package alarm

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/db"
)

func TestParseSMTP(t *testing.T) {
	addr, auth, from, err := parseSMTP("smtp://ops:pw@mail.example.com:587?from=jobwheel@example.com")
	if err != nil || addr != "mail.example.com:587" || auth == nil || from != "jobwheel@example.com" {
		t.Fatalf("parseSMTP = %q %v %q %v", addr, auth, from, err)
	}
	for _, bad := range []string{"mail.example.com", "smtp://host:25", "http://host?from=x@y"} {
		if _, err := New(Config{SMTPURL: bad}, slog.New(slog.DiscardHandler)); err == nil {
			t.Errorf("New accepted SMTP URL %q", bad)
		}
	}
}

func TestWebhookRetriesAndSilence(t *testing.T) {
	var calls atomic.Int32
	got := make(chan payload, 10)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			http.Error(w, "busy", http.StatusServiceUnavailable) // retried
			return
		}
		var p payload
		_ = json.NewDecoder(r.Body).Decode(&p)
		got <- p
	}))
	defer srv.Close()
	s, err := New(Config{ConsoleURL: "http://console"}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.Start(ctx)
	defer func() { cancel(); s.Stop() }()
	job := &db.Job{ID: 7, Name: "sync", Alarm: db.Alarm{OnFailure: true, Webhooks: []string{srv.URL}, SilenceSec: 60}}
	in := db.Instance{ID: 9, Status: db.StatusFailed, Reason: "FAILED", Result: "exit status 1", Attempt: 2}
	s.InstanceFailed("orders", job, in)
	s.InstanceFailed("orders", job, in) // silenced
	select {
	case p := <-got:
		if p.Event != "instance.failed" || p.InstanceID != 9 || p.Attempt != 2 || p.InstanceURL != "http://console/apps/orders/instances/9" {
			t.Fatalf("payload = %+v", p)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the webhook was not retried")
	}
	// Not asking for alarms: nothing is queued.
	quiet := &db.Job{ID: 8, Alarm: db.Alarm{Webhooks: []string{srv.URL}}}
	s.InstanceFailed("orders", quiet, in)
	if n := len(s.queue); n != 0 {
		t.Fatalf("%d alarms queued for a job that asks for none", n)
	}
}
