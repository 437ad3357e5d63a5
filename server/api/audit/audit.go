// Package audit keeps the record of every change made through the API:
// each GraphQL mutation, who made it (user, API token, client address),
// when, on which object, with what outcome, and the fields it changed with
// their values before and after.
//
// The GraphQL layer calls Begin before a mutation's resolver and End after
// it; Begin reads the object as it is (by the argument that names it), End
// as it became (the resolver's result, or a re-read), and only the fields
// that differ are kept. Secrets never reach the record: hashes are not
// read, arguments and fields named like passwords, secrets, tokens or
// authorization are replaced by "[redacted]", an HTTP job's header values
// too, and alarm webhook URLs keep only their scheme and host (chat
// webhooks carry their key in the path or query). Results are never
// recorded, so a secret shown once (createApp, rotateAppSecret,
// createApiToken) is not either.
//
// An app's entries are read by its members (VIEWER and up), every entry by
// administrators.
package audit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"strconv"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/internal/clock"
	"github.com/jobwheel/jobwheel/server/api/auth"
	"github.com/jobwheel/jobwheel/server/platform/groupcommit"
)

// Store is what the audit log reads and writes.
type Store interface {
	AuditCreateMany(ctx context.Context, list []*db.AuditEntry) error
	AuditList(ctx context.Context, f db.AuditFilter) ([]db.AuditEntry, error)
	AuditCount(ctx context.Context, f db.AuditFilter) (int, error)
	AppGet(ctx context.Context, id int64) (*db.App, error)
	AppGetByName(ctx context.Context, name string) (*db.App, error)
	AppMemberGetRole(ctx context.Context, appID, userID int64) (db.Role, error)
	UserGetByName(ctx context.Context, username string) (*db.User, error)
	JobGet(ctx context.Context, id int64) (*db.Job, error)
	InstanceGet(ctx context.Context, id int64) (*db.Instance, error)
	WorkflowGet(ctx context.Context, id int64) (*db.Workflow, error)
	WorkflowInstanceGet(ctx context.Context, id int64) (*db.WorkflowInstance, error)
	APITokenGet(ctx context.Context, id int64) (*db.APIToken, error)
	CalendarGet(ctx context.Context, id int64) (*db.Calendar, error)
	PoolGet(ctx context.Context, id int64) (*db.Pool, error)
	BackfillGet(ctx context.Context, id int64) (*db.Backfill, error)
}

// Auth checks the reader's rights (auth.Service).
type Auth interface {
	RequireAdmin(ctx context.Context) error
}

// Apps finds an app the caller has a role on (apps.Service).
type Apps interface {
	ByName(ctx context.Context, name string, role db.Role) (*db.App, error)
}

// Service records and lists audit entries.
type Service struct {
	store Store
	// inserts group-commits the entries of concurrent mutations: a burst
	// of runJob calls shares one INSERT and one commit for its entries.
	inserts *groupcommit.Batcher[*db.AuditEntry]
	auth    Auth
	apps    Apps
	log     *slog.Logger
	clock   clock.Clock
}

// New returns the audit log over store.
func New(store Store, a Auth, apps Apps, log *slog.Logger, c clock.Clock) *Service {
	return &Service{store: store, auth: a, apps: apps, log: log, clock: clock.OrSystem(c),
		inserts: groupcommit.New(maxBatch, store.AuditCreateMany)}
}

// maxBatch bounds the entries written in one statement (a dozen columns
// each, far under the databases' parameter limits).
const maxBatch = 500

// Object kinds an entry is about.
const (
	KindApp              = "app"
	KindAppMember        = "app_member"
	KindJob              = "job"
	KindInstance         = "instance"
	KindWorkflow         = "workflow"
	KindWorkflowInstance = "workflow_instance"
	KindUser             = "user"
	KindAPIToken         = "api_token"
	KindSession          = "session"
	KindCalendar         = "calendar"
	KindPool             = "pool"
	KindBackfill         = "backfill"
	// KindConfigSet is a managed set of configuration files (applyConfig):
	// its entry names the set and lists what was created, updated and
	// deleted.
	KindConfigSet = "config_set"
)

