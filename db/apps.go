package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// AppLock serializes the calling transaction's changes to an app's
// definitions with other transactions that take it: on PostgreSQL it locks
// the app's row until the transaction ends (SQLite runs one transaction at
// a time anyway). Saving a workflow takes it, so two saves cannot together
// make a nesting cycle that neither would make alone, and a workflow
// cannot be deleted while another save starts nesting it.
func (s *Store) AppLock(ctx context.Context, appID int64) error {
	if s.dialect != Postgres {
		return nil
	}
	var id int64
	err := s.idb.NewSelect().Model((*App)(nil)).Column("id").Where("id = ?", appID).For("UPDATE").Scan(ctx, &id)
	return wrap(err, "locking app")
}

// App is a tenant: jobs, workflows and workers belong to exactly one app.
// Workers authenticate with the app's secret, of which only a hash is kept.
type App struct {
	bun.BaseModel `bun:"table:apps,alias:a"`

	ID          int64  `bun:"id,pk,autoincrement"`
	Name        string `bun:"name,notnull"`
	Description string `bun:"description,notnull"`
	SecretHash  string `bun:"secret_hash,notnull"`
	// WorkflowBudget bounds what one workflow instance may create across
	// its nested instances: node rows plus FOREACH elements.
	WorkflowBudget int `bun:"workflow_budget,notnull"`
	// RetentionDays is how many days the app's finished instances, with
	// their tasks and log lines, are kept; nil: the server's retention.
	RetentionDays *int      `bun:"retention_days"`
	CreatedAt     time.Time `bun:"created_at,notnull"`
	UpdatedAt     time.Time `bun:"updated_at,notnull"`
}

// Keep is how long the app's finished history is kept: its own
// RetentionDays, else serverDefault (the server's -retention; 0 keeps it
// forever). Retention and the hourly roll-ups both ask it, so an app's
// instances and the hours summing them go together.
func (a *App) Keep(serverDefault time.Duration) time.Duration {
	if a.RetentionDays != nil {
		return time.Duration(*a.RetentionDays) * 24 * time.Hour
	}
	return serverDefault
}

// Role is a user's or token's right on one app.
type Role string

const (
	RoleViewer Role = "VIEWER"
	RoleEditor Role = "EDITOR"
	RoleOwner  Role = "OWNER"
)

// AppMember grants a user a role on an app.
type AppMember struct {
	bun.BaseModel `bun:"table:app_members,alias:m"`

	AppID     int64     `bun:"app_id,pk"`
	UserID    int64     `bun:"user_id,pk"`
	Role      Role      `bun:"role,notnull"`
	CreatedAt time.Time `bun:"created_at,notnull"`
}

// AppCreate inserts an app; ErrConflict if the name is taken.
func (s *Store) AppCreate(ctx context.Context, a *App) error {
	now := Now()
	a.CreatedAt, a.UpdatedAt = now, now
	if a.WorkflowBudget == 0 {
		a.WorkflowBudget = DefaultWorkflowBudget
	}
	_, err := s.idb.NewInsert().Model(a).Returning("id").Exec(ctx)
	return wrap(err, "creating app "+a.Name)
}

// DefaultWorkflowBudget is an app's budget per workflow instance unless
// set.
const DefaultWorkflowBudget = 100000

// AppSetWorkflowBudget sets an app's budget per workflow instance;
// instances already started keep theirs.
func (s *Store) AppSetWorkflowBudget(ctx context.Context, id int64, budget int) error {
	res, err := s.idb.NewUpdate().Model((*App)(nil)).Set("workflow_budget = ?", budget).Set("updated_at = ?", Now()).
		Where("id = ?", id).Exec(ctx)
	return expectOne(res, err, "setting the app's workflow budget")
}

// AppSetRetentionDays sets how many days an app keeps its finished
// instances; nil returns it to the server's retention.
func (s *Store) AppSetRetentionDays(ctx context.Context, id int64, days *int) error {
	res, err := s.idb.NewUpdate().Model((*App)(nil)).Set("retention_days = ?", days).Set("updated_at = ?", Now()).
		Where("id = ?", id).Exec(ctx)
	return expectOne(res, err, "setting an app's retention")
}

