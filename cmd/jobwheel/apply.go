package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/pmezard/go-difflib/difflib"
	"github.com/spf13/cobra"

	"github.com/jobwheel/jobwheel/cmd/jobwheel/internal/manifest"
	"github.com/jobwheel/jobwheel/graph/client"
)

// setFlags say which files make the set, and how to apply it.
type setFlags struct {
	files     []string
	set       string
	prune     bool
	adopt     bool
	pruneApps []string
}

func (f *setFlags) add(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringArrayVarP(&f.files, "filename", "f", nil, "a YAML file, a directory of them (read at any depth), or - for standard input; repeatable")
	fl.StringVar(&f.set, "set", "", "the managed set's name (default: the documents' "+manifest.SetLabel+" label, else the directory's name)")
	fl.BoolVar(&f.prune, "prune", false, "delete the set's objects that the files no longer declare")
	fl.BoolVar(&f.adopt, "adopt", false, "take over objects of these names that another file set manages")
	fl.StringArrayVar(&f.pruneApps, "prune-app", nil, "prune in this app too although no document names it (all its documents were removed); repeatable")
	_ = cmd.MarkFlagRequired("filename")
	_ = cmd.MarkFlagFilename("filename", "yaml", "yml")
}

// loaded is a set read from files, ready for applyConfig.
type loaded struct {
	docs  []*manifest.Document
	input *manifest.Input
	set   string
	apps  []string
}

// load reads and checks the files; document errors are printed, one a
// line, and end the command.
func (c *cli) load(f *setFlags) (*loaded, error) {
	files, err := manifest.Files(f.files)
	if err != nil {
		return nil, err
	}
	docs, err := manifest.ReadFiles(files, c.stdin)
	var bad manifest.Errors
	if errors.As(err, &bad) {
		for _, e := range bad {
			fmt.Fprintln(c.stderr, e)
		}
		return nil, &exitCode{code: exitError, err: fmt.Errorf("%d error(s) in the documents; nothing was applied", len(bad))}
	}
	if err != nil {
		return nil, err
	}
	if len(docs) == 0 {
		return nil, fmt.Errorf("the files hold no documents")
	}
	set, err := manifest.SetName(f.set, docs, f.files)
	if err != nil {
		return nil, err
	}
	in, err := manifest.ToInput(docs)
	if err != nil {
		return nil, err
	}
	apps := manifest.Apps(docs)
	for _, a := range f.pruneApps {
		if !slices.Contains(apps, a) {
			apps = append(apps, a)
		}
	}
	return &loaded{docs: docs, input: in, set: set, apps: apps}, nil
}

// change is one entry of applyConfig's answer.
type change struct {
	Kind   string   `json:"kind"`
	App    string   `json:"app"`
	Name   string   `json:"name"`
	Action string   `json:"action"`
	Fields []string `json:"fields"`
}

type applied struct {
	Set     string   `json:"set"`
	Applied bool     `json:"applied"`
	Changes []change `json:"changes"`
}

// applyConfig sends the set; a BAD_INPUT is turned into an error naming
// the document and its field.
func (c *cli) applyConfig(ctx context.Context, cl *client.Client, l *loaded, f *setFlags, dry bool) (*applied, error) {
	in := map[string]any{"set": l.set, "apps": l.apps, "calendars": l.input.Calendars, "jobs": l.input.Jobs,
		"workflows": l.input.Workflows, "prune": f.prune, "adopt": f.adopt}
	var out struct{ ApplyConfig applied }
	err := c.do(ctx, cl, `mutation($in: ConfigInput!, $dry: Boolean) { applyConfig(input: $in, dryRun: $dry) {
		applied changes { kind app name action fields } } }`, map[string]any{"in": in, "dry": dry}, &out)
	if err != nil {
		var gqlErrs client.Errors
		if errors.As(err, &gqlErrs) && len(gqlErrs) > 0 {
			e := gqlErrs[0]
			if field := e.Field(); field != "" {
				reason := strings.TrimPrefix(e.Message, field+": ")
				if located, ok := l.input.Locate(field, reason); ok {
					err = located
				}
			}
			if e.Code() == "BAD_INPUT" || e.Code() == "CONFLICT" {
				what := "nothing was applied"
				if dry {
					what = "the set cannot be applied as it is"
				}
				return nil, &exitCode{code: exitError, err: fmt.Errorf("%w\n%s (a set is applied whole or not at all)", c.explain(err), what)}
			}
			return nil, err
		}
		if !dry {
			// No answer: the server may have committed the set or not (it
			// is one transaction, so it did all of it or none).
			return nil, &exitCode{code: exitError, err: fmt.Errorf("%w\nno answer from the server: the set was applied whole or not at all; jobwheel diff -f shows which", c.explain(err))}
		}
		return nil, err
	}
	out.ApplyConfig.Set = l.set
	return &out.ApplyConfig, nil
}