// target says what a mutation changes: the kind of object, and the
// argument naming it (empty: it is created, and named by the result).
type target struct {
	kind, arg string
}

// acting are the mutations that act on their object without changing it:
// their entry names the object and what it made, and no snapshot of the
// object is taken to diff — on runJob, the hottest mutation, the job's
// snapshot cost a fifth of the call's CPU.
var acting = map[string]bool{"runJob": true, "runWorkflow": true, "sendTestAlarm": true,
	"backfillWorkflow": true, "backfillJob": true}

// targets are the mutations whose object is known; any other mutation is
// recorded with its (redacted) arguments only.
var targets = map[string]target{
	"createApp":                 {KindApp, ""},
	"rotateAppSecret":           {KindApp, "app"},
	"deleteApp":                 {KindApp, "app"},
	"setAppRole":                {KindAppMember, "app"},
	"setAppWorkflowBudget":      {KindApp, "app"},
	"setAppRetention":           {KindApp, "app"},
	"stopInstance":              {KindInstance, "id"},
	"retryInstance":             {KindInstance, "id"},
	"createJob":                 {KindJob, ""},
	"updateJob":                 {KindJob, "id"},
	"setJobEnabled":             {KindJob, "id"},
	"deleteJob":                 {KindJob, "id"},
	"runJob":                    {KindJob, "id"},
	"login":                     {KindSession, ""},
	"ssoLogin":                  {KindSession, ""},
	"logout":                    {KindSession, ""},
	"createUser":                {KindUser, ""},
	"changePassword":            {KindUser, ""},
	"createApiToken":            {KindAPIToken, ""},
	"revokeApiToken":            {KindAPIToken, "id"},
	"createWorkflow":            {KindWorkflow, ""},
	"importWorkflow":            {KindWorkflow, ""},
	"updateWorkflow":            {KindWorkflow, "id"},
	"deleteWorkflow":            {KindWorkflow, "id"},
	"setWorkflowEnabled":        {KindWorkflow, "id"},
	"restoreWorkflowVersion":    {KindWorkflow, "id"},
	"runWorkflow":               {KindWorkflow, "id"},
	"stopWorkflowInstance":      {KindWorkflowInstance, "id"},
	"retryWorkflowInstance":     {KindWorkflowInstance, "id"},
	"pauseWorkflowInstance":     {KindWorkflowInstance, "id"},
	"resumeWorkflowInstance":    {KindWorkflowInstance, "id"},
	"markWorkflowNodeSucceeded": {KindWorkflowInstance, "workflowInstanceId"},
	"rerunWorkflowNode":         {KindWorkflowInstance, "workflowInstanceId"},
	"approveWorkflowNode":       {KindWorkflowInstance, "workflowInstanceId"},
	"applyConfig":               {KindConfigSet, ""},
	"restoreJobVersion":         {KindJob, "id"},
	"setJobManagedBy":           {KindJob, "id"},
	"createCalendar":            {KindCalendar, ""},
	"updateCalendar":            {KindCalendar, "id"},
	"deleteCalendar":            {KindCalendar, "id"},
	"createPool":                {KindPool, ""},
	"updatePool":                {KindPool, "id"},
	"deletePool":                {KindPool, "id"},
	"backfillWorkflow":          {KindWorkflow, "id"},
	"backfillJob":               {KindJob, "id"},
	"stopBackfill":              {KindBackfill, "id"},
	"setWorkflowUpstream":       {KindWorkflow, "id"},
	// sendTestAlarm names a job or a workflow (targetOf).
	"sendTestAlarm": {KindJob, "jobId"},
}

// Global are the mutations that change no app's state, so their entries
// carry no app (administrators read them), each with the reason.
var Global = map[string]string{
	"login":          "a session of a user, not of an app",
	"ssoLogin":       "a session of a user, not of an app",
	"logout":         "ends a session of a user, not of an app",
	"createUser":     "users are server-wide (administrators)",
	"changePassword": "a user's own password, not an app's",
	"createApiToken": "a user's credential; its entry names the app it is narrowed to, if any",
	"revokeApiToken": "a user's credential; its entry names the app it is narrowed to, if any",
}

