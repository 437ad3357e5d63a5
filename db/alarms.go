package db

import (
	"context"
	"time"

	"github.com/uptrace/bun"
)

// Alarm says when to tell whom about a job's (or a workflow's) runs:
// rules (failure, N consecutive failures, timeout, late start, recovery),
// each with its own silence window, and the channels to tell (package
// alarm). The Legacy fields are the first API's settings (onFailure,
// onTimeout, webhooks, emails, silenceSec): rows saved before rules and
// channels existed hold them, and Normalized folds them into rules and
// channels; the API saves only rules and channels.
type Alarm struct {
	Rules    []AlarmRule    `json:"rules,omitempty"`
	Channels []AlarmChannel `json:"channels,omitempty"`

	LegacyOnFailure  bool     `json:"onFailure,omitempty"`
	LegacyOnTimeout  bool     `json:"onTimeout,omitempty"`
	LegacyWebhooks   []string `json:"webhooks,omitempty"`
	LegacyEmails     []string `json:"emails,omitempty"`
	LegacySilenceSec int      `json:"silenceSec,omitempty"`
}

// AlarmRule is one condition that raises an alarm.
type AlarmRule struct {
	// Type is one of AlarmRuleTypes.
	Type string `json:"type"`
	// Threshold is N for CONSECUTIVE_FAILURES and the lateness in
	// milliseconds for START_LATE; unused by the others.
	Threshold int64 `json:"threshold,omitempty"`
	// SilenceSec: after this rule alarmed, its further alarms within this
	// many seconds are recorded SILENCED instead of sent (0: none are).
	SilenceSec int `json:"silenceSec,omitempty"`
}

// AlarmChannel is one place an alarm is sent to.
type AlarmChannel struct {
	// Type is one of AlarmChannelTypes.
	Type string `json:"type"`
	// Target is the URL (webhooks and chat incoming webhooks) or the email
	// address. Chat URLs carry their key: never logged whole.
	Target string `json:"target"`
}

// Alarm rule types.
const (
	AlarmFailure     = "FAILURE"
	AlarmConsecutive = "CONSECUTIVE_FAILURES"
	AlarmTimeout     = "TIMEOUT"
	AlarmStartLate   = "START_LATE"
	AlarmRecovery    = "RECOVERY"
)

// AlarmRuleTypes lists the rule types.
var AlarmRuleTypes = []string{AlarmFailure, AlarmConsecutive, AlarmTimeout, AlarmStartLate, AlarmRecovery}

// Alarm channel types.
const (
	ChannelWebhook  = "WEBHOOK"
	ChannelEmail    = "EMAIL"
	ChannelSlack    = "SLACK"
	ChannelFeishu   = "FEISHU"
	ChannelDingTalk = "DINGTALK"
	ChannelWeCom    = "WECOM"
)

// AlarmChannelTypes lists the channel types.
var AlarmChannelTypes = []string{ChannelWebhook, ChannelEmail, ChannelSlack, ChannelFeishu, ChannelDingTalk, ChannelWeCom}

// Normalized returns the alarm with its legacy fields folded into rules
// and channels (onFailure → FAILURE, onTimeout → TIMEOUT, both with
// silenceSec; webhooks → WEBHOOK, emails → EMAIL) and cleared.
func (a Alarm) Normalized() Alarm {
	out := Alarm{Rules: append([]AlarmRule(nil), a.Rules...), Channels: append([]AlarmChannel(nil), a.Channels...)}
	if a.LegacyOnFailure && out.Rule(AlarmFailure) == nil {
		out.Rules = append(out.Rules, AlarmRule{Type: AlarmFailure, SilenceSec: a.LegacySilenceSec})
	}
	if a.LegacyOnTimeout && out.Rule(AlarmTimeout) == nil {
		out.Rules = append(out.Rules, AlarmRule{Type: AlarmTimeout, SilenceSec: a.LegacySilenceSec})
	}
	add := func(typ string, targets []string) {
		for _, t := range targets {
			if !out.hasChannel(typ, t) {
				out.Channels = append(out.Channels, AlarmChannel{Type: typ, Target: t})
			}
		}
	}
	add(ChannelWebhook, a.LegacyWebhooks)
	add(ChannelEmail, a.LegacyEmails)
	return out
}

func (a Alarm) hasChannel(typ, target string) bool {
	for _, c := range a.Channels {
		if c.Type == typ && c.Target == target {
			return true
		}
	}
	return false
}