var pastTense = map[string]string{"CREATE": "created", "UPDATE": "updated", "UNCHANGED": "unchanged", "DELETE": "deleted"}
var conditional = map[string]string{"CREATE": "would be created", "UPDATE": "would be updated", "UNCHANGED": "unchanged", "DELETE": "would be deleted"}

func (c *cli) applyCmd() *cobra.Command {
	var f setFlags
	var dry, verbose bool
	cmd := &cobra.Command{
		Use:   "apply -f FILE|DIR",
		Short: "Apply YAML files of jobs, workflows and calendars as a managed set",
		Long: `Apply configuration files (docs/config-as-code.md): every document is
checked first, then the whole set is applied in one transaction on the
server — new objects created, changed ones updated as a new version,
unchanged ones left alone, each marked as managed by the set. If any
document is refused, nothing is applied, and the error names the file,
the document, the line and the field.

The set's name is --set, else the documents' jobwheel.io/set label, else the
name of the directory the files are in. With --prune, the set's objects
that the files no longer declare are deleted. An object another file set
manages is refused unless --adopt; one declared in a worker's code always.`,
		Example: `  jobwheel apply -f jobs/
  jobwheel apply -f jobs/ --prune
  jobwheel apply -f nightly.yaml --set billing --dry-run
  jobwheel export --app billing | jobwheel apply -f -`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			l, err := c.load(&f)
			if err != nil {
				return err
			}
			cl, err := c.client()
			if err != nil {
				return err
			}
			res, err := c.applyConfig(cmd.Context(), cl, l, &f, dry)
			if err != nil {
				return err
			}
			if c.output != "table" {
				return c.show(res, nil, nil)
			}
			words := pastTense
			if dry {
				words = conditional
			}
			counts := map[string]int{}
			for _, ch := range res.Changes {
				counts[ch.Action]++
				if ch.Action == "UNCHANGED" && !verbose {
					continue
				}
				line := fmt.Sprintf("%s %s/%s %s", strings.ToLower(ch.Kind), ch.App, ch.Name, words[ch.Action])
				if len(ch.Fields) > 0 {
					line += ": " + strings.Join(ch.Fields, ", ")
				}
				fmt.Fprintln(c.stdout, line)
			}
			what := "applied"
			if dry {
				what = "dry run of"
			}
			fmt.Fprintf(c.stderr, "%s set %q: %d created, %d updated, %d deleted, %d unchanged\n", what, l.set,
				counts["CREATE"], counts["UPDATE"], counts["DELETE"], counts["UNCHANGED"])
			return nil
		},
	}
	f.add(cmd)
	cmd.Flags().BoolVar(&dry, "dry-run", false, "check everything and say what would change, changing nothing")
	cmd.Flags().BoolVar(&verbose, "verbose", false, "list the unchanged objects too")
	return cmd
}

