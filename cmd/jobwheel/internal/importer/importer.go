// Package importer reads a PowerJob (4.3–5.1) or xxl-job (2.x/3.x)
// database over the MySQL protocol and says what its apps, jobs and
// workflows become in jobwheel: for each object, the configuration
// document (package manifest) that declares it, and notes on what could
// not be carried over exactly — an approximation explained, or something
// a person has to do. It changes nothing anywhere: `jobwheel import`
// applies the documents as a managed set per app (docs/import.md has the
// mapping, field by field).
package importer

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jobwheel/jobwheel/cmd/jobwheel/internal/manifest"
)

// The systems an import reads.
const (
	PowerJob = "powerjob"
	XXLJob   = "xxl-job"
)

// Options say what to read and how to read it.
type Options struct {
	// Apps are the source apps to import, by their name there (PowerJob's
	// app_name, xxl-job's app_name); empty: every app.
	Apps []string
	// Location is the time zone the source's scheduler ran in: its cron
	// expressions are evaluated there, and its DATETIME columns hold
	// times there.
	Location *time.Location
}

// Plan is what an import makes of a source database.
type Plan struct {
	System string
	Apps   []*App
}

// App is one source app and what it becomes.
type App struct {
	// Name is the jobwheel app's name; SourceName the app's name in the
	// source, Source where it was read ("xxl_job_group 3").
	Name, SourceName, Source string
	Description              string
	Notes                    []Note
	// Objects are its jobs, then its workflows, each list by name.
	Objects []*Object
}

// Object is one job or workflow and what it becomes.
type Object struct {
	// Kind is manifest.KindJob or manifest.KindWorkflow.
	Kind string
	Name string
	// Source is where it was read from ("job_info 12"), with what the
	// source called it when the name differs.
	Source string
	// SourceEnabled says whether it was enabled (scheduled) in the source.
	SourceEnabled bool
	// Blocked says it cannot run as imported: it stays disabled, even
	// with --enable, until a person has done what its notes say.
	Blocked bool
	// Skip says why it is not imported at all ("" if it is).
	Skip string
	// Summary says in a line what it becomes.
	Summary string
	Notes   []Note
	// Spec is a *manifest.JobSpec or *manifest.WorkflowSpec; the caller
	// sets Enabled.
	Spec any
	// Versions are a job's earlier versions, oldest first.
	Versions []Version

	// paramsRun says the source ran the job's params (a PowerJob official
	// processor's script or request), which the processor holds now.
	paramsRun bool
}

// Note levels.
const (
	// Approx: carried over as closely as jobwheel allows; the note says
	// how it differs. Nothing to do.
	Approx = "approx"
	// Person: needs a person before the object is enabled.
	Person = "person"
)

// Note is one thing an object's import could not carry over exactly.
type Note struct {
	Level string `json:"level"`
	Text  string `json:"text"`
}

// Version is an earlier version of a job: its processor then, who made it
// and when.
type Version struct {
	ProcessorType, Processor string
	Author                   string
	CreatedAt                *time.Time
	// Remark is the source's note on the version (xxl-job's glue_remark),
	// for the report: jobwheel versions keep no remark.
	Remark string
}

func (o *Object) approx(format string, args ...any) {
	o.Notes = append(o.Notes, Note{Approx, fmt.Sprintf(format, args...)})
}

func (o *Object) person(format string, args ...any) {
	o.Notes = append(o.Notes, Note{Person, fmt.Sprintf(format, args...)})
}

// block notes what a person must do before the object can run.
func (o *Object) block(format string, args ...any) {
	o.Blocked = true
	o.person(format, args...)
}

func (a *App) approx(format string, args ...any) {
	a.Notes = append(a.Notes, Note{Approx, fmt.Sprintf(format, args...)})
}

// NeedsPerson says whether any note asks for a person.
func NeedsPerson(notes []Note) bool {
	return slices.ContainsFunc(notes, func(n Note) bool { return n.Level == Person })
}

