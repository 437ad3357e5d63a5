// Package alarm tells people when a job's instance fails: it POSTs a JSON
// document to the job's webhooks and mails its addresses (when the server
// has an SMTP relay configured), as the job's alarm settings ask.
//
// Alarms are sent in the background from a bounded queue, so a slow or
// dead webhook never holds up scheduling; a full queue drops the alarm
// with a log line. Each job's alarms are silenced for its silenceSec after
// one was sent, so a job failing every second does not send one alarm per
// second. Webhooks are retried twice with back-off.
//
// Webhooks reach public addresses only (package netguard: loopback,
// private, link-local and metadata addresses are refused when connecting,
// unless Config.AllowNetworks allows them), so an app's editor cannot make
// the server call what only the server can reach. Mail headers are built
// from parsed addresses and encoded text, so no job name or address can
// add a header.
package alarm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"mime"
	"mime/quotedprintable"
	"net"
	"net/http"
	"net/mail"
	"net/netip"
	"net/smtp"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/internal/lifecycle"
	"github.com/jobwheel/jobwheel/server/netguard"
)

// queueSize bounds the alarms waiting to be sent.
const queueSize = 1000

// Config configures the sender.
type Config struct {
	// SMTPURL is smtp://user:password@host:port?from=address; empty: no
	// email, webhooks only.
	SMTPURL string
	// ConsoleURL is where the server's console is, for links in alarms.
	ConsoleURL string
	// AllowNetworks are the non-public address ranges webhooks may reach
	// (loopback, private, link-local are refused otherwise; see netguard).
	AllowNetworks []netip.Prefix
}

// Event is what an alarm is about.
type Event struct {
	App      string      `json:"app"`
	Job      JobRef      `json:"job"`
	Instance db.Instance `json:"-"`
	Reason   string      `json:"reason"`
}

// JobRef names a job in an alarm.
type JobRef struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
}

// payload is the JSON a webhook receives.
type payload struct {
	Event       string     `json:"event"` // "instance.failed" or "instance.timeout"
	App         string     `json:"app"`
	Job         JobRef     `json:"job"`
	InstanceID  int64      `json:"instanceId"`
	Status      string     `json:"status"`
	Reason      string     `json:"reason"`
	Result      string     `json:"result"`
	Attempt     int        `json:"attempt"`
	Expected    *time.Time `json:"expectedTriggerTime,omitempty"`
	Triggered   *time.Time `json:"actualTriggerTime,omitempty"`
	Finished    *time.Time `json:"finishedTime,omitempty"`
	InstanceURL string     `json:"instanceUrl,omitempty"`
}

// Sender sends alarms.
type Sender struct {
	cfg    Config
	log    *slog.Logger
	client *http.Client
	queue  chan work
	lifecycle.Base

	mu   sync.Mutex
	last map[int64]time.Time // job → when its last alarm was sent
}

type work struct {
	alarm db.Alarm
	p     payload
}

// New returns a Sender; Start runs it.
func New(cfg Config, log *slog.Logger) (*Sender, error) {
	if cfg.SMTPURL != "" {
		if err := CheckSMTPURL(cfg.SMTPURL); err != nil {
			return nil, fmt.Errorf("JOBWHEEL_SMTP_URL: %w", err)
		}
	}
	guard := netguard.Policy{Allow: cfg.AllowNetworks}
	return &Sender{cfg: cfg, log: log, client: guard.Client(10 * time.Second),
		queue: make(chan work, queueSize), last: map[int64]time.Time{}}, nil
}

// Start sends queued alarms until Stop.
func (s *Sender) Start(ctx context.Context) error {
	ctx, ok, started, stopped := s.StartInit(ctx)
	if !ok {
		return nil
	}
	go func() {
		started()
		defer stopped()
		s.run(ctx)
	}()
	return nil
}

// InstanceFailed queues the alarm of an instance that ended FAILED, if its
// job asks for one and is not silenced.
func (s *Sender) InstanceFailed(app string, job *db.Job, in db.Instance) {
	a := job.Alarm
	timeout := in.Reason == "TIMEOUT"
	if !(a.OnFailure || (timeout && a.OnTimeout)) || (len(a.Webhooks) == 0 && len(a.Emails) == 0) {
		return
	}
	now := time.Now()
	s.mu.Lock()
	if last, ok := s.last[job.ID]; ok && now.Sub(last) < time.Duration(a.SilenceSec)*time.Second {
		s.mu.Unlock()
		return
	}
	s.last[job.ID] = now
	s.mu.Unlock()
	event := "instance.failed"
	if timeout {
		event = "instance.timeout"
	}
	p := payload{Event: event, App: app, Job: JobRef{ID: job.ID, Name: job.Name}, InstanceID: in.ID, Status: in.Status,
		Reason: in.Reason, Result: in.Result, Attempt: in.Attempt, Expected: in.ExpectedTriggerAt, Triggered: in.ActualTriggerAt,
		Finished: in.FinishedAt}
	if s.cfg.ConsoleURL != "" {
		p.InstanceURL = fmt.Sprintf("%s/apps/%s/instances/%d", strings.TrimRight(s.cfg.ConsoleURL, "/"), url.PathEscape(app), in.ID)
	}
	select {
	case s.queue <- work{alarm: a, p: p}:
	default:
		s.log.Warn("alarm: queue full; dropping an alarm", "job", job.ID, "instance", in.ID)
	}
}