// Rule returns the rule of a type, or nil. (Legacy fields aside: call it
// on a Normalized alarm.)
func (a Alarm) Rule(typ string) *AlarmRule {
	for i := range a.Rules {
		if a.Rules[i].Type == typ {
			return &a.Rules[i]
		}
	}
	return nil
}

// Watches says whether the alarm has a rule of a type, legacy fields
// included. It allocates nothing: the scheduling path asks it.
func (a *Alarm) Watches(typ string) bool {
	switch {
	case typ == AlarmFailure && a.LegacyOnFailure, typ == AlarmTimeout && a.LegacyOnTimeout:
		return true
	}
	for i := range a.Rules {
		if a.Rules[i].Type == typ {
			return true
		}
	}
	return false
}

// The first API's fields, as the API still shows them (deprecated):
// computed from the rules and channels.

// OnFailure says whether a FAILURE rule is set.
func (a Alarm) OnFailure() bool { return a.Normalized().Rule(AlarmFailure) != nil }

// OnTimeout says whether a TIMEOUT rule is set.
func (a Alarm) OnTimeout() bool { return a.Normalized().Rule(AlarmTimeout) != nil }

// Webhooks are the WEBHOOK channels' URLs.
func (a Alarm) Webhooks() []string { return a.targets(ChannelWebhook) }

// Emails are the EMAIL channels' addresses.
func (a Alarm) Emails() []string { return a.targets(ChannelEmail) }

// SilenceSec is the FAILURE (else TIMEOUT) rule's silence.
func (a Alarm) SilenceSec() int {
	n := a.Normalized()
	for _, typ := range []string{AlarmFailure, AlarmTimeout} {
		if r := n.Rule(typ); r != nil {
			return r.SilenceSec
		}
	}
	return 0
}

func (a Alarm) targets(typ string) []string {
	out := []string{}
	for _, c := range a.Normalized().Channels {
		if c.Type == typ {
			out = append(out, c.Target)
		}
	}
	return out
}

// Alarm subjects: what an alarm rule watches.
const (
	SubjectJob      = "JOB"
	SubjectWorkflow = "WORKFLOW"
)

// Alarm history outcomes.
const (
	AlarmSent     = "SENT"
	AlarmSilenced = "SILENCED"
	AlarmFailed   = "FAILED"
)

// AlarmState is the durable state of one rule of one job or workflow
// (package alarm decides; the row makes the decision hold across a
// restart or a change of the app's owner).
type AlarmState struct {
	bun.BaseModel `bun:"table:alarm_states,alias:ast"`

	SubjectKind string `bun:"subject_kind,pk"`
	SubjectID   int64  `bun:"subject_id,pk"`
	Rule        string `bun:"rule,pk"`
	// Storming: the rule alarmed, and no success came since.
	Storming bool `bun:"storming,notnull"`
	// Consecutive counts failures in a row (CONSECUTIVE_FAILURES).
	Consecutive int `bun:"consecutive,notnull"`
	// LastSentAt starts the rule's silence window; nil: not silenced.
	LastSentAt *time.Time `bun:"last_sent_at"`
	UpdatedAt  time.Time  `bun:"updated_at,notnull"`
}

// AlarmRecord is one entry of an alarm history: an alarm sent to one
// channel (or that failed to reach it), or one silenced.
type AlarmRecord struct {
	bun.BaseModel `bun:"table:alarm_history,alias:ah"`

	ID          int64     `bun:"id,pk,autoincrement"`
	AppID       int64     `bun:"app_id,notnull"`
	SubjectKind string    `bun:"subject_kind,notnull"`
	SubjectID   int64     `bun:"subject_id,notnull"`
	At          time.Time `bun:"at,notnull"`
	Event       string    `bun:"event,notnull"`
	Rule        string    `bun:"rule,notnull"`
	InstanceID  *int64    `bun:"instance_id"`
	RunID       *int64    `bun:"run_id"`
	Outcome     string    `bun:"outcome,notnull"`
	Channel     string    `bun:"channel,notnull"`
	// Target is the channel's URL without its path and query, or the
	// email address: chat URLs carry their key.
	Target     string `bun:"target,notnull"`
	StatusCode int    `bun:"status_code,notnull"`
	// Answer is an excerpt of the channel's answer, or the error.
	Answer   string `bun:"answer,notnull"`
	Attempts int    `bun:"attempts,notnull"`
	Summary  string `bun:"summary,notnull"`
}

