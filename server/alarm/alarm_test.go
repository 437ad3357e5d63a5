package alarm

import (
	"context"
	"encoding/json"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/http/httptest"
	"net/mail"
	"net/netip"
	"net/textproto"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/db"
)

func TestParseSMTP(t *testing.T) {
	addr, auth, from, err := parseSMTP("smtp://ops:pw@mail.example.com:587?from=jobwheel@example.com")
	if err != nil || addr != "mail.example.com:587" || auth == nil || from.Address != "jobwheel@example.com" {
		t.Fatalf("parseSMTP = %q %v %v %v", addr, auth, from, err)
	}
	for _, bad := range []string{"mail.example.com", "smtp://host:25", "http://host?from=x@y", "smtp://host:25?from=not-an-address"} {
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
	s, err := New(Config{ConsoleURL: "http://console", AllowNetworks: loopback}, slog.New(slog.DiscardHandler))
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

var loopback = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}

// TestWebhookToPrivateAddressRefused: a webhook pointing at loopback (or
// any address only the server can reach) is not called unless the
// configuration allows that range, and the check is made when
// connecting, so a name resolving there is refused too.
func TestWebhookToPrivateAddressRefused(t *testing.T) {
	t.Parallel()
	hits := make(chan string, 10)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits <- r.URL.Path }))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	var logs syncBuffer
	s, err := New(Config{}, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.Start(ctx)
	job := &db.Job{ID: 1, Name: "x", Alarm: db.Alarm{OnFailure: true, Webhooks: []string{
		srv.URL + "/literal", "http://localhost:" + u.Port() + "/named"}}}
	s.InstanceFailed("orders", job, db.Instance{ID: 1, Status: db.StatusFailed})
	// Then a job whose webhook is allowed: when it arrives, the first
	// alarm's (queued before it) were refused.
	allowed, err := New(Config{AllowNetworks: loopback}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	allowed.Start(ctx)
	defer func() { cancel(); s.Stop(); allowed.Stop() }()
	waitFor(t, func() bool { return strings.Count(logs.String(), "webhook refused") == 2 })
	allowed.InstanceFailed("orders", &db.Job{ID: 2, Alarm: db.Alarm{OnFailure: true, Webhooks: []string{srv.URL + "/allowed"}}},
		db.Instance{ID: 2, Status: db.StatusFailed})
	select {
	case p := <-hits:
		if p != "/allowed" {
			t.Fatalf("a refused webhook was called: %s", p)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the allowed webhook was not called")
	}
	if len(hits) != 0 {
		t.Fatalf("more calls than the allowed one: %d", len(hits))
	}
}

// TestMailHeadersCannotBeInjected: a job name carrying CR LF and a header
// of its own stays inside the encoded Subject; the message has exactly
// the headers compose writes, delivered to the parsed recipients over a
// real SMTP conversation.
func TestMailHeadersCannotBeInjected(t *testing.T) {
	t.Parallel()
	relay := startSMTP(t)
	s, err := New(Config{SMTPURL: "smtp://" + relay.addr + "?from=jobwheel@example.com"}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.Start(ctx)
	defer func() { cancel(); s.Stop() }()
	job := &db.Job{ID: 3, Name: "fail\r\nBcc: victim@example.org\r\n\r\nforged body", Alarm: db.Alarm{OnFailure: true,
		Emails: []string{"Ops Team <ops@example.com>"}}}
	s.InstanceFailed("orders", job, db.Instance{ID: 4, Status: db.StatusFailed, Result: "line 1\r\n.\r\nQUIT"})
	var m received
	select {
	case m = <-relay.got:
	case <-time.After(20 * time.Second):
		t.Fatal("no mail arrived")
	}
	if len(m.rcpt) != 1 || m.rcpt[0] != "<ops@example.com>" {
		t.Fatalf("recipients %v, want only ops@example.com", m.rcpt)
	}
	msg, err := mail.ReadMessage(strings.NewReader(m.data))
	if err != nil {
		t.Fatalf("the message does not parse: %v\n%s", err, m.data)
	}
	var names []string
	for k := range msg.Header {
		names = append(names, k)
	}
	slices.Sort(names)
	want := []string{"Content-Transfer-Encoding", "Content-Type", "Date", "From", "Mime-Version", "Subject", "To"}
	if !slices.Equal(names, want) {
		t.Fatalf("headers %v, want %v\n%s", names, want, m.data)
	}
	subject, err := new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject"))
	if err != nil || !strings.Contains(subject, "Bcc: victim@example.org") || strings.ContainsAny(subject, "\r\n") {
		t.Fatalf("subject %q (%v): the name must stay in it, on one line", subject, err)
	}
	if to := msg.Header.Get("To"); to != `"Ops Team" <ops@example.com>` {
		t.Fatalf("To: %q", to)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in 20s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

type received struct {
	rcpt []string
	data string
}

type smtpRelay struct {
	addr string
	got  chan received
}

// startSMTP runs a minimal SMTP receiver on loopback that records each
// message's recipients and data.
func startSMTP(t *testing.T) *smtpRelay {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	r := &smtpRelay{addr: l.Addr().String(), got: make(chan received, 10)}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go r.serve(c)
		}
	}()
	return r
}

func (r *smtpRelay) serve(c net.Conn) {
	defer c.Close()
	tp := textproto.NewConn(c)
	_ = tp.PrintfLine("220 test ESMTP")
	var m received
	for {
		line, err := tp.ReadLine()
		if err != nil {
			return
		}
		cmd := strings.ToUpper(strings.Fields(line + " x")[0])
		switch cmd {
		case "EHLO", "HELO":
			_ = tp.PrintfLine("250 test")
		case "MAIL":
			_ = tp.PrintfLine("250 ok")
		case "RCPT":
			m.rcpt = append(m.rcpt, strings.TrimSpace(line[strings.Index(line, ":")+1:]))
			_ = tp.PrintfLine("250 ok")
		case "DATA":
			_ = tp.PrintfLine("354 go on")
			b, err := tp.ReadDotBytes()
			if err != nil {
				return
			}
			m.data = string(b)
			_ = tp.PrintfLine("250 ok")
			r.got <- m
			m = received{}
		case "QUIT":
			_ = tp.PrintfLine("221 bye")
			return
		default:
			_ = tp.PrintfLine("250 ok")
		}
	}
}