// AppGet returns the app with the id.
func (s *Store) AppGet(ctx context.Context, id int64) (*App, error) {
	a := new(App)
	err := s.idb.NewSelect().Model(a).Where("id = ?", id).Scan(ctx)
	return a, wrap(err, "reading app")
}

// AppGetByName returns the app with the name.
func (s *Store) AppGetByName(ctx context.Context, name string) (*App, error) {
	a := new(App)
	err := s.idb.NewSelect().Model(a).Where("name = ?", name).Scan(ctx)
	return a, wrap(err, "reading app "+name)
}

// AppList returns every app by name.
func (s *Store) AppList(ctx context.Context) ([]App, error) {
	var apps []App
	err := s.idb.NewSelect().Model(&apps).Order("name").Scan(ctx)
	return apps, wrap(err, "listing apps")
}

// AppListForUser returns the apps the user is a member of, by name.
func (s *Store) AppListForUser(ctx context.Context, userID int64) ([]App, error) {
	var apps []App
	err := s.idb.NewSelect().Model(&apps).
		Join("JOIN app_members AS m ON m.app_id = a.id").
		Where("m.user_id = ?", userID).
		Order("a.name").Scan(ctx)
	return apps, wrap(err, "listing apps of user")
}

// AppSetSecret replaces an app's secret hash (rotation).
func (s *Store) AppSetSecret(ctx context.Context, id int64, secretHash string) error {
	res, err := s.idb.NewUpdate().Model((*App)(nil)).
		Set("secret_hash = ?", secretHash).Set("updated_at = ?", Now()).
		Where("id = ?", id).Exec(ctx)
	return expectOne(res, err, "rotating app secret")
}

// AppDelete deletes an app with everything that belongs to it (jobs,
// instances, logs, workers, members, tokens scoped to it, its lease), by
// the schema's ON DELETE CASCADE.
func (s *Store) AppDelete(ctx context.Context, id int64) error {
	res, err := s.idb.NewDelete().Model((*App)(nil)).Where("id = ?", id).Exec(ctx)
	return expectOne(res, err, "deleting app")
}

// AppMemberSet grants, changes or (role "") removes a user's role on an app.
func (s *Store) AppMemberSet(ctx context.Context, appID, userID int64, role Role) error {
	if role == "" {
		_, err := s.idb.NewDelete().Model((*AppMember)(nil)).
			Where("app_id = ? AND user_id = ?", appID, userID).Exec(ctx)
		return wrap(err, "removing app member")
	}
	m := &AppMember{AppID: appID, UserID: userID, Role: role, CreatedAt: Now()}
	_, err := s.idb.NewInsert().Model(m).
		On("CONFLICT (app_id, user_id) DO UPDATE").Set("role = EXCLUDED.role").
		Exec(ctx)
	return wrap(err, "setting app member")
}

// AppMemberGetRole returns the user's role on the app, or "" if none.
func (s *Store) AppMemberGetRole(ctx context.Context, appID, userID int64) (Role, error) {
	var role Role
	err := s.idb.NewSelect().Model((*AppMember)(nil)).Column("role").
		Where("app_id = ? AND user_id = ?", appID, userID).Scan(ctx, &role)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return role, wrap(err, "reading app role")
}

// AppMemberList returns an app's members with their usernames.
func (s *Store) AppMemberList(ctx context.Context, appID int64) ([]AppMemberUser, error) {
	var out []AppMemberUser
	err := s.idb.NewSelect().Model((*AppMember)(nil)).
		ColumnExpr("m.app_id, m.user_id, m.role, u.username, u.admin").
		Join("JOIN users AS u ON u.id = m.user_id").
		Where("m.app_id = ?", appID).Order("u.username").Scan(ctx, &out)
	return out, wrap(err, "listing app members")
}

// AppMemberUser is a member row joined with the username.
type AppMemberUser struct {
	AppID    int64  `bun:"app_id"`
	UserID   int64  `bun:"user_id"`
	Role     Role   `bun:"role"`
	Username string `bun:"username"`
	// Admin: the user is an administrator, who may do everything on every
	// app whatever their role here.
	Admin bool `bun:"admin"`
}

// expectOne turns "no row changed" into ErrNotFound.
func expectOne(res sql.Result, err error, what string) error {
	if err != nil {
		return wrap(err, what)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return wrap(err, what)
	}
	if n == 0 {
		return fmt.Errorf("%s: %w", what, ErrNotFound)
	}
	return nil
}