// AppScoped says whether action's entry names the app it changed: false
// for a mutation it does not know.
func AppScoped(action string) bool {
	t, ok := targets[action]
	if !ok {
		return false
	}
	switch t.kind {
	case KindApp, KindAppMember, KindJob, KindInstance, KindWorkflow, KindWorkflowInstance,
		KindCalendar, KindPool, KindBackfill, KindConfigSet:
		return true
	}
	return false
}

// argString is an argument naming an object, as a string: optional
// arguments come as pointers.
func argString(v any) string {
	switch a := v.(type) {
	case nil:
		return ""
	case *string:
		if a == nil {
			return ""
		}
		return *a
	}
	return fmt.Sprint(v)
}

// targetOf is what action changes given its arguments.
func targetOf(action string, args map[string]any) target {
	if action == "sendTestAlarm" && argString(args["jobId"]) == "" {
		return target{KindWorkflow, "workflowId"}
	}
	return targets[action]
}

// ChangeLister is a mutation's result that lists the objects it changed,
// per app (applyConfig's): the entry records that list instead of the
// arguments, one entry per app.
type ChangeLister interface {
	AuditChanges() map[string][]db.AuditChange
}

// objectArgs are arguments that only name the object: the entry's object
// says them, so they are not repeated among its changes.
var objectArgs = map[string]bool{"id": true, "app": true, "workflowInstanceId": true, "input": true, "definition": true,
	"jobId": true, "workflowId": true}

// Record is a mutation under way.
type Record struct {
	s      *Service
	entry  db.AuditEntry
	target target
	args   map[string]any
	before map[string]any
	// written: the entry was stored with the change (Written).
	written bool
}

// Begin notes who is calling action with args and reads the object as it
// is now.
func (s *Service) Begin(ctx context.Context, action string, args map[string]any) *Record {
	r := &Record{s: s, args: args, target: targetOf(action, args)}
	r.entry = db.AuditEntry{At: db.Stamp(s.clock.Now()), Action: action, ObjectType: r.target.kind}
	if p := auth.FromContext(ctx); p != nil {
		uid := p.User.ID
		r.entry.UserID, r.entry.Actor = &uid, p.User.Username
		if p.User.SSOSubject != nil {
			r.entry.ActorSubject = *p.User.SSOSubject
		}
		if p.Token != nil {
			r.entry.TokenName = p.Token.Name
		}
	} else if action == "login" {
		if u, ok := args["username"].(string); ok {
			r.entry.Actor = u // who tried to log in; the outcome says whether it worked
		}
	}
	if a := auth.ClientAddr(ctx); a.IsValid() {
		r.entry.ClientAddr = a.String()
	}
	if r.target.arg != "" {
		key := argString(args[r.target.arg])
		r.entry.ObjectID = key
		if r.target.kind == KindAppMember {
			r.entry.ObjectID = fmt.Sprint(args["username"])
		}
		// A failed read leaves before empty: the mutation will likely fail
		// the same way and say why.
		r.before = r.load(ctx, r.target.kind, key)
		// An acting mutation's entry may be written with its change, in
		// its transaction (Entry): its app is named now.
		if acting[action] && r.entry.AppID != nil && r.entry.App == "" {
			if app, err := s.store.AppGet(ctx, *r.entry.AppID); err == nil {
				r.entry.App = app.Name
			}
		}
	}
	return r
}

// End records the mutation's outcome: the error code it failed with and
// the message its caller was answered with, or "OK" (empty) with the
// changes from before to result (re-read when result does not show the
// object). A successful mutation whose entry was written with its change
// (Entry, Written) is not recorded again.
func (r *Record) End(ctx context.Context, result any, failed, message string) {
	ctx = context.WithoutCancel(ctx)
	if r.target.kind == KindConfigSet {
		r.endConfig(ctx, result, failed, message)
		return
	}
	if r.written && failed == "" {
		return
	}
	e := r.complete(ctx, result, failed, true)
	if failed != "" {
		e.Error = message
	}
	r.s.insert(ctx, e)
}