// Read reads the source database db of system and plans its import.
func Read(ctx context.Context, db *sql.DB, system string, opt Options) (*Plan, error) {
	if opt.Location == nil {
		opt.Location = time.UTC
	}
	s := &source{db: db, loc: opt.Location}
	var (
		apps []*App
		err  error
	)
	switch system {
	case PowerJob:
		apps, err = s.powerJob(ctx, opt.Apps)
	case XXLJob:
		apps, err = s.xxlJob(ctx, opt.Apps)
	default:
		return nil, fmt.Errorf("unknown system %q: powerjob or xxl-job", system)
	}
	if err != nil {
		return nil, err
	}
	for _, a := range apps {
		propagate(a)
		sortObjects(a)
	}
	return &Plan{System: system, Apps: apps}, nil
}

// missingApps names the requested apps the source does not have.
func missingApps(want []string, found map[string]bool, system string) error {
	var missing []string
	for _, w := range want {
		if !found[w] {
			missing = append(missing, fmt.Sprintf("%q", w))
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("the %s database has no app named %s", system, strings.Join(missing, ", "))
	}
	return nil
}

// propagate carries what stops an object up to the workflows that run
// it: a workflow running a job (or nesting a workflow) that cannot run
// cannot either, and one running an object left out is left out.
func propagate(a *App) {
	objs := map[string]*Object{}
	for _, o := range a.Objects {
		objs[o.Kind+"\x00"+o.Name] = o
	}
	for changed := true; changed; {
		changed = false
		for _, w := range a.Objects {
			spec, ok := w.Spec.(*manifest.WorkflowSpec)
			if !ok || w.Skip != "" {
				continue
			}
			for _, n := range spec.Nodes {
				var dep *Object
				switch {
				case n.Job != nil:
					dep = objs[manifest.KindJob+"\x00"+*n.Job]
				case n.Workflow != nil:
					dep = objs[manifest.KindWorkflow+"\x00"+*n.Workflow]
				}
				switch {
				case dep == nil:
				case dep.Skip != "":
					w.Skip = fmt.Sprintf("node %s runs %s %q, which is not imported", n.Key, strings.ToLower(dep.Kind), dep.Name)
					changed = true
				case dep.Blocked && !w.Blocked:
					w.block("node %s runs %s %q, which cannot run as imported (see it)", n.Key, strings.ToLower(dep.Kind), dep.Name)
					changed = true
				}
				if w.Skip != "" {
					break
				}
			}
		}
	}
}

// sortObjects orders an app's objects: jobs, then workflows, each by name.
func sortObjects(a *App) {
	slices.SortStableFunc(a.Objects, func(x, y *Object) int {
		if x.Kind != y.Kind {
			if x.Kind == manifest.KindJob {
				return -1
			}
			return 1
		}
		return strings.Compare(x.Name, y.Name)
	})
}

// Detect says which system's tables the database holds: PowerJob's
// (app_info, job_info, workflow_info) or xxl-job's (xxl_job_group,
// xxl_job_info).
func Detect(ctx context.Context, db *sql.DB) (string, error) {
	tables, err := tableNames(ctx, db)
	if err != nil {
		return "", err
	}
	pj := tables["app_info"] && tables["job_info"] && tables["workflow_info"]
	xx := tables["xxl_job_group"] && tables["xxl_job_info"]
	switch {
	case pj && xx:
		return "", fmt.Errorf("the database holds both PowerJob's and xxl-job's tables: say which to import with --from powerjob or --from xxl-job")
	case pj:
		return PowerJob, nil
	case xx:
		return XXLJob, nil
	}
	return "", fmt.Errorf("the database holds neither PowerJob's tables (app_info, job_info, workflow_info) nor xxl-job's (xxl_job_group, xxl_job_info): is it the right database?")
}

func tableNames(ctx context.Context, db *sql.DB) (map[string]bool, error) {
	rows, err := db.QueryContext(ctx, `SELECT LOWER(TABLE_NAME) FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE()`)
	if err != nil {
		return nil, fmt.Errorf("listing the database's tables: %w", err)
	}
	defer func() { _ = rows.Close() }()
	out := map[string]bool{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, fmt.Errorf("listing the database's tables: %w", err)
		}
		out[name] = true
	}
	return out, rows.Err()
}
