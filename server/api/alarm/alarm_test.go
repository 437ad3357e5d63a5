package alarm

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/http/httptest"
	"net/mail"
	"net/netip"
	"net/textproto"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/internal/testfactory"
	"github.com/jobwheel/jobwheel/internal/testkit"
)

func TestParseSMTP(t *testing.T) {
	addr, auth, from, err := parseSMTP("smtp://ops:pw@mail.example.com:587?from=jobwheel@example.com")
	if err != nil || addr != "mail.example.com:587" || auth == nil || from.Address != "jobwheel@example.com" {
		t.Fatalf("parseSMTP = %q %v %v %v", addr, auth, from, err)
	}
	for _, bad := range []string{"mail.example.com", "smtp://host:25", "http://host?from=x@y", "smtp://host:25?from=not-an-address"} {
		if _, err := New(Config{SMTPURL: bad}, nil, slog.New(slog.DiscardHandler)); err == nil {
			t.Errorf("New accepted SMTP URL %q", bad)
		}
	}
}

var loopback = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}

// fixture is an app and a job in a real database, and a running Sender.
type fixture struct {
	d   *db.DB
	s   *Sender
	app *db.App
	job *db.Job
}

func newFixture(t *testing.T, d *db.DB, a db.Alarm, log *slog.Logger) *fixture {
	t.Helper()
	app := testfactory.App(t, d, &testfactory.AppOpts{Name: "orders"})
	job := testfactory.Job(t, d, app.ID, &testfactory.JobOpts{Name: "sync", DispatchStrategy: db.DispatchHealthFirst, Alarm: a})
	return &fixture{d: d, app: app, job: job, s: startSender(t, d, log)}
}

func startSender(t *testing.T, d *db.DB, log *slog.Logger) *Sender {
	t.Helper()
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s, err := New(Config{ConsoleURL: "http://console", AllowNetworks: loopback, RetryBackoff: 10 * time.Millisecond}, d, log)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	return s
}

func (f *fixture) history(t *testing.T) []db.AlarmRecord {
	t.Helper()
	recs, err := f.d.AlarmHistoryList(context.Background(), db.AlarmHistoryFilter{SubjectKind: db.SubjectJob, SubjectID: f.job.ID, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// outcomes are the history's entries as "event outcome", sorted.
func outcomes(recs []db.AlarmRecord) []string {
	var out []string
	for _, r := range recs {
		out = append(out, r.Event+" "+r.Outcome)
	}
	slices.Sort(out)
	return out
}

func failed(id int64) db.Instance {
	return db.Instance{ID: id, Status: db.StatusFailed, Reason: "FAILED", Result: "exit status 1", Attempt: 2}
}

func succeeded(id int64) db.Instance { return db.Instance{ID: id, Status: db.StatusSucceeded} }

// receiver is a local webhook receiver: it answers each request with the
// next of its statuses (then 200) and keeps the bodies it accepted.
type receiver struct {
	*httptest.Server
	mu       sync.Mutex
	statuses []int
	bodies   [][]byte
	calls    atomic.Int32
}

func newReceiver(t *testing.T, statuses ...int) *receiver {
	r := &receiver{statuses: statuses}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.calls.Add(1)
		b, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		defer r.mu.Unlock()
		if len(r.statuses) > 0 {
			code := r.statuses[0]
			r.statuses = r.statuses[1:]
			http.Error(w, "busy, try later", code)
			return
		}
		r.bodies = append(r.bodies, b)
		_, _ = w.Write([]byte("ok"))
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *receiver) messages(t *testing.T) []Message {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]Message, len(r.bodies))
	for i, b := range r.bodies {
		if err := json.Unmarshal(b, &out[i]); err != nil {
			t.Fatalf("body %s: %v", b, err)
		}
	}
	return out
}

// TestWebhookStormAndRecovery: a failing job alarms a webhook once per
// silence window (the first attempt answered 503 is retried), the failure
// within the window is recorded SILENCED, and the first success sends one
// recovery; the history says so, with the channel's answer.
func TestWebhookStormAndRecovery(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		hook := newReceiver(t, http.StatusServiceUnavailable)
		f := newFixture(t, d, db.Alarm{Rules: []db.AlarmRule{{Type: db.AlarmFailure, SilenceSec: 3600}, {Type: db.AlarmRecovery}},
			Channels: []db.AlarmChannel{{Type: db.ChannelWebhook, Target: hook.URL + "/hook?key=s3cret"}}}, nil)
		f.s.InstanceEnded("orders", f.job, failed(9))
		f.s.InstanceEnded("orders", f.job, failed(10))
		testkit.Eventually(t, "the alarm to be recorded", func() bool { return len(f.history(t)) == 2 })
		f.s.InstanceEnded("orders", f.job, succeeded(11))
		f.s.InstanceEnded("orders", f.job, succeeded(12))
		f.s.InstanceEnded("orders", f.job, failed(13)) // after the recovery: alarms again
		testkit.Eventually(t, "the alarm to be recorded", func() bool { return len(f.history(t)) == 4 })
		want := []string{"instance.failed SENT", "instance.failed SENT", "instance.failed SILENCED", "job.recovered SENT"}
		if got := outcomes(f.history(t)); !slices.Equal(got, want) {
			t.Fatalf("history %v, want %v", got, want)
		}
		msgs := hook.messages(t)
		if len(msgs) != 3 {
			t.Fatalf("the receiver got %d alarms, want 3: %+v", len(msgs), msgs)
		}
		var first, recovered *Message
		for i := range msgs {
			switch {
			case msgs[i].InstanceID == 9:
				first = &msgs[i]
			case msgs[i].Event == "job.recovered":
				recovered = &msgs[i]
			}
		}
		if first == nil || first.Version != 1 || first.Event != "instance.failed" || first.App != "orders" || first.Job == nil ||
			first.Job.Name != "sync" || first.Attempt != 2 || first.Result != "exit status 1" || !slices.Equal(first.Rules, []string{"FAILURE"}) ||
			first.InstanceURL != "http://console/apps/orders/instances/9" || !strings.Contains(first.Text, "instance 9 failed") {
			t.Fatalf("first alarm %+v", first)
		}
		if recovered == nil || recovered.InstanceID != 11 || !strings.Contains(recovered.Text, "recovered") {
			t.Fatalf("recovery alarm %+v", recovered)
		}
		for _, r := range f.history(t) {
			if r.Outcome == db.AlarmSent && (r.StatusCode != 200 || r.Answer != "ok" || strings.Contains(r.Target, "s3cret")) {
				t.Fatalf("history entry %+v: want status 200, answer ok, no key in the target", r)
			}
			if r.InstanceID != nil && *r.InstanceID == 9 && r.Attempts != 2 {
				t.Fatalf("the first alarm took %d attempts, want 2 (503, then ok)", r.Attempts)
			}
		}
	})
}

