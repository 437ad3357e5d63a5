package alarm

import (
	"fmt"
	"net/mail"
	"net/url"
	"slices"
	"strings"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/server/api/secrets"
	"github.com/jobwheel/jobwheel/server/platform/fault"
	"github.com/jobwheel/jobwheel/server/platform/netguard"
	"github.com/jobwheel/jobwheel/server/platform/text"
)

// Limits of alarm settings.
const (
	MaxRules      = 10
	MaxChannels   = 20
	MaxSilenceSec = 30 * 24 * 3600
	// MaxConsecutive bounds CONSECUTIVE_FAILURES' N.
	MaxConsecutive = 1000
)

// Check validates alarm settings as a job (workflow: a workflow) is saved
// with them and returns them normalized: the legacy fields folded into
// rules and channels, email addresses as parsed. A bad setting is a
// *fault.Input naming its field (alarm.webhooks, alarm.rules…). URLs are
// checked against guard as literals here; each delivery checks the
// resolved address again.
func Check(a db.Alarm, guard netguard.Policy, workflow bool) (db.Alarm, error) {
	for _, hook := range a.LegacyWebhooks {
		if err := checkURL("alarm.webhooks", hook, guard); err != nil {
			return a, err
		}
	}
	for _, e := range a.LegacyEmails {
		if _, err := checkEmail("alarm.emails", e); err != nil {
			return a, err
		}
	}
	if a.LegacySilenceSec < 0 {
		return a, fault.BadInput("alarm.silenceSec", "must not be negative")
	}
	n := a.Normalized()
	if len(n.Rules) > MaxRules {
		return a, fault.BadInput("alarm.rules", "at most %d rules", MaxRules)
	}
	if len(n.Channels) > MaxChannels {
		return a, fault.BadInput("alarm.channels", "at most %d channels", MaxChannels)
	}
	seen := map[string]bool{}
	failure := false
	for i, r := range n.Rules {
		field := fmt.Sprintf("alarm.rules[%d]", i)
		if !slices.Contains(db.AlarmRuleTypes, r.Type) {
			return a, fault.BadInput(field+".type", "%q is not one of %s", r.Type, strings.Join(db.AlarmRuleTypes, ", "))
		}
		if seen[r.Type] {
			return a, fault.BadInput(field+".type", "a %s rule is given twice; one of each type", r.Type)
		}
		seen[r.Type] = true
		if r.SilenceSec < 0 || r.SilenceSec > MaxSilenceSec {
			return a, fault.BadInput(field+".silenceSec", "must be 0 to %d (30 days)", MaxSilenceSec)
		}
		switch r.Type {
		case db.AlarmConsecutive:
			if r.Threshold < 2 || r.Threshold > MaxConsecutive {
				return a, fault.BadInput(field+".threshold", "N failures in a row: 2 to %d (for 1, use FAILURE)", MaxConsecutive)
			}
		case db.AlarmStartLate:
			if workflow {
				return a, fault.BadInput(field+".type", "START_LATE applies to jobs (a workflow's node instances are its jobs' instances)")
			}
			if r.Threshold < 1 || r.Threshold > int64(MaxSilenceSec)*1000 {
				return a, fault.BadInput(field+".threshold", "the lateness in milliseconds: 1 to %d", int64(MaxSilenceSec)*1000)
			}
		case db.AlarmRecovery:
		default:
			if r.Threshold != 0 {
				return a, fault.BadInput(field+".threshold", "only CONSECUTIVE_FAILURES and START_LATE take a threshold")
			}
		}
		if failureRules[r.Type] {
			failure = true
		}
	}
	if seen[db.AlarmRecovery] && !failure {
		return a, fault.BadInput("alarm.rules", "RECOVERY follows an alarm of FAILURE, CONSECUTIVE_FAILURES or TIMEOUT: give one of them too")
	}
	for i := range n.Channels {
		c := &n.Channels[i]
		field := fmt.Sprintf("alarm.channels[%d]", i)
		if !slices.Contains(db.AlarmChannelTypes, c.Type) {
			return a, fault.BadInput(field+".type", "%q is not one of %s", c.Type, strings.Join(db.AlarmChannelTypes, ", "))
		}
		c.Target = strings.TrimSpace(c.Target)
		if c.Type == db.ChannelEmail {
			addr, err := checkEmail(field+".target", c.Target)
			if err != nil {
				return a, err
			}
			c.Target = addr
			continue
		}
		if err := checkURL(field+".target", c.Target, guard); err != nil {
			return a, err
		}
	}
	for i, c := range n.Channels {
		for _, d := range n.Channels[:i] {
			if c == d {
				return a, fault.BadInput(fmt.Sprintf("alarm.channels[%d].target", i), "the same channel is given twice")
			}
		}
	}
	return n, nil
}

func checkURL(field, raw string, guard netguard.Policy) error {
	if err := text.Line(field, raw); err != nil {
		return err
	}
	if secrets.Holds(raw) {
		return fault.BadInput(field, "%q stands for a URL that is not stored on this channel; give the whole URL", raw)
	}
	if len(raw) > 2048 {
		return fault.BadInput(field, "at most 2048 characters")
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		// Not echoed whole: a chat URL carries its key.
		return fault.BadInput(field, "%q is not an http(s) URL", Redact(raw))
	}
	// Names are checked again, resolved, each time an alarm is sent.
	if err := guard.CheckURL(u); err != nil {
		return fault.BadInput(field, "%q: %v", Redact(raw), err)
	}
	return nil
}

// checkEmail returns the address of an email setting (a display name is
// kept in the legacy emails field only).
func checkEmail(field, raw string) (string, error) {
	if err := text.Line(field, raw); err != nil {
		return "", err
	}
	a, err := mail.ParseAddress(raw)
	if err != nil {
		return "", fault.BadInput(field, "%q is not an email address (%v)", raw, err)
	}
	if a.Name == "" {
		return a.Address, nil
	}
	return a.String(), nil
}