// Entry is the entry End would record for the mutation succeeding with
// result: a service that writes it in the transaction of its change
// (runJob, which then costs one commit, not two) calls Written once that
// committed. It reads nothing (it runs inside that transaction, and SQLite
// has one connection): an acting mutation's app is named at Begin.
func (r *Record) Entry(ctx context.Context, result any) *db.AuditEntry {
	return r.complete(context.WithoutCancel(ctx), result, "", false)
}

// Written says the mutation's entry was stored with its change.
func (r *Record) Written() { r.written = true }

type recordKey struct{}

// WithRecord returns ctx carrying the mutation's record, for a service
// that writes its entry itself (Entry).
func WithRecord(ctx context.Context, r *Record) context.Context {
	return context.WithValue(ctx, recordKey{}, r)
}

// RecordFrom returns the record of the mutation under way, or nil.
func RecordFrom(ctx context.Context) *Record {
	r, _ := ctx.Value(recordKey{}).(*Record)
	return r
}

// complete builds the entry of the mutation's outcome, leaving the record
// as it was (a batch written again item by item builds it again); with
// read false it reads nothing more from the database.
func (r *Record) complete(ctx context.Context, result any, failed string, read bool) *db.AuditEntry {
	e := new(db.AuditEntry)
	*e = r.entry
	e.Changes = append([]db.AuditChange(nil), r.entry.Changes...)
	e.Outcome = "OK"
	if failed != "" {
		e.Outcome = failed
	}
	var after map[string]any
	if failed == "" {
		switch {
		case r.target.kind == KindSession:
		case r.target.kind == KindUser && e.Action == "changePassword":
			e.ObjectID, e.ObjectName = strconv.FormatInt(derefID(e.UserID), 10), e.Actor
			e.Changes = append(e.Changes, db.AuditChange{Field: "password", After: "changed"})
		case r.target.kind == KindApp && e.Action == "rotateAppSecret":
			after = r.before
			e.Changes = append(e.Changes, db.AuditChange{Field: "secret", After: "rotated"})
		case isDelete(e.Action):
			after = nil
		case r.target.kind == KindAppMember && read:
			after = r.load(ctx, KindAppMember, fmt.Sprint(r.args["app"]))
		default:
			kind, id, snap, appID := describe(result)
			switch {
			case kind == r.target.kind && snap != nil:
				after = snap
				if e.ObjectID == "" {
					e.ObjectID = id
				}
				if appID != 0 && e.AppID == nil {
					e.AppID = &appID
				}
			case kind != "" && r.target.kind != "":
				// The mutation made something else (runJob an instance,
				// runWorkflow a run): name it among the changes.
				e.Changes = append(e.Changes, db.AuditChange{Field: kind, After: id})
				after = r.before
			case r.target.arg != "" && read:
				after = r.load(ctx, r.target.kind, e.ObjectID)
			}
		}
	}
	// What reading the object after told of its app and name (load notes
	// them on the record).
	if e.AppID == nil {
		e.AppID = r.entry.AppID
	}
	if e.App == "" {
		e.App = r.entry.App
	}
	if e.ObjectName == "" {
		e.ObjectName = r.entry.ObjectName
	}
	if failed == "" && (r.before != nil || after != nil) {
		e.Changes = append(Diff(r.before, after), e.Changes...)
	}
	for k, v := range r.args {
		if objectArgs[k] && r.target.kind != "" {
			continue
		}
		e.Changes = append(e.Changes, db.AuditChange{Field: "arg." + k, After: Redact(k, normalize(v))})
	}
	if e.ObjectName == "" {
		for _, m := range []map[string]any{after, r.before} {
			if n, ok := m["name"].(string); ok {
				e.ObjectName = n
				break
			}
			if n, ok := m["username"].(string); ok {
				e.ObjectName = n
				break
			}
		}
	}
	if e.AppID != nil && e.App == "" && read {
		if app, err := r.s.store.AppGet(ctx, *e.AppID); err == nil {
			e.App = app.Name
		}
	}
	return e
}

func isDelete(action string) bool {
	switch action {
	case "deleteJob", "deleteWorkflow", "deleteApp", "revokeApiToken", "deleteCalendar", "deletePool":
		return true
	}
	return false
}

