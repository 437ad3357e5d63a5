package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/jobwheel/jobwheel/cmd/jobwheel/internal/importer"
	"github.com/jobwheel/jobwheel/cmd/jobwheel/internal/manifest"
	"github.com/jobwheel/jobwheel/graph/client"
)

// importFlags say what to import and how.
type importFlags struct {
	from, zone         string
	all, dry, enable   bool
	adopt              bool
	timeZone           *time.Location
	dsnName, sourceDSN string
}

const importHelp = `Import the apps, jobs and workflows of a PowerJob (4.3–5.1) or xxl-job
(2.x/3.x) database into this server (docs/import.md has the mapping, field
by field). The database is read over the MySQL protocol and never written.

Each source app becomes a jobwheel app of the same name (created if need
be; its workers' secret is printed once) holding its jobs and workflows as
the managed set "import-powerjob-<app>" or "import-xxl-job-<app>": an
object is matched by name, so importing again updates what changed in the
source and duplicates nothing. Imported jobs and workflows start disabled,
so the old scheduler can keep running them while you cut over job by job;
with --enable, each is enabled as it is in the source. An object that is in
jobwheel already keeps its enabled state unless --enable.

Every object is reported: what it becomes, how it differs where jobwheel
has no exact counterpart (~), and what needs a person (!) — a Groovy
decision to rewrite, a GLUE(Java) job to port, designated workers to check.
An object that cannot run as imported stays disabled even with --enable.
The server checks every object first; one it refuses is named with the
reason and left out, and the rest of its app is imported.

The database is DSN (user:password@tcp(host:3306)/db, or
mysql://user:password@host:3306/db), else $JOBWHEEL_IMPORT_DSN, which keeps
the password out of the command line.`