func (c *cli) diffCmd() *cobra.Command {
	var f setFlags
	cmd := &cobra.Command{
		Use:   "diff -f FILE|DIR",
		Short: "Show what applying the files would change, as a unified diff per object",
		Long: `Show what jobwheel apply would change: the server checks the whole set as an
apply would (and changes nothing), and each object that would be created,
updated or (with --prune) deleted is shown as a unified diff of its YAML,
the server's on the - side and the files' on the + side. Values equal to
the API's defaults are left out on both sides.

Exit code: 0 when nothing would change, 5 when something would, 1 on an
error (a document the server refuses is named as apply names it).`,
		Example: `  jobwheel diff -f jobs/
  jobwheel diff -f jobs/ --prune || echo "the server differs from git"`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			l, err := c.load(&f)
			if err != nil {
				return err
			}
			cl, err := c.client()
			if err != nil {
				return err
			}
			res, err := c.applyConfig(cmd.Context(), cl, l, &f, true)
			if err != nil {
				return err
			}
			server := map[string]*manifest.Document{}
			for _, app := range l.apps {
				docs, err := c.exportApp(cmd.Context(), cl, app)
				if err != nil {
					return err
				}
				for _, d := range docs {
					server[objectKey(d.Kind, d.Metadata.App, d.Metadata.Name)] = d
				}
			}
			files := map[string]*manifest.Document{}
			for _, d := range l.docs {
				cd := manifest.Canonical(d)
				// After the apply, the object is the set's.
				cd.Metadata.Labels = map[string]string{manifest.SetLabel: l.set}
				cd.Source = d.Source
				files[objectKey(d.Kind, d.Metadata.App, cd.Metadata.Name)] = cd
			}
			changed := 0
			for _, ch := range res.Changes {
				if ch.Action == "UNCHANGED" {
					continue
				}
				changed++
				kind := kindOf(ch.Kind)
				key := objectKey(kind, ch.App, ch.Name)
				object := fmt.Sprintf("%s %s/%s", kind, ch.App, ch.Name)
				var before, after string
				from, to := "server: "+object, "(deleted)"
				if d := server[key]; d != nil && ch.Action != "CREATE" {
					b, _ := manifest.Marshal(d)
					before = string(b)
				} else {
					from = "(new)"
				}
				if d := files[key]; d != nil && ch.Action != "DELETE" {
					b, _ := manifest.Marshal(d)
					after = string(b)
					to = fmt.Sprintf("%s: document %d: %s", d.Source.File, d.Source.Index, object)
				}
				text, _ := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{A: difflib.SplitLines(before), B: difflib.SplitLines(after),
					FromFile: from, ToFile: to, Context: 3})
				if text == "" {
					// The server stores some values in a form of its own
					// (an HTTP processor's JSON, say): it says which.
					text = fmt.Sprintf("~ %s: the server would rewrite %s\n", object, strings.Join(ch.Fields, ", "))
				}
				fmt.Fprint(c.stdout, text)
			}
			if changed == 0 {
				fmt.Fprintf(c.stderr, "set %q: nothing to change\n", l.set)
				return nil
			}
			fmt.Fprintf(c.stderr, "set %q: %d object(s) would change\n", l.set, changed)
			return &exitCode{code: exitChanges}
		},
	}
	f.add(cmd)
	return cmd
}

func objectKey(kind, app, name string) string { return kind + "\x00" + app + "\x00" + name }

// kindOf is a document's kind for the API's ConfigKind.
func kindOf(k string) string {
	switch k {
	case "JOB":
		return manifest.KindJob
	case "WORKFLOW":
		return manifest.KindWorkflow
	}
	return manifest.KindCalendar
}