// TestStormSurvivesRestart: the silence window is kept in the database: a
// second Sender (a restarted server, or the app's next owner) silences
// the storm the first one alarmed, and sends its recovery.
func TestStormSurvivesRestart(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		hook := newReceiver(t)
		f := newFixture(t, d, db.Alarm{Rules: []db.AlarmRule{{Type: db.AlarmConsecutive, Threshold: 2, SilenceSec: 3600},
			{Type: db.AlarmRecovery}}, Channels: []db.AlarmChannel{{Type: db.ChannelWebhook, Target: hook.URL}}}, nil)
		f.s.InstanceEnded("orders", f.job, failed(1))
		f.s.InstanceEnded("orders", f.job, failed(2))
		testkit.Eventually(t, "the alarm to be recorded", func() bool { return len(f.history(t)) == 1 })
		f.s.Stop()
		next := startSender(t, d, nil)
		next.InstanceEnded("orders", f.job, failed(3))
		next.InstanceEnded("orders", f.job, succeeded(4))
		testkit.Eventually(t, "the alarm to be recorded", func() bool { return len(f.history(t)) == 3 })
		want := []string{"instance.consecutive_failures SENT", "instance.consecutive_failures SILENCED", "job.recovered SENT"}
		if got := outcomes(f.history(t)); !slices.Equal(got, want) {
			t.Fatalf("history %v, want %v", got, want)
		}
		for _, m := range hook.messages(t) {
			if m.Event == "instance.consecutive_failures" && (m.ConsecutiveFailures != 2 || m.InstanceID != 2) {
				t.Fatalf("alarm %+v: want 2 failures in a row, at instance 2", m)
			}
		}
	})
}