func derefID(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

func (r *Record) setApp(appID int64) {
	if appID != 0 && r.entry.AppID == nil {
		r.entry.AppID = &appID
	}
}

// load reads an object's snapshot, noting its app.
func (r *Record) load(ctx context.Context, kind, key string) map[string]any {
	st := r.s.store
	id, _ := strconv.ParseInt(key, 10, 64)
	var v any
	var err error
	switch kind {
	case KindApp, KindAppMember:
		var app *db.App
		if app, err = st.AppGetByName(ctx, key); err == nil {
			r.setApp(app.ID)
			r.entry.App = app.Name
			if kind == KindApp {
				v = app
				break
			}
			username, _ := r.args["username"].(string)
			r.entry.ObjectName = username
			u, uerr := st.UserGetByName(ctx, username)
			if uerr != nil {
				return nil
			}
			role, rerr := st.AppMemberGetRole(ctx, app.ID, u.ID)
			if rerr != nil || role == "" {
				return map[string]any{}
			}
			return map[string]any{"role": string(role)}
		}
	case KindJob:
		v, err = st.JobGet(ctx, id)
	case KindInstance:
		v, err = st.InstanceGet(ctx, id)
	case KindWorkflow:
		v, err = st.WorkflowGet(ctx, id)
	case KindWorkflowInstance:
		v, err = st.WorkflowInstanceGet(ctx, id)
	case KindAPIToken:
		v, err = st.APITokenGet(ctx, id)
	case KindCalendar:
		v, err = st.CalendarGet(ctx, id)
	case KindPool:
		v, err = st.PoolGet(ctx, id)
	case KindBackfill:
		v, err = st.BackfillGet(ctx, id)
	default:
		return nil
	}
	if err != nil {
		if !errors.Is(err, db.ErrNotFound) {
			r.s.log.Warn("audit: reading the object a mutation changes failed; its entry lacks the values before", "kind", kind, "key", key, "err", err)
		}
		return nil
	}
	if acting[r.entry.Action] {
		name, appID := identify(v)
		r.setApp(appID)
		return map[string]any{"name": name}
	}
	_, _, snap, appID := describe(v)
	r.setApp(appID)
	return snap
}

// identify names an object a mutation acts on, and its app.
func identify(v any) (name string, appID int64) {
	switch o := v.(type) {
	case *db.Job:
		return o.Name, o.AppID
	case *db.Workflow:
		return o.Name, o.AppID
	}
	_, _, snap, appID := describe(v)
	name, _ = snap["name"].(string)
	return name, appID
}

// describe names a resolver's result: its kind, id, snapshot and app.
func describe(v any) (kind, id string, snap map[string]any, appID int64) {
	if v == nil || (reflect.ValueOf(v).Kind() == reflect.Pointer && reflect.ValueOf(v).IsNil()) {
		return "", "", nil, 0
	}
	itoa := func(n int64) string { return strconv.FormatInt(n, 10) }
	switch o := v.(type) {
	case *db.App:
		return KindApp, itoa(o.ID), Snapshot(map[string]any{"name": o.Name, "description": o.Description}), o.ID
	case *db.Job:
		return KindJob, itoa(o.ID), Snapshot(o), o.AppID
	case *db.Instance:
		return KindInstance, itoa(o.ID), Snapshot(map[string]any{"status": o.Status, "attempt": o.Attempt, "reason": o.Reason}), o.AppID
	case *db.Workflow:
		return KindWorkflow, itoa(o.ID), Snapshot(o), o.AppID
	case *db.WorkflowInstance:
		return KindWorkflowInstance, itoa(o.ID), Snapshot(map[string]any{"status": o.Status}), o.AppID
	case *db.Calendar:
		return KindCalendar, itoa(o.ID), Snapshot(map[string]any{"name": o.Name, "description": o.Description, "dates": o.Dates}), o.AppID
	case *db.Pool:
		return KindPool, itoa(o.ID), Snapshot(map[string]any{"name": o.Name, "description": o.Description, "slots": o.Slots}), o.AppID
	case *db.Backfill:
		return KindBackfill, itoa(o.ID), Snapshot(map[string]any{"status": o.Status}), o.AppID
	case *db.User:
		return KindUser, itoa(o.ID), Snapshot(map[string]any{"username": o.Username, "admin": o.Admin}), 0
	case *db.APIToken:
		var app int64
		if o.AppID != nil {
			app = *o.AppID
		}
		return KindAPIToken, itoa(o.ID), Snapshot(map[string]any{"name": o.Name, "appId": o.AppID, "role": o.Role, "revokedAt": o.RevokedAt}), app
	}
	// Wrappers shown once with a secret (AppWithSecret, ApiTokenWithSecret):
	// only their object is described; the secret is never looked at.
	rv := reflect.Indirect(reflect.ValueOf(v))
	if rv.Kind() == reflect.Struct {
		for _, f := range []string{"App", "Token"} {
			if fv := rv.FieldByName(f); fv.IsValid() && fv.Kind() == reflect.Pointer {
				return describe(fv.Interface())
			}
		}
	}
	return "", "", nil, 0
}

// Page is one page of entries, newest first.
type Page struct {
	Entries []db.AuditEntry
	More    bool
}

// Filter selects what List returns.
type Filter struct {
	// App names the app; empty: every entry (administrators only).
	App string
	// ObjectType and ObjectID limit the list to one object.
	ObjectType, ObjectID string
	BeforeID             int64
	Limit                int
}

// List returns a page of entries, checking the caller may read them.
func (s *Service) List(ctx context.Context, f Filter) (*Page, error) {
	df, err := s.filter(ctx, f)
	if err != nil {
		return nil, err
	}
	df.BeforeID, df.Limit = f.BeforeID, f.Limit+1
	list, err := s.store.AuditList(ctx, df)
	if err != nil {
		return nil, err
	}
	p := &Page{Entries: list}
	if len(list) > f.Limit {
		p.Entries, p.More = list[:f.Limit], true
	}
	return p, nil
}

// Count counts the entries f selects.
func (s *Service) Count(ctx context.Context, f Filter) (int, error) {
	df, err := s.filter(ctx, f)
	if err != nil {
		return 0, err
	}
	return s.store.AuditCount(ctx, df)
}

func (s *Service) filter(ctx context.Context, f Filter) (db.AuditFilter, error) {
	df := db.AuditFilter{ObjectType: f.ObjectType, ObjectID: f.ObjectID}
	if f.App == "" {
		return df, s.auth.RequireAdmin(ctx)
	}
	app, err := s.apps.ByName(ctx, f.App, db.RoleViewer)
	if err != nil {
		return df, err
	}
	df.AppID = &app.ID
	return df, nil
}

func (s *Service) insert(ctx context.Context, e *db.AuditEntry) {
	if err := s.inserts.Do(ctx, e); err != nil {
		// The change is made; only its record is missing. Say so loudly.
		s.log.Error("audit: recording a mutation failed; it is missing from the audit log",
			"action", e.Action, "actor", e.Actor, "object", e.ObjectType+" "+e.ObjectID, "err", err)
	}
}

// endConfig records an apply of a managed set: a dry run changed nothing
// and is not recorded; a failed apply changed nothing either, and is
// recorded once with its outcome; a done one once per app, with what it
// did there.
func (r *Record) endConfig(ctx context.Context, result any, failed, message string) {
	if dry, ok := normalize(r.args["dryRun"]).(bool); ok && dry {
		return
	}
	e := r.entry
	// The input is the API's typed ConfigInput; its set names the entry.
	if in := reflect.Indirect(reflect.ValueOf(r.args["input"])); in.Kind() == reflect.Struct {
		if set := in.FieldByName("Set"); set.IsValid() && set.Kind() == reflect.String {
			e.ObjectID, e.ObjectName = set.String(), set.String()
		}
	}
	lister, ok := result.(ChangeLister)
	if failed != "" || !ok {
		e.Outcome = "OK"
		if failed != "" {
			e.Outcome, e.Error = failed, message
		}
		r.s.insert(ctx, &e)
		return
	}
	e.Outcome = "OK"
	for app, changes := range lister.AuditChanges() {
		one := e
		one.App, one.Changes = app, changes
		if a, err := r.s.store.AppGetByName(ctx, app); err == nil {
			one.AppID = &a.ID
		}
		r.s.insert(ctx, &one)
	}
}
