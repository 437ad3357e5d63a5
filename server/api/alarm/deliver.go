package alarm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/mail"
	"net/smtp"
	"net/url"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/internal/clock"
	"github.com/jobwheel/jobwheel/server/platform/netguard"
)

// Answer is what a channel answered to an alarm.
type Answer struct {
	Channel string
	// Target is the channel's URL without its path and query (which hold
	// chat keys), or the email address.
	Target string
	OK     bool
	// StatusCode is the HTTP status of the last attempt (0: none, or mail).
	StatusCode int
	// Answer is an excerpt of the last answer's body, or the error.
	Answer   string
	Attempts int
}

// maxAnswer bounds the answer excerpt kept.
const maxAnswer = 500

// deliver sends m to one channel, trying up to attempts times with
// back-off; an answer that cannot change by retrying (a refused address,
// a 4xx other than 429) is not retried.
func (s *Sender) deliver(ctx context.Context, ch db.AlarmChannel, m *Message, attempts int) Answer {
	a := Answer{Channel: ch.Type, Target: Redact(ch.Target)}
	wait := s.cfg.RetryBackoff
	for a.Attempts < attempts {
		if a.Attempts > 0 {
			if !clock.Sleep(s.clock, wait, ctx.Done()) {
				if a.Answer == "" {
					a.Answer = "the server stopped"
				}
				return a
			}
			wait *= 2
		}
		a.Attempts++
		var retry bool
		if ch.Type == db.ChannelEmail {
			retry = s.mail(ch.Target, m, &a)
		} else {
			retry = s.post(ctx, ch, m, &a)
		}
		if a.OK || !retry {
			return a
		}
	}
	return a
}

// post makes one attempt at an HTTP channel; it says whether another may
// succeed.
func (s *Sender) post(ctx context.Context, ch db.AlarmChannel, m *Message, a *Answer) (retry bool) {
	payload, err := body(ch.Type, m)
	if err != nil {
		a.Answer = "encoding the alarm: " + err.Error()
		return false
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ch.Target, bytes.NewReader(payload))
	if err != nil {
		a.Answer = "not a URL the server can call"
		return false
	}
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	req.Header.Set("User-Agent", "jobwheel-alarm")
	resp, err := s.client.Do(req)
	if err != nil {
		var refused *netguard.RefusedError
		if errors.As(err, &refused) {
			a.Answer = refused.Error()
			return false
		}
		a.StatusCode, a.Answer = 0, safeError(err)
		return true
	}
	excerpt, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	_ = resp.Body.Close()
	a.StatusCode, a.Answer = resp.StatusCode, cut(oneLine(string(excerpt)), maxAnswer)
	if accepted(ch.Type, resp.StatusCode, excerpt) {
		a.OK = true
		return false
	}
	if resp.StatusCode >= 400 && resp.StatusCode < 500 && resp.StatusCode != http.StatusTooManyRequests {
		return false
	}
	return true
}

// safeError is an HTTP client's error without the URL (*url.Error quotes
// it, and chat URLs carry their key).
func safeError(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return cut(err.Error(), maxAnswer)
}

// mail sends m to one address through the configured relay; it says
// whether another attempt may succeed.
func (s *Sender) mail(to string, m *Message, a *Answer) (retry bool) {
	if s.cfg.SMTPURL == "" {
		a.Answer = "the server has no SMTP relay (JOBWHEEL_SMTP_URL)"
		return false
	}
	addr, auth, from, err := parseSMTP(s.cfg.SMTPURL)
	if err != nil {
		a.Answer = err.Error()
		return false
	}
	msg, rcpt, err := compose(from, []string{to}, m, s.clock.Now())
	if err != nil {
		a.Answer = err.Error()
		return false
	}
	if err := smtp.SendMail(addr, auth, from.Address, rcpt, msg); err != nil {
		a.Answer = cut(oneLine(err.Error()), maxAnswer)
		return true
	}
	a.OK, a.Answer = true, "accepted by the SMTP relay"
	return false
}

// Redact returns a channel target as it may be shown and logged: a URL
// keeps its scheme and host (chat webhooks carry their key in the path or
// the query), an email address stays.
func Redact(target string) string {
	if _, err := mail.ParseAddress(target); err == nil {
		return target
	}
	u, err := url.Parse(target)
	if err != nil || u.Host == "" {
		return "[redacted]"
	}
	if u.Path == "" && u.RawQuery == "" && u.User == nil {
		return u.Scheme + "://" + u.Host
	}
	return u.Scheme + "://" + u.Host + "/…"
}

// CheckSMTPURL says why raw is not an SMTP URL alarms can use, or nil. It
// does not echo the URL, which may hold a password.
func CheckSMTPURL(raw string) error {
	_, _, _, err := parseSMTP(raw)
	return err
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