// TestChatFormats: each chat channel is POSTed its documented text
// message, and its answer is judged as the chat means it (Feishu,
// DingTalk and WeCom answer 200 with an error code when they refuse).
func TestChatFormats(t *testing.T) {
	t.Parallel()
	m := &Message{Version: 1, Event: "instance.failed", App: "orders", Job: &Ref{ID: 1, Name: "a<b>&c"}, InstanceID: 7, Status: "FAILED"}
	m.describe()
	check := func(channel, want string) {
		t.Helper()
		b, err := body(channel, m)
		if err != nil {
			t.Fatal(err)
		}
		var got, exp any
		_ = json.Unmarshal(b, &got)
		if err := json.Unmarshal([]byte(want), &exp); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, exp) {
			t.Fatalf("%s body %s\nwant %s", channel, b, want)
		}
	}
	text, _ := json.Marshal(m.Text)
	slack, _ := json.Marshal(slackEscape(m.Text))
	check(db.ChannelSlack, `{"text":`+string(slack)+`,"blocks":[{"type":"section","text":{"type":"mrkdwn","text":`+string(slack)+`}}]}`)
	check(db.ChannelFeishu, `{"msg_type":"text","content":{"text":`+string(text)+`}}`)
	check(db.ChannelDingTalk, `{"msgtype":"text","text":{"content":`+string(text)+`}}`)
	check(db.ChannelWeCom, `{"msgtype":"text","text":{"content":`+string(text)+`}}`)
	if !strings.Contains(slackEscape(m.Text), "a&lt;b&gt;&amp;c") {
		t.Fatalf("Slack text not escaped: %s", slackEscape(m.Text))
	}
	for _, c := range []struct {
		channel string
		status  int
		body    string
		ok      bool
	}{
		{db.ChannelSlack, 200, "ok", true},
		{db.ChannelSlack, 404, "no_team", false},
		{db.ChannelFeishu, 200, `{"code":0,"msg":"success"}`, true},
		{db.ChannelFeishu, 200, `{"code":19001,"msg":"param invalid"}`, false},
		{db.ChannelFeishu, 200, `{"StatusCode":0,"StatusMessage":"success"}`, true},
		{db.ChannelDingTalk, 200, `{"errcode":0,"errmsg":"ok"}`, true},
		{db.ChannelDingTalk, 200, `{"errcode":310000,"errmsg":"keywords not in content"}`, false},
		{db.ChannelWeCom, 200, `{"errcode":93000,"errmsg":"invalid webhook url"}`, false},
		{db.ChannelWebhook, 204, "", true},
	} {
		if got := accepted(c.channel, c.status, []byte(c.body)); got != c.ok {
			t.Errorf("%s answering %d %s: accepted %v, want %v", c.channel, c.status, c.body, got, c.ok)
		}
	}
}

// TestSecretsNeverLogged: a chat URL's key appears neither in the log nor
// in the history, whatever the channel answers, nor in a refused URL's
// error.
func TestSecretsNeverLogged(t *testing.T) {
	t.Parallel()
	d := dbtest.Open(t, db.SQLite)
	bad := newReceiver(t, 500, 500, 500)
	var logs syncBuffer
	f := newFixture(t, d, db.Alarm{Rules: []db.AlarmRule{{Type: db.AlarmFailure}}, Channels: []db.AlarmChannel{
		{Type: db.ChannelSlack, Target: bad.URL + "/services/T0/B0/KEYKEYKEY"},
		{Type: db.ChannelDingTalk, Target: "http://127.0.0.1:1/robot/send?access_token=KEYKEYKEY"},
	}}, slog.New(slog.NewTextHandler(&logs, nil)))
	f.s.InstanceEnded("orders", f.job, failed(5))
	testkit.Eventually(t, "the alarm to be recorded", func() bool { return len(f.history(t)) == 2 })
	for _, r := range f.history(t) {
		if r.Outcome != db.AlarmFailed || r.Attempts != 3 {
			t.Fatalf("entry %+v: want FAILED after 3 attempts", r)
		}
		if strings.Contains(fmt.Sprintf("%+v", r), "KEYKEYKEY") {
			t.Fatalf("the key is in the history: %+v", r)
		}
	}
	if strings.Contains(logs.String(), "KEYKEYKEY") || !strings.Contains(logs.String(), "delivery failed") {
		t.Fatalf("log:\n%s", logs.String())
	}
}