func (c *cli) exportCmd() *cobra.Command {
	var set, dir string
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Write an app's calendars, jobs and workflows as YAML documents",
		Long: `Write an app's objects as the YAML documents jobwheel apply reads, values
equal to the API's defaults left out: to standard output as one stream,
or with --dir as one file per object (DIR/jobs/NAME.yaml, …). Applying
what export wrote changes nothing.

With --set, only the objects that file set manages; without, every
object but jobs declared in a worker's code, which files cannot manage.
Objects of a file set carry its jobwheel.io/set label.`,
		Example: `  jobwheel export --app billing > billing.yaml
  jobwheel export --app billing --set billing-jobs --dir config/billing
  jobwheel export --app billing | jobwheel apply -f - --set billing --dry-run`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cl, app, err := c.clientApp()
			if err != nil {
				return err
			}
			all, err := c.exportApp(cmd.Context(), cl, app)
			if err != nil {
				return err
			}
			var docs []*manifest.Document
			inCode := 0
			for _, d := range all {
				label := d.Metadata.Labels[manifest.SetLabel]
				switch {
				case d.Source.File == "code":
					inCode++
					continue
				case set != "" && label != set:
					continue
				}
				docs = append(docs, d)
			}
			if inCode > 0 && set == "" {
				fmt.Fprintf(c.stderr, "left out %d job(s) declared in workers' code (their workers keep them)\n", inCode)
			}
			if set != "" && len(docs) == 0 {
				fmt.Fprintf(c.stderr, "app %q has nothing managed by the set %q\n", app, set)
			}
			if dir == "" {
				return manifest.Encode(c.stdout, docs)
			}
			for _, d := range docs {
				path := filepath.Join(dir, strings.ToLower(d.Kind)+"s", fileName(d.Metadata.Name)+".yaml")
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					return err
				}
				b, err := manifest.Marshal(d)
				if err != nil {
					return err
				}
				if err := os.WriteFile(path, append([]byte("---\n"), b...), 0o644); err != nil {
					return err
				}
			}
			fmt.Fprintf(c.stderr, "wrote %d document(s) under %s\n", len(docs), dir)
			return nil
		},
	}
	cmd.Flags().StringVar(&set, "set", "", "only the objects this file set manages")
	cmd.Flags().StringVar(&dir, "dir", "", "write one file per object under this directory instead of standard output")
	return cmd
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// fileName is an object's name made safe as a file name.
func fileName(name string) string {
	s := strings.Trim(unsafeName.ReplaceAllString(name, "_"), "._")
	if s == "" {
		s = "object"
	}
	return s
}

// exportApp reads an app's calendars, jobs and workflows as canonical
// documents, sorted by kind and name. Jobs declared in code are marked by
// Source.File "code".
func (c *cli) exportApp(ctx context.Context, cl *client.Client, app string) ([]*manifest.Document, error) {
	var cals struct{ Calendars []manifest.APICalendar }
	if err := c.do(ctx, cl, `query($app: String!) { calendars(app: $app) { `+manifest.CalendarFields+` } }`,
		map[string]any{"app": app}, &cals); err != nil {
		return nil, err
	}
	var docs []*manifest.Document
	for _, x := range cals.Calendars {
		docs = append(docs, manifest.FromCalendar(app, x))
	}
	var jobs []*manifest.Document
	var after any
	for {
		var out struct {
			Jobs struct {
				PageInfo pageInfo
				Edges    []struct{ Node manifest.APIJob }
			}
		}
		if err := c.do(ctx, cl, `query($app: String!, $after: String) { jobs(app: $app, first: 500, after: $after) {
			pageInfo { hasNextPage endCursor } edges { node { `+manifest.JobFields+` } } } }`,
			map[string]any{"app": app, "after": after}, &out); err != nil {
			return nil, err
		}
		for _, e := range out.Jobs.Edges {
			d := manifest.FromJob(app, e.Node)
			if e.Node.InCode() {
				d.Source.File = "code"
			}
			jobs = append(jobs, d)
		}
		if !out.Jobs.PageInfo.HasNextPage {
			break
		}
		after = deref(out.Jobs.PageInfo.EndCursor)
	}
	var wfs []*manifest.Document
	after = nil
	for {
		var out struct {
			Workflows struct {
				PageInfo pageInfo
				Edges    []struct{ Node manifest.APIWorkflow }
			}
		}
		if err := c.do(ctx, cl, `query($app: String!, $after: String) { workflows(app: $app, first: 500, after: $after) {
			pageInfo { hasNextPage endCursor } edges { node { `+manifest.WorkflowFields+` } } } }`,
			map[string]any{"app": app, "after": after}, &out); err != nil {
			return nil, err
		}
		for _, e := range out.Workflows.Edges {
			d, err := manifest.FromWorkflow(app, e.Node)
			if err != nil {
				return nil, err
			}
			wfs = append(wfs, d)
		}
		if !out.Workflows.PageInfo.HasNextPage {
			break
		}
		after = deref(out.Workflows.PageInfo.EndCursor)
	}
	byName := func(list []*manifest.Document) {
		sort.Slice(list, func(i, j int) bool { return list[i].Metadata.Name < list[j].Metadata.Name })
	}
	byName(docs)
	byName(jobs)
	byName(wfs)
	return append(append(docs, jobs...), wfs...), nil
}