// AlarmStateList returns the states of a subject's rules, by rule.
func (s *Store) AlarmStateList(ctx context.Context, kind string, id int64) (map[string]*AlarmState, error) {
	var rows []AlarmState
	err := s.idb.NewSelect().Model(&rows).Where("subject_kind = ? AND subject_id = ?", kind, id).Scan(ctx)
	if err != nil {
		return nil, wrap(err, "reading alarm states")
	}
	out := make(map[string]*AlarmState, len(rows))
	for i := range rows {
		out[rows[i].Rule] = &rows[i]
	}
	return out, nil
}

// AlarmStateUpdateMany runs fn on the states of a subject's rules (a row for
// each of rules, created if missing) in one transaction, holding the rows
// (on PostgreSQL: FOR UPDATE; SQLite runs one transaction at a time), so
// two servers deciding about the same subject at once decide in turn.
// The rows fn reports changed are written.
func (d *DB) AlarmStateUpdateMany(ctx context.Context, kind string, id int64, rules []string, now time.Time,
	fn func(states map[string]*AlarmState) (changed []string, err error)) error {
	return d.InTx(ctx, func(ctx context.Context, tx *Store) error {
		rows := make([]AlarmState, len(rules))
		for i, r := range rules {
			rows[i] = AlarmState{SubjectKind: kind, SubjectID: id, Rule: r, UpdatedAt: now}
		}
		if len(rows) > 0 {
			if _, err := tx.idb.NewInsert().Model(&rows).On("CONFLICT (subject_kind, subject_id, rule) DO NOTHING").Exec(ctx); err != nil {
				return wrap(err, "creating alarm states")
			}
		}
		var held []AlarmState
		q := tx.idb.NewSelect().Model(&held).Where("subject_kind = ? AND subject_id = ?", kind, id)
		if tx.dialect == Postgres {
			q = q.For("UPDATE")
		}
		if err := q.Scan(ctx); err != nil {
			return wrap(err, "reading alarm states")
		}
		states := make(map[string]*AlarmState, len(held))
		for i := range held {
			states[held[i].Rule] = &held[i]
		}
		changed, err := fn(states)
		if err != nil {
			return err
		}
		for _, r := range changed {
			st := states[r]
			if st == nil {
				continue
			}
			st.UpdatedAt = now
			if _, err := tx.idb.NewUpdate().Model(st).Column("storming", "consecutive", "last_sent_at", "updated_at").
				WherePK().Exec(ctx); err != nil {
				return wrap(err, "saving alarm state")
			}
		}
		return nil
	})
}

// AlarmHistoryCreateMany adds entries to the alarm history.
func (s *Store) AlarmHistoryCreateMany(ctx context.Context, recs []AlarmRecord) error {
	if len(recs) == 0 {
		return nil
	}
	_, err := s.idb.NewInsert().Model(&recs).ExcludeColumn("id").Exec(ctx)
	return wrap(err, "recording alarm history")
}

// AlarmHistoryFilter selects a subject's alarm history, newest first.
type AlarmHistoryFilter struct {
	SubjectKind string
	SubjectID   int64
	// BeforeID continues a list after the entry with this id (0: from the
	// newest).
	BeforeID int64
	Limit    int
}

// AlarmHistoryList returns the entries f selects, newest first.
func (s *Store) AlarmHistoryList(ctx context.Context, f AlarmHistoryFilter) ([]AlarmRecord, error) {
	var out []AlarmRecord
	q := s.idb.NewSelect().Model(&out).Where("subject_kind = ? AND subject_id = ?", f.SubjectKind, f.SubjectID)
	if f.BeforeID > 0 {
		q = q.Where("id < ?", f.BeforeID)
	}
	err := q.OrderExpr("id DESC").Limit(f.Limit).Scan(ctx)
	return out, wrap(err, "listing alarm history")
}

// AlarmHistoryCount counts a subject's alarm history.
func (s *Store) AlarmHistoryCount(ctx context.Context, kind string, id int64) (int, error) {
	n, err := s.idb.NewSelect().Model((*AlarmRecord)(nil)).Where("subject_kind = ? AND subject_id = ?", kind, id).Count(ctx)
	return n, wrap(err, "counting alarm history")
}

// AlarmHistoryDeleteBefore deletes up to limit of an app's alarm history
// entries older than before; it returns how many.
func (s *Store) AlarmHistoryDeleteBefore(ctx context.Context, appID int64, before time.Time, limit int) (int, error) {
	sub := s.idb.NewSelect().Model((*AlarmRecord)(nil)).Column("id").Where("app_id = ? AND at < ?", appID, before).Limit(limit)
	res, err := s.idb.NewDelete().Model((*AlarmRecord)(nil)).Where("id IN (?)", sub).Exec(ctx)
	if err != nil {
		return 0, wrap(err, "deleting old alarm history")
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}