// TestWebhookToPrivateAddressRefused: a webhook pointing at loopback (or
// any address only the server can reach) is not called unless the
// configuration allows that range, and the check is made when
// connecting, so a name resolving there is refused too.
func TestWebhookToPrivateAddressRefused(t *testing.T) {
	t.Parallel()
	d := dbtest.Open(t, db.SQLite)
	hook := newReceiver(t)
	u, _ := url.Parse(hook.URL)
	s, err := New(Config{}, d, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	app := &db.App{Name: "orders", CreatedAt: db.Now(), UpdatedAt: db.Now()}
	if err := d.AppCreate(context.Background(), app); err != nil {
		t.Fatal(err)
	}
	answers, err := s.SendTest(context.Background(), Test{AppID: app.ID, App: "orders", Kind: db.SubjectJob, ID: 1, Name: "x",
		Alarm: db.Alarm{Channels: []db.AlarmChannel{{Type: db.ChannelWebhook, Target: hook.URL + "/literal"},
			{Type: db.ChannelWebhook, Target: "http://localhost:" + u.Port() + "/named"}}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range answers {
		if a.OK || !strings.Contains(a.Answer, "refused") {
			t.Fatalf("answer %+v: want refused", a)
		}
	}
	if n := hook.calls.Load(); n != 0 {
		t.Fatalf("the refused webhook was called %d times", n)
	}
}

// TestMailHeadersCannotBeInjected: a job name carrying CR LF and a header
// of its own stays inside the encoded Subject; the message has exactly
// the headers compose writes, delivered to the parsed recipients over a
// real SMTP conversation.
func TestMailHeadersCannotBeInjected(t *testing.T) {
	t.Parallel()
	relay := startSMTP(t)
	s, err := New(Config{SMTPURL: "smtp://" + relay.addr + "?from=jobwheel@example.com"}, nil, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	job := &db.Job{ID: 3, Name: "fail\r\nBcc: victim@example.org\r\n\r\nforged body"}
	ob := s.jobObservation("orders", job, db.Instance{ID: 4, Status: db.StatusFailed, Result: "line 1\r\n.\r\nQUIT"}, fail)
	m := ob.msg
	m.Event = "instance.failed"
	m.describe()
	if a := s.deliver(context.Background(), db.AlarmChannel{Type: db.ChannelEmail, Target: "Ops Team <ops@example.com>"}, &m, 1); !a.OK {
		t.Fatalf("mail not sent: %+v", a)
	}
	var got received
	select {
	case got = <-relay.got:
	case <-time.After(20 * time.Second):
		t.Fatal("no mail arrived")
	}
	if len(got.rcpt) != 1 || got.rcpt[0] != "<ops@example.com>" {
		t.Fatalf("recipients %v, want only ops@example.com", got.rcpt)
	}
	msg, err := mail.ReadMessage(strings.NewReader(got.data))
	if err != nil {
		t.Fatalf("the message does not parse: %v\n%s", err, got.data)
	}
	var names []string
	for k := range msg.Header {
		names = append(names, k)
	}
	slices.Sort(names)
	want := []string{"Content-Transfer-Encoding", "Content-Type", "Date", "From", "Mime-Version", "Subject", "To"}
	if !slices.Equal(names, want) {
		t.Fatalf("headers %v, want %v\n%s", names, want, got.data)
	}
	subject, err := new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject"))
	if err != nil || !strings.Contains(subject, "Bcc: victim@example.org") || strings.ContainsAny(subject, "\r\n") {
		t.Fatalf("subject %q (%v): the name must stay in it, on one line", subject, err)
	}
	if to := msg.Header.Get("To"); to != `"Ops Team" <ops@example.com>` {
		t.Fatalf("To: %q", to)
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

// TestStartLateAlarm: a dispatch later than the threshold alarms with its
// lateness; one on time does not.
func TestStartLateAlarm(t *testing.T) {
	t.Parallel()
	d := dbtest.Open(t, db.SQLite)
	hook := newReceiver(t)
	f := newFixture(t, d, db.Alarm{Rules: []db.AlarmRule{{Type: db.AlarmStartLate, Threshold: 5000}},
		Channels: []db.AlarmChannel{{Type: db.ChannelWebhook, Target: hook.URL}}}, nil)
	fire := db.Now()
	started := func(id int64, late time.Duration) db.Instance {
		at := fire.Add(late)
		return db.Instance{ID: id, Status: db.StatusDispatched, TriggerAt: fire, ExpectedTriggerAt: &fire, ActualTriggerAt: &at}
	}
	f.s.InstanceStarted("orders", f.job, started(1, time.Second))
	f.s.InstanceStarted("orders", f.job, started(2, 12*time.Second))
	testkit.Eventually(t, "the alarm to be recorded", func() bool { return len(f.history(t)) == 1 })
	msgs := hook.messages(t)
	if len(msgs) != 1 || msgs[0].Event != "instance.start_late" || msgs[0].InstanceID != 2 || msgs[0].LatenessMs != 12000 ||
		msgs[0].ThresholdMs != 5000 || !strings.Contains(msgs[0].Text, "started 12s after its fire") {
		t.Fatalf("alarms %+v", msgs)
	}
}