func (c *cli) importCmd() *cobra.Command {
	var f importFlags
	cmd := &cobra.Command{
		Use:   "import [DSN] --time-zone ZONE (--app APP | --all)",
		Short: "Import apps, jobs and workflows from a PowerJob or xxl-job database",
		Long:  importHelp,
		Example: `  export JOBWHEEL_IMPORT_DSN='reader:secret@tcp(db.internal:3306)/xxl_job'
  jobwheel import --all --time-zone Asia/Shanghai --dry-run
  jobwheel import --app order-executor --time-zone Asia/Shanghai
  jobwheel import 'root@tcp(127.0.0.1:3306)/powerjob' --from powerjob --all --time-zone Asia/Shanghai --enable`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				f.sourceDSN = args[0]
			} else {
				f.sourceDSN = c.getenv("JOBWHEEL_IMPORT_DSN")
			}
			if err := c.checkImportFlags(&f); err != nil {
				return err
			}
			return c.runImport(cmd.Context(), &f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.from, "from", "", "the system the database is: powerjob or xxl-job (default: found from its tables)")
	fl.StringVar(&f.zone, "time-zone", "", "the time zone the old scheduler's server ran in, e.g. Asia/Shanghai: cron expressions are evaluated there (required)")
	fl.BoolVar(&f.all, "all", false, "import every app of the database (else --app names one)")
	fl.BoolVar(&f.dry, "dry-run", false, "report what the import would do, changing nothing")
	fl.BoolVar(&f.enable, "enable", false, "enable each object as it is enabled in the source (else imported objects start disabled)")
	fl.BoolVar(&f.adopt, "adopt", false, "take over objects of the same names that another file set manages")
	_ = cmd.RegisterFlagCompletionFunc("from", cobra.FixedCompletions([]string{importer.PowerJob, importer.XXLJob}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

func (c *cli) checkImportFlags(f *importFlags) error {
	switch {
	case f.sourceDSN == "":
		return usagef("name the database to import: DSN (e.g. 'user:password@tcp(host:3306)/xxl_job'), or $JOBWHEEL_IMPORT_DSN")
	case f.from != "" && f.from != importer.PowerJob && f.from != importer.XXLJob:
		return usagef("--from %q: use powerjob or xxl-job", f.from)
	case c.app == "" && !f.all:
		return usagef("say what to import: --app APP (an app of the source, by its app_name) or --all")
	case c.app != "" && f.all:
		return usagef("--app and --all exclude each other: --app imports one app, --all every app")
	case f.zone == "":
		return usagef("--time-zone is required: name the time zone the old scheduler's server ran in (e.g. Asia/Shanghai), which its cron expressions and times are in")
	}
	loc, err := time.LoadLocation(f.zone)
	if err != nil || f.zone == "Local" {
		return usagef("--time-zone %q is not an IANA time zone name such as Asia/Shanghai or UTC", f.zone)
	}
	f.timeZone = loc
	return nil
}

// Outcome of one object.
const (
	actionRefused = "REFUSED"
	actionSkipped = "SKIPPED"
	// actionKept: another set manages the object now (a team took it
	// over, or a worker's code declares it); the import leaves it alone.
	actionKept = "KEPT"
)

// importedObject is one object's outcome, for the report.
type importedObject struct {
	Kind    string          `json:"kind"`
	Name    string          `json:"name"`
	Source  string          `json:"source"`
	Action  string          `json:"action"`
	Fields  []string        `json:"fields,omitempty"`
	Enabled bool            `json:"enabled"`
	Summary string          `json:"summary"`
	Reason  string          `json:"reason,omitempty"`
	Notes   []importer.Note `json:"notes"`
	// Versions are the earlier versions sent with a new job.
	Versions int `json:"versions,omitempty"`

	obj *importer.Object
	// existed says jobwheel had the object before: its history is its
	// own, so no earlier versions are sent.
	existed bool
}

// importedApp is one app's outcome.
type importedApp struct {
	Name   string            `json:"name"`
	Source string            `json:"source"`
	Set    string            `json:"set"`
	Action string            `json:"action"`
	Error  string            `json:"error,omitempty"`
	Notes  []importer.Note   `json:"notes"`
	Items  []*importedObject `json:"objects"`
}

// importReport is what the command prints.
type importReport struct {
	System   string         `json:"system"`
	Database string         `json:"database"`
	TimeZone string         `json:"timeZone"`
	DryRun   bool           `json:"dryRun"`
	Apps     []*importedApp `json:"apps"`
}

func (c *cli) runImport(ctx context.Context, f *importFlags) error {
	db, name, err := importer.Open(ctx, f.sourceDSN)
	if err != nil {
		return err
	}
	defer func() { _ = db.Close() }()
	f.dsnName = name
	system := f.from
	if system == "" {
		if system, err = importer.Detect(ctx, db); err != nil {
			return err
		}
	}
	opt := importer.Options{Location: f.timeZone}
	if c.app != "" {
		opt.Apps = []string{c.app}
	}
	plan, err := importer.Read(ctx, db, system, opt)
	if err != nil {
		return fmt.Errorf("reading the %s database %s: %w", system, name, err)
	}
	if len(plan.Apps) == 0 {
		return fmt.Errorf("the %s database %s has no apps", system, name)
	}
	cl, err := c.client()
	if err != nil {
		return err
	}
	var have struct{ Apps []struct{ Name string } }
	if err := c.do(ctx, cl, `{ apps { name } }`, nil, &have); err != nil {
		return err
	}
	exists := map[string]bool{}
	for _, a := range have.Apps {
		exists[a.Name] = true
	}
	rep := &importReport{System: system, Database: name, TimeZone: f.timeZone.String(), DryRun: f.dry}
	failed := false
	for _, a := range plan.Apps {
		out, err := c.importApp(ctx, cl, f, system, a, exists[a.Name])
		if err != nil {
			if ctx.Err() != nil {
				return err
			}
			out.Error = c.explain(err).Error()
			failed = true
		}
		rep.Apps = append(rep.Apps, out)
	}
	if c.output != "table" {
		if err := c.show(rep, nil, nil); err != nil {
			return err
		}
	} else {
		writeImportReport(c.stdout, rep)
	}
	left := 0
	for _, a := range rep.Apps {
		for _, o := range a.Items {
			if o.Action == actionRefused || o.Action == actionSkipped {
				left++
			}
		}
	}
	switch {
	case failed:
		return &exitCode{code: exitError, err: errors.New("some apps were not imported (see the report)")}
	case left > 0 && !f.dry:
		return &exitCode{code: exitError, err: fmt.Errorf("%d object(s) were not imported (see the report); the rest were", left)}
	case left > 0:
		return &exitCode{code: exitError, err: fmt.Errorf("%d object(s) would not be imported (see the report)", left)}
	}
	return nil
}

// importApp imports one app: creates it if need be, then applies its
// objects as a managed set, leaving out what the server refuses.
func (c *cli) importApp(ctx context.Context, cl *client.Client, f *importFlags, system string, a *importer.App, exists bool) (*importedApp, error) {
	out := &importedApp{Name: a.Name, Source: a.Source, Set: "import-" + system + "-" + a.Name, Notes: append([]importer.Note{}, a.Notes...)}
	if exists {
		out.Action = "UNCHANGED"
	} else {
		out.Action = "CREATE"
	}
	for _, o := range a.Objects {
		item := &importedObject{Kind: o.Kind, Name: o.Name, Source: o.Source, Summary: o.Summary, Notes: append([]importer.Note{}, o.Notes...),
			obj: o, Versions: len(o.Versions)}
		if o.Skip != "" {
			item.Action, item.Reason = actionSkipped, o.Skip
		}
		out.Items = append(out.Items, item)
	}

	// Enabled: as in the source with --enable (unless it cannot run),
	// else as it is in jobwheel already, else disabled.
	current := map[string]bool{}
	if exists {
		var err error
		if current, err = c.enabledStates(ctx, cl, a.Name); err != nil {
			return out, err
		}
	}
	for _, it := range out.Items {
		on, known := current[it.Kind+"\x00"+it.Name]
		it.existed = known
		if known {
			it.Versions = 0
		}
		// What cannot run as imported is never turned on; what a person
		// turned on in jobwheel is never turned off for it.
		switch {
		case f.enable && !it.obj.Blocked:
			on = it.obj.SourceEnabled
		case !known:
			on = false
		}
		it.Enabled = on
		switch s := it.obj.Spec.(type) {
		case *manifest.JobSpec:
			s.Enabled = &on
		case *manifest.WorkflowSpec:
			s.Enabled = &on
		}
	}

	if !exists {
		if f.dry {
			// applyConfig needs the app: the server reads the schedules
			// alone, which is what it refuses most.
			if err := c.checkSchedules(ctx, cl, out); err != nil {
				return out, err
			}
			for _, it := range out.Items {
				if it.Action == "" {
					it.Action = "CREATE"
				}
			}
			return out, nil
		}
		var created struct {
			CreateApp struct{ Secret string }
		}
		if err := c.do(ctx, cl, `mutation($name: String!, $d: String) { createApp(name: $name, description: $d) { secret } }`,
			map[string]any{"name": a.Name, "d": a.Description}, &created); err != nil {
			return out, fmt.Errorf("creating app %q: %w", a.Name, err)
		}
		fmt.Fprintf(c.stderr, "created app %s; its workers authenticate with JOBWHEEL_APP=%s JOBWHEEL_APP_SECRET=%s (shown this once)\n",
			a.Name, a.Name, created.CreateApp.Secret)
	}

	// Check the set without changing anything, leaving out each object
	// the server refuses, until it takes the rest; then apply that.
	for {
		in, index, versions := importInput(out)
		res, err := c.applyImport(ctx, cl, out, in, f, true)
		if err == nil {
			if !f.dry {
				if res, err = c.applyImport(ctx, cl, out, in, f, false); err != nil {
					return out, err
				}
			}
			byKey := map[string]*importedObject{}
			for _, it := range out.Items {
				byKey[strings.ToUpper(it.Kind)+"\x00"+it.Name] = it
			}
			for _, ch := range res.Changes {
				if it := byKey[ch.Kind+"\x00"+ch.Name]; it != nil {
					it.Action, it.Fields = ch.Action, ch.Fields
				}
			}
			return out, nil
		}
		field, reason, ok := refusal(err)
		if !ok {
			return out, err
		}
		m := refusedEntry.FindStringSubmatch(field)
		if m == nil {
			return out, err
		}
		i, _ := strconv.Atoi(m[2])
		var it *importedObject
		switch m[1] {
		case "jobVersions":
			if i >= len(versions) {
				return out, err
			}
			v := versions[i]
			it = v.item
			it.obj.Versions = append(it.obj.Versions[:v.index:v.index], it.obj.Versions[v.index+1:]...)
			it.Versions--
			it.Notes = append(it.Notes, importer.Note{Level: importer.Approx,
				Text: fmt.Sprintf("an earlier version is not kept: the server refused it (%s: %s)", strings.TrimPrefix(m[3], "."), reason)})
			continue
		default:
			it = index[m[1]+"["+m[2]+"]"]
		}
		if it == nil {
			return out, err
		}
		// An alarm channel the server will not send to (an address it
		// cannot read, a webhook its network policy forbids) is left out
		// of the object rather than the object.
		if ch := refusedChannel.FindStringSubmatch(m[3]); ch != nil {
			k, _ := strconv.Atoi(ch[1])
			if dropChannel(it.obj.Spec, k) {
				it.Notes = append(it.Notes, importer.Note{Level: importer.Person,
					Text: fmt.Sprintf("an alarm channel is left out: the server refused it (%s); add whom to alarm by hand", reason)})
				continue
			}
		}
		if m[3] == ".name" && (strings.Contains(reason, "is managed by the file set") || strings.Contains(reason, "is declared in the code of workers")) {
			it.Action, it.Reason = actionKept, reason
			continue
		}
		refuse(it, strings.TrimPrefix(m[3], "."), reason)
	}
}

var (
	refusedEntry   = regexp.MustCompile(`^(jobs|workflows|jobVersions)\[(\d+)\](.*)$`)
	refusedChannel = regexp.MustCompile(`^\.alarm\.channels\[(\d+)\]`)
)

// refuse marks an object as left out, with the field the server named and
// its reason.
func refuse(it *importedObject, field, reason string) {
	it.Action, it.Reason = actionRefused, reason
	if field != "" {
		it.Reason = field + ": " + reason
	}
}

// dropChannel removes alarm channel k of a job's or workflow's spec.
func dropChannel(spec any, k int) bool {
	var a *manifest.Alarm
	switch s := spec.(type) {
	case *manifest.JobSpec:
		a = s.Alarm
	case *manifest.WorkflowSpec:
		a = s.Alarm
	}
	if a == nil || k >= len(a.Channels) {
		return false
	}
	a.Channels = append(a.Channels[:k:k], a.Channels[k+1:]...)
	return true
}

// refusal is the field and reason of a BAD_INPUT error.
func refusal(err error) (field, reason string, ok bool) {
	var gqlErrs client.Errors
	if !errors.As(err, &gqlErrs) || len(gqlErrs) == 0 || gqlErrs[0].Code() != "BAD_INPUT" {
		return "", "", false
	}
	e := gqlErrs[0]
	field = e.Field()
	return field, strings.TrimPrefix(e.Message, field+": "), field != ""
}

// sentVersion is an entry of jobVersions: whose, and which.
type sentVersion struct {
	item  *importedObject
	index int
}

// importInput is applyConfig's input for the objects still in the set,
// with where each entry came from.
func importInput(out *importedApp) (map[string]any, map[string]*importedObject, []sentVersion) {
	jobs, wfs, versions := []any{}, []any{}, []any{}
	index := map[string]*importedObject{}
	var sent []sentVersion
	for _, it := range out.Items {
		if it.Action == actionRefused || it.Action == actionSkipped || it.Action == actionKept {
			continue
		}
		docs, err := manifest.ToInput([]*manifest.Document{{APIVersion: manifest.APIVersion, Kind: it.Kind,
			Metadata: manifest.Metadata{App: out.Name, Name: it.Name}, Spec: it.obj.Spec}})
		if err != nil {
			continue // a spec of the importer's own making always encodes
		}
		switch it.Kind {
		case manifest.KindJob:
			index[fmt.Sprintf("jobs[%d]", len(jobs))] = it
			jobs = append(jobs, docs.Jobs[0])
			if it.existed {
				break
			}
			for k, v := range it.obj.Versions {
				ver := map[string]any{"app": out.Name, "name": it.Name, "processorType": v.ProcessorType, "processor": v.Processor}
				if v.Author != "" {
					ver["author"] = v.Author
				}
				if v.CreatedAt != nil {
					ver["createdAt"] = v.CreatedAt.UTC().Format(time.RFC3339)
				}
				versions = append(versions, ver)
				sent = append(sent, sentVersion{it, k})
			}
		case manifest.KindWorkflow:
			index[fmt.Sprintf("workflows[%d]", len(wfs))] = it
			wfs = append(wfs, docs.Workflows[0])
		}
	}
	in := map[string]any{"set": out.Set, "apps": []string{out.Name}, "jobs": jobs, "workflows": wfs}
	if len(versions) > 0 {
		in["jobVersions"] = versions
	}
	return in, index, sent
}

func (c *cli) applyImport(ctx context.Context, cl *client.Client, out *importedApp, in map[string]any, f *importFlags, dry bool) (*applied, error) {
	in["adopt"] = f.adopt
	var res struct{ ApplyConfig applied }
	err := c.do(ctx, cl, `mutation($in: ConfigInput!, $dry: Boolean) { applyConfig(input: $in, dryRun: $dry) {
		applied changes { kind app name action fields } } }`, map[string]any{"in": in, "dry": dry}, &res)
	if err != nil && !dry {
		if _, _, ok := refusal(err); !ok {
			err = fmt.Errorf("%w (applying app %s's set %s, which is applied whole or not at all: run the import again)", c.explain(err), out.Name, out.Set)
		}
	}
	return &res.ApplyConfig, err
}

// checkSchedules asks the server to read each object's schedule as it
// would on import (previewSchedule, many to a request), for a dry run of
// an app the import would create, which applyConfig cannot check. An
// object whose schedule it refuses is marked refused, and so is a
// workflow running one.
func (c *cli) checkSchedules(ctx context.Context, cl *client.Client, out *importedApp) error {
	type check struct {
		it   *importedObject
		vars map[string]any
	}
	var list []check
	for _, it := range out.Items {
		if it.Action != "" {
			continue
		}
		var typ string
		var expr, zone *string
		var window *manifest.ScheduleWindow
		switch s := it.obj.Spec.(type) {
		case *manifest.JobSpec:
			typ, expr, zone, window = s.ScheduleType, s.ScheduleExpression, s.TimeZone, s.ScheduleWindow
		case *manifest.WorkflowSpec:
			typ, expr, zone = s.ScheduleType, s.ScheduleExpression, s.TimeZone
		}
		if typ != "CRON" && typ != "FIXED_RATE" && typ != "FIXED_DELAY" {
			continue
		}
		list = append(list, check{it, map[string]any{"t": typ, "e": deref(expr), "z": zone, "w": window}})
	}
	const perRequest = 25
	for start := 0; start < len(list); start += perRequest {
		chunk := list[start:min(start+perRequest, len(list))]
		var decl, fields []string
		vars := map[string]any{}
		for i, ch := range chunk {
			decl = append(decl, fmt.Sprintf("$t%d: ScheduleType!, $e%d: String!, $z%d: String, $w%d: ScheduleWindowInput", i, i, i, i))
			fields = append(fields, fmt.Sprintf("p%d: previewSchedule(type: $t%d, expression: $e%d, timeZone: $z%d, window: $w%d, count: 1)", i, i, i, i, i))
			for k, v := range ch.vars {
				vars[fmt.Sprintf("%s%d", k, i)] = v
			}
		}
		err := c.do(ctx, cl, "query("+strings.Join(decl, ", ")+") { "+strings.Join(fields, " ")+" }", vars, nil)
		var gqlErrs client.Errors
		switch {
		case err == nil:
			continue
		case !errors.As(err, &gqlErrs):
			return err
		}
		for _, e := range gqlErrs {
			alias := ""
			if len(e.Path) > 0 {
				alias, _ = e.Path[0].(string)
			}
			i, perr := strconv.Atoi(strings.TrimPrefix(alias, "p"))
			if e.Code() != "BAD_INPUT" || perr != nil || i < 0 || i >= len(chunk) {
				return err
			}
			field := map[string]string{"expression": "scheduleExpression", "type": "scheduleType"}[e.Field()]
			if w, ok := strings.CutPrefix(e.Field(), "window"); ok {
				field = "scheduleWindow" + w
			}
			refuse(chunk[i].it, field, strings.TrimPrefix(e.Message, e.Field()+": "))
		}
	}
	// A workflow running a job (or nesting a workflow) left out would be
	// refused for it.
	left := map[string]bool{}
	for changed := true; changed; {
		changed = false
		for _, it := range out.Items {
			if it.Action == actionRefused || it.Action == actionSkipped {
				left[it.Kind+"\x00"+it.Name] = true
				continue
			}
			w, ok := it.obj.Spec.(*manifest.WorkflowSpec)
			if !ok {
				continue
			}
			for _, n := range w.Nodes {
				switch {
				case n.Job != nil && left[manifest.KindJob+"\x00"+*n.Job]:
					refuse(it, "nodes", fmt.Sprintf("node %s runs job %q, which would not be imported", n.Key, *n.Job))
				case n.Workflow != nil && left[manifest.KindWorkflow+"\x00"+*n.Workflow]:
					refuse(it, "nodes", fmt.Sprintf("node %s nests workflow %q, which would not be imported", n.Key, *n.Workflow))
				default:
					continue
				}
				changed = true
				break
			}
		}
	}
	return nil
}

// enabledStates are whether an app's jobs and workflows are enabled, by
// kind and name.
func (c *cli) enabledStates(ctx context.Context, cl *client.Client, app string) (map[string]bool, error) {
	out := map[string]bool{}
	for _, kind := range []string{manifest.KindJob, manifest.KindWorkflow} {
		list := "jobs"
		if kind == manifest.KindWorkflow {
			list = "workflows"
		}
		var after any
		for {
			var page struct {
				List struct {
					PageInfo pageInfo
					Edges    []struct {
						Node struct {
							Name    string
							Enabled bool
						}
					}
				}
			}
			if err := c.do(ctx, cl, `query($app: String!, $after: String) { list: `+list+`(app: $app, first: 500, after: $after) {
				pageInfo { hasNextPage endCursor } edges { node { name enabled } } } }`, map[string]any{"app": app, "after": after}, &page); err != nil {
				return nil, err
			}
			for _, e := range page.List.Edges {
				out[kind+"\x00"+e.Node.Name] = e.Node.Enabled
			}
			if !page.List.PageInfo.HasNextPage {
				break
			}
			after = deref(page.List.PageInfo.EndCursor)
		}
	}
	return out, nil
}

// writeImportReport prints the report for people: per app, per object,
// what it becomes, then its notes: ~ how it differs, ! what needs a
// person.
func writeImportReport(w io.Writer, rep *importReport) {
	words := pastTense
	if rep.DryRun {
		words = conditional
	}
	mode := ""
	if rep.DryRun {
		mode = " (dry run: nothing is changed)"
	}
	fmt.Fprintf(w, "Import from %s %s, its schedules in %s%s\n", rep.System, rep.Database, rep.TimeZone, mode)
	counts := map[string]int{}
	people := 0
	for _, a := range rep.Apps {
		fmt.Fprintln(w)
		action := "exists"
		if a.Action == "CREATE" {
			action = words["CREATE"]
		}
		fmt.Fprintf(w, "app %s (from %s, as set %s): %s\n", a.Name, a.Source, a.Set, action)
		writeNotes(w, "    ", a.Notes)
		if a.Error != "" {
			fmt.Fprintf(w, "    NOT IMPORTED: %s\n", a.Error)
		}
		for _, o := range a.Items {
			counts[o.Action]++
			if importer.NeedsPerson(o.Notes) && o.Action != actionKept {
				people++
			}
			fmt.Fprintf(w, "  %s %s (from %s): ", strings.ToLower(o.Kind), o.Name, o.Source)
			switch o.Action {
			case actionRefused:
				fmt.Fprintf(w, "NOT IMPORTED: the server refuses it: %s\n", o.Reason)
			case actionSkipped:
				fmt.Fprintf(w, "NOT IMPORTED: %s\n", o.Reason)
			case actionKept:
				fmt.Fprintf(w, "left as it is: %s\n", o.Reason)
				continue
			case "":
				fmt.Fprintln(w, "not applied (the app's import failed)")
			default:
				state := "disabled"
				if o.Enabled {
					state = "enabled"
				}
				line := words[o.Action]
				if o.Action == "UPDATE" && len(o.Fields) > 0 {
					line += " (" + strings.Join(o.Fields, ", ") + ")"
				}
				fmt.Fprintf(w, "%s, %s\n", line, state)
			}
			if o.Action != actionSkipped {
				fmt.Fprintf(w, "      %s\n", o.Summary)
			}
			if o.Versions > 0 && o.Action == "CREATE" {
				fmt.Fprintf(w, "      with %d earlier version(s) of its script, oldest first:\n", o.Versions)
				for i, v := range o.obj.Versions {
					when := ""
					if v.CreatedAt != nil {
						when = v.CreatedAt.Format("2006-01-02 15:04") + " "
					}
					fmt.Fprintf(w, "        version %d: %s%s %q\n", i+1, when, v.ProcessorType, v.Remark)
				}
			}
			writeNotes(w, "      ", o.Notes)
		}
	}
	fmt.Fprintln(w)
	verb := "imported"
	if rep.DryRun {
		verb = "would be imported"
	}
	kept := ""
	if counts[actionKept] > 0 {
		kept = fmt.Sprintf("; %d left to the set that manages it now", counts[actionKept])
	}
	fmt.Fprintf(w, "%d app(s): %d object(s) %s (%d created, %d updated, %d unchanged)%s; %d not imported; %d need a person (!)\n",
		len(rep.Apps), counts["CREATE"]+counts["UPDATE"]+counts["UNCHANGED"], verb, counts["CREATE"], counts["UPDATE"], counts["UNCHANGED"],
		kept, counts[actionRefused]+counts[actionSkipped], people)
}

func writeNotes(w io.Writer, indent string, notes []importer.Note) {
	for _, n := range notes {
		mark := "~"
		if n.Level == importer.Person {
			mark = "! needs a person:"
		}
		fmt.Fprintf(w, "%s%s %s\n", indent, mark, n.Text)
	}
}
