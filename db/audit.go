package db

import (
	"context"
	"time"

	"github.com/uptrace/bun"
)

// AuditEntry is one mutation on record: who made it, when, on which
// object, with what outcome, and the fields it changed (package audit
// keeps secrets out before the row is written).
type AuditEntry struct {
	bun.BaseModel `bun:"table:audit_log,alias:al"`

	ID     int64     `bun:"id,pk,autoincrement"`
	At     time.Time `bun:"at,notnull"`
	AppID  *int64    `bun:"app_id"`
	App    string    `bun:"app,notnull"`
	UserID *int64    `bun:"user_id"`
	Actor  string    `bun:"actor,notnull"`
	// ActorSubject is the identity provider's subject of the actor, for a
	// user who signed in with single sign-on.
	ActorSubject string `bun:"actor_subject,notnull"`
	TokenName    string `bun:"token_name,notnull"`
	ClientAddr   string `bun:"client_addr,notnull"`
	Action       string `bun:"action,notnull"`
	ObjectType   string `bun:"object_type,notnull"`
	ObjectID     string `bun:"object_id,notnull"`
	ObjectName   string `bun:"object_name,notnull"`
	Outcome      string `bun:"outcome,notnull"`
	// Error is the message a refused mutation was answered with (empty when OK).
	Error   string        `bun:"error_message,notnull"`
	Changes []AuditChange `bun:"changes,type:json,notnull"`
}

// AuditChange is one field's value before and after a mutation (nil: it
// did not exist).
type AuditChange struct {
	Field  string `json:"field"`
	Before any    `json:"before,omitempty"`
	After  any    `json:"after,omitempty"`
}

// AuditCreate records an entry.
func (s *Store) AuditCreate(ctx context.Context, e *AuditEntry) error {
	if e.Changes == nil {
		e.Changes = []AuditChange{}
	}
	_, err := s.idb.NewInsert().Model(e).Exec(ctx)
	return wrap(err, "recording an audit entry")
}

// AuditCreateMany records audit entries in one statement: concurrent
// mutations' entries, group-committed (server/platform/groupcommit).
func (s *Store) AuditCreateMany(ctx context.Context, list []*AuditEntry) error {
	if len(list) == 0 {
		return nil
	}
	for _, e := range list {
		if e.Changes == nil {
			e.Changes = []AuditChange{}
		}
	}
	if s.dialect == Postgres {
		return wrap(s.insertRecordset(ctx, "audit_log", list, []string{"id"}, ""), "recording audit entries")
	}
	_, err := s.idb.NewInsert().Model(&list).ExcludeColumn("id").Exec(ctx)
	return wrap(err, "recording audit entries")
}

// AuditFilter selects audit entries, newest first.
type AuditFilter struct {
	// AppID limits the list to one app's entries; nil: every entry.
	AppID *int64
	// ObjectType and ObjectID, when set, limit it to one object.
	ObjectType, ObjectID string
	// BeforeID continues a list after the entry with this id (0: from the
	// newest).
	BeforeID int64
	Limit    int
}

// AuditList returns the entries f selects, newest first.
func (s *Store) AuditList(ctx context.Context, f AuditFilter) ([]AuditEntry, error) {
	var out []AuditEntry
	q := s.auditQuery(f, &out)
	if f.BeforeID > 0 {
		q = q.Where("id < ?", f.BeforeID)
	}
	err := q.OrderExpr("id DESC").Limit(f.Limit).Scan(ctx)
	return out, wrap(err, "listing audit entries")
}

// AuditCount counts the entries f selects (its BeforeID and Limit aside).
func (s *Store) AuditCount(ctx context.Context, f AuditFilter) (int, error) {
	n, err := s.auditQuery(f, (*AuditEntry)(nil)).Count(ctx)
	return n, wrap(err, "counting audit entries")
}

func (s *Store) auditQuery(f AuditFilter, model any) *bun.SelectQuery {
	q := s.idb.NewSelect().Model(model)
	if f.AppID != nil {
		q = q.Where("app_id = ?", *f.AppID)
	}
	if f.ObjectType != "" {
		q = q.Where("object_type = ? AND object_id = ?", f.ObjectType, f.ObjectID)
	}
	return q
}