func (s *Sender) run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case w := <-s.queue:
			for _, hook := range w.alarm.Webhooks {
				s.webhook(ctx, hook, w.p)
			}
			if len(w.alarm.Emails) > 0 {
				s.mail(w.alarm.Emails, w.p)
			}
		}
	}
}

func (s *Sender) webhook(ctx context.Context, hook string, p payload) {
	body, _ := json.Marshal(p)
	var err error
	for attempt, wait := 0, time.Second; attempt < 3; attempt, wait = attempt+1, wait*2 {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				return
			case <-time.After(wait):
			}
		}
		var req *http.Request
		req, err = http.NewRequestWithContext(ctx, http.MethodPost, hook, bytes.NewReader(body))
		if err != nil {
			break
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("User-Agent", "jobwheel-alarm")
		var resp *http.Response
		resp, err = s.client.Do(req)
		var refused *netguard.RefusedError
		if errors.As(err, &refused) {
			s.log.Warn("alarm: webhook refused: it points at an address the server may not call", "url", hook, "instance", p.InstanceID, "err", refused)
			return
		}
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode < 300 {
				return
			}
			err = fmt.Errorf("status %d", resp.StatusCode)
		}
	}
	s.log.Warn("alarm: webhook failed", "url", hook, "instance", p.InstanceID, "err", err)
}

func (s *Sender) mail(to []string, p payload) {
	if s.cfg.SMTPURL == "" {
		s.log.Warn("alarm: the job asks for email but the server has no SMTP relay (JOBWHEEL_SMTP_URL)", "job", p.Job.ID)
		return
	}
	addr, auth, from, _ := parseSMTP(s.cfg.SMTPURL)
	msg, rcpt, err := compose(from, to, p, time.Now())
	if err != nil {
		s.log.Warn("alarm: not sending mail", "job", p.Job.ID, "err", err)
		return
	}
	if err := smtp.SendMail(addr, auth, from.Address, rcpt, msg); err != nil {
		s.log.Warn("alarm: sending mail failed", "to", rcpt, "err", err)
	}
}

// CheckSMTPURL says why raw is not an SMTP URL alarms can use, or nil. It
// does not echo the URL, which may hold a password.
func CheckSMTPURL(raw string) error {
	_, _, _, err := parseSMTP(raw)
	return err
}

// compose makes the alarm mail. Every header is built from parsed
// addresses and encoded text (RFC 2047), so nothing a user typed (a job
// name, an address) can add a header or end the header block; the
// recipients are the parsed addresses.
func compose(from *mail.Address, to []string, p payload, now time.Time) (msg []byte, rcpt []string, err error) {
	var heads []string
	for _, raw := range to {
		a, err := mail.ParseAddress(raw)
		if err != nil {
			return nil, nil, fmt.Errorf("recipient %q: %w", raw, err)
		}
		rcpt = append(rcpt, a.Address)
		heads = append(heads, a.String())
	}
	subject := fmt.Sprintf("[jobwheel] %s/%s: instance %d %s", p.App, p.Job.Name, p.InstanceID, strings.ToLower(strings.TrimPrefix(p.Event, "instance.")))
	var b strings.Builder
	header := func(k, v string) { fmt.Fprintf(&b, "%s: %s\r\n", k, v) }
	header("From", from.String())
	header("To", strings.Join(heads, ", "))
	header("Subject", mime.QEncoding.Encode("utf-8", oneLine(subject)))
	header("Date", now.Format(time.RFC1123Z))
	header("MIME-Version", "1.0")
	header("Content-Type", "text/plain; charset=utf-8")
	header("Content-Transfer-Encoding", "quoted-printable")
	b.WriteString("\r\n")
	var text strings.Builder
	fmt.Fprintf(&text, "Job %q of app %q: instance %d ended %s (%s) at attempt %d.\r\n\r\n%s\r\n", p.Job.Name, p.App, p.InstanceID, p.Status, p.Reason, p.Attempt, p.Result)
	if p.InstanceURL != "" {
		fmt.Fprintf(&text, "\r\n%s\r\n", p.InstanceURL)
	}
	// Quoted-printable keeps the body's lines short and its bytes 7-bit,
	// whatever the instance's result holds.
	qp := quotedprintable.NewWriter(&b)
	_, _ = qp.Write([]byte(text.String()))
	_ = qp.Close()
	return []byte(b.String()), rcpt, nil
}

// oneLine replaces control characters (which names cannot hold, but
// results can) with spaces.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) {
			return ' '
		}
		return r
	}, s)
}

// parseSMTP reads smtp://user:password@host:port?from=address.
func parseSMTP(raw string) (addr string, auth smtp.Auth, from *mail.Address, err error) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "smtp" || u.Host == "" {
		return "", nil, nil, errors.New("not smtp://user:password@host:port?from=address")
	}
	if _, _, err := net.SplitHostPort(u.Host); err != nil {
		return "", nil, nil, errors.New("no port; use smtp://user:password@host:port?from=address (port 587 or 25, usually)")
	}
	if u.Query().Get("from") == "" {
		return "", nil, nil, errors.New("no from= parameter (the sender address); use smtp://user:password@host:port?from=address")
	}
	if from, err = mail.ParseAddress(u.Query().Get("from")); err != nil {
		return "", nil, nil, fmt.Errorf("from=%q is not an email address: %w", u.Query().Get("from"), err)
	}
	if u.User != nil {
		pass, _ := u.User.Password()
		auth = smtp.PlainAuth("", u.User.Username(), pass, u.Hostname())
	}
	return u.Host, auth, from, nil
}
