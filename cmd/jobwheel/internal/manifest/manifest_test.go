package manifest

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
)

const goodJob = `apiVersion: jobwheel.io/v1
kind: Job
metadata:
  app: orders
  name: nightly
spec:
  scheduleType: CRON
  scheduleExpression: "0 0 2 * * ?"
  processorType: SHELL
  processor: |
    echo hello
  workerFilter:
    tags: [linux]
  alarm:
    rules:
      - type: CONSECUTIVE_FAILURES
        threshold: 3
    channels:
      - {type: WEBHOOK, target: "https://hooks.example.com/x"}
`

// TestReadErrors: every mistake in a document is refused with the file,
// the document's place in it, the line and the field's path named, and
// what to write instead where that is known.
func TestReadErrors(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		want       []string // substrings of the one error
	}{
		{"unknown field", strings.Replace(goodJob, "  processorType: SHELL", "  processorTyp: SHELL\n  processorType: SHELL", 1),
			[]string{"f.yaml:9: document 1 (Job orders/nightly): spec.processorTyp: unknown field; did you mean processorType?"}},
		{"nested unknown field", strings.Replace(goodJob, "    tags: [linux]", "    tags: [linux]\n    cpu: 2", 1),
			[]string{"spec.workerFilter.cpu: unknown field; spec.workerFilter has designated, tags"}},
		{"wrong type", strings.Replace(goodJob, "        threshold: 3", "        threshold: three", 1),
			[]string{":17:", "spec.alarm.rules[0].threshold: want a whole number, not \"three\""}},
		{"number for text", strings.Replace(goodJob, `  scheduleExpression: "0 0 2 * * ?"`, "  scheduleExpression: 30", 1),
			[]string{"spec.scheduleExpression: want text, not the number 30 (quote it to make it text)"}},
		{"bad enum", strings.Replace(goodJob, "processorType: SHELL", "processorType: BASH", 1),
			[]string{"spec.processorType: \"BASH\" is not one of GO, SHELL, PYTHON, HTTP"}},
		{"missing required", strings.Replace(goodJob, "  processorType: SHELL\n", "", 1),
			[]string{"spec.processorType: required"}},
		{"deprecated alarm field", strings.Replace(goodJob, "  alarm:\n", "  alarm:\n    onFailure: true\n", 1),
			[]string{"spec.alarm.onFailure: unknown field (deprecated in the API: use rules: [{type: FAILURE}])"}},
		{"name in spec", strings.Replace(goodJob, "spec:\n", "spec:\n  name: other\n", 1),
			[]string{"spec.name: unknown field (the name goes in metadata.name)"}},
		{"api version", strings.Replace(goodJob, "jobwheel.io/v1", "v1", 1), []string{"apiVersion: \"v1\" is not jobwheel.io/v1"}},
		{"kind", strings.Replace(goodJob, "kind: Job", "kind: AlarmRule", 1), []string{"kind: \"AlarmRule\" is not one of Job, Workflow, Calendar"}},
		{"no app", strings.Replace(goodJob, "  app: orders\n", "", 1), []string{"metadata.app: required"}},
		{"unknown label", strings.Replace(goodJob, "  name: nightly\n", "  name: nightly\n  labels: {team: x}\n", 1),
			[]string{"metadata.labels.team: unknown label"}},
		{"not yaml", "apiVersion: [", []string{"document 1: not YAML"}},
		{"list for text", strings.Replace(goodJob, "  processor: |\n    echo hello\n", "  processor: [a, b]\n", 1),
			[]string{"spec.processor: want text, not a list"}},
		{"workflow job id", `apiVersion: jobwheel.io/v1
kind: Workflow
metadata: {app: orders, name: wf}
spec:
  scheduleType: API
  nodes:
    - {key: a, type: JOB, jobId: "4"}
`, []string{":7:", "spec.nodes[0].jobId: unknown field (name the job (job: <name>): ids differ between servers)"}},
		{"bad lifecycle", strings.Replace(goodJob, "spec:\n", "spec:\n  lifecycle: {start: tomorrow}\n", 1),
			[]string{"spec.lifecycle.start: \"tomorrow\" is not an RFC 3339 time"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, errs := Read("f.yaml", strings.NewReader(tc.yaml))
			if len(errs) != 1 {
				t.Fatalf("%d errors %v; want 1", len(errs), errs)
			}
			for _, w := range tc.want {
				if !strings.Contains(errs[0].Error(), w) {
					t.Errorf("error %q lacks %q", errs[0].Error(), w)
				}
			}
		})
	}
}

// TestReadMany: a file's documents are numbered from 1 (empty ones not
// counted), every bad one is reported, and the good ones are read.
func TestReadMany(t *testing.T) {
	src := goodJob + "---\n" + strings.Replace(goodJob, "name: nightly", "name: second\n  nam: x", 1) + "---\n" +
		strings.Replace(goodJob, "name: nightly", "name: third", 1) + "---\n"
	docs, errs := Read("many.yaml", strings.NewReader(src))
	if len(docs) != 2 || docs[1].Metadata.Name != "third" || docs[1].Source.Index != 3 {
		t.Fatalf("docs %+v", docs)
	}
	if len(errs) != 1 || errs[0].Index != 2 || errs[0].Path != "metadata.nam" {
		t.Fatalf("errors %v", errs)
	}
	spec := docs[0].Spec.(*JobSpec)
	if spec.Processor != "echo hello\n" || *spec.Alarm.Rules[0].Threshold != 3 || spec.WorkerFilter.Tags[0] != "linux" {
		t.Fatalf("spec %+v", spec)
	}
}

// TestCanonical: a file spelling out the API's defaults and one leaving
// them out have the same canonical YAML, which is what export writes and
// diff compares; calendars' dates are sorted once each.
func TestCanonical(t *testing.T) {
	explicit := strings.Replace(goodJob, "spec:\n", `spec:
  description: ""
  enabled: true
  timeZone: UTC
  executionMode: STANDALONE
  maxInstances: 1
  taskConcurrency: 5
  timeoutMs: 0
  dispatchStrategy: HEALTH_FIRST
  misfirePolicy: FIRE_ONCE
  overlapPolicy: CANCEL
  maxQueued: 10
  retryBackoff: 1
  lifecycle: {start: "2027-01-01T08:00:00+08:00"}
`, 1)
	implicit := strings.Replace(goodJob, "spec:\n", "spec:\n  lifecycle: {start: \"2027-01-01T00:00:00.000Z\"}\n", 1)
	a, errs := Read("a.yaml", strings.NewReader(explicit))
	if errs != nil {
		t.Fatal(errs)
	}
	b, errs := Read("b.yaml", strings.NewReader(implicit))
	if errs != nil {
		t.Fatal(errs)
	}
	ya, _ := Marshal(Canonical(a[0]))
	yb, _ := Marshal(Canonical(b[0]))
	if string(ya) != string(yb) {
		t.Fatalf("canonical forms differ:\n%s\n---\n%s", ya, yb)
	}
	if strings.Contains(string(ya), "maxQueued") || !strings.Contains(string(ya), "start: \"2027-01-01T00:00:00Z\"") {
		t.Errorf("canonical form:\n%s", ya)
	}
	// What Marshal writes reads back as the same document.
	again, errs := Read("c.yaml", strings.NewReader(string(ya)))
	if errs != nil {
		t.Fatalf("canonical YAML does not read back: %v\n%s", errs, ya)
	}
	if yc, _ := Marshal(Canonical(again[0])); string(yc) != string(ya) {
		t.Fatalf("round trip changed it:\n%s\n---\n%s", ya, yc)
	}
	cal, _ := Read("cal.yaml", strings.NewReader("apiVersion: jobwheel.io/v1\nkind: Calendar\nmetadata: {app: a, name: h}\nspec:\n  dates: [2026-12-26, 2026-12-25, 2026-12-26]\n"))
	if got := Canonical(cal[0]).Spec.(*CalendarSpec).Dates; !slices.Equal(got, []string{"2026-12-25", "2026-12-26"}) {
		t.Errorf("dates %v", got)
	}
}

// TestLocate: a field the server names in applyConfig's input is the
// field of the document it came from, with its line.
func TestLocate(t *testing.T) {
	docs, errs := Read("jobs.yaml", strings.NewReader(goodJob+"---\n"+strings.Replace(goodJob, "name: nightly", "name: hourly", 1)))
	if errs != nil {
		t.Fatal(errs)
	}
	in, err := ToInput(docs)
	if err != nil {
		t.Fatal(err)
	}
	if in.Jobs[1]["name"] != "hourly" || in.Jobs[1]["app"] != "orders" {
		t.Fatalf("input %+v", in.Jobs[1])
	}
	e, ok := in.Locate("jobs[1].alarm.rules[0].threshold", "must be 2 to 1000")
	if !ok || e.Error() != "jobs.yaml:37: document 2 (Job orders/hourly): spec.alarm.rules[0].threshold: must be 2 to 1000" {
		t.Fatalf("located %v", e)
	}
	if e, _ := in.Locate("jobs[0].name", "taken"); e.Path != "metadata.name" || e.Line != 5 {
		t.Fatalf("name: %+v", e)
	}
	if _, ok := in.Locate("set", "x"); ok {
		t.Fatal("located a field of no document")
	}
}

// TestSetName: --set, else the documents' label, else the directory.
func TestSetName(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "billing-jobs")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	labelled := func(set string) *Document {
		return &Document{Kind: KindJob, Metadata: Metadata{App: "a", Name: set, Labels: map[string]string{SetLabel: set}}}
	}
	plain := &Document{Kind: KindJob, Metadata: Metadata{App: "a", Name: "p"}}
	for _, tc := range []struct {
		flag string
		docs []*Document
		want string
		err  string
	}{
		{"", []*Document{plain}, "billing-jobs", ""},
		{"", []*Document{plain, labelled("x")}, "x", ""},
		{"y", []*Document{plain}, "y", ""},
		{"y", []*Document{labelled("x")}, "", "--set is \"y\""},
		{"", []*Document{labelled("x"), labelled("z")}, "", "different sets (x, z)"},
	} {
		got, err := SetName(tc.flag, tc.docs, []string{dir})
		if got != tc.want || (tc.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("SetName(%q): %q, %v; want %q, %q", tc.flag, got, err, tc.want, tc.err)
		}
	}
}

// TestSchemaInStep: the documents' spec fields are the API's input
// fields (less app, name, ids and deprecated fields), and the enums the
// API's, so a schema change that the files do not follow fails here.
func TestSchemaInStep(t *testing.T) {
	files, err := filepath.Glob("../../../../graph/schema/*.graphqls")
	if err != nil || len(files) == 0 {
		t.Fatalf("schema files: %v", err)
	}
	var sources []*ast.Source
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sources = append(sources, &ast.Source{Name: f, Input: string(b)})
	}
	schema, gerr := gqlparser.LoadSchema(sources...)
	if gerr != nil {
		t.Fatal(gerr)
	}
	skip := map[string]bool{"app": true, "name": true, "jobId": true, "workflowId": true}
	for input, v := range map[string]any{"JobInput": JobSpec{}, "WorkflowInput": WorkflowSpec{}, "CalendarInput": CalendarSpec{},
		"WorkflowNodeInput": WorkflowNode{}, "WorkflowEdgeInput": WorkflowEdge{}, "AlarmInput": Alarm{}, "AlarmRuleInput": AlarmRule{},
		"AlarmChannelInput": AlarmChannel{}, "WorkerFilterInput": WorkerFilter{}, "ScheduleWindowInput": ScheduleWindow{},
		"LifecycleInput": Lifecycle{}, "WorkflowNodePositionInput": Position{}} {
		def := schema.Types[input]
		if def == nil {
			t.Fatalf("no input %s in the schema", input)
		}
		var want []string
		for _, f := range def.Fields {
			if f.Directives.ForName("deprecated") != nil || (skip[f.Name] && input != "WorkflowNodeInput" && input != "AlarmChannelInput") {
				continue
			}
			if f.Name == "jobId" || f.Name == "workflowId" {
				continue
			}
			want = append(want, f.Name)
		}
		var got []string
		rt := reflect.TypeOf(v)
		for i := range rt.NumField() {
			got = append(got, strings.Split(rt.Field(i).Tag.Get("yaml"), ",")[0])
		}
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s: the document has %v; the API %v", input, got, want)
		}
	}
	for name, values := range enums {
		def := schema.Types[name]
		if def == nil {
			t.Errorf("no enum %s in the schema", name)
			continue
		}
		var want []string
		for _, v := range def.EnumValues {
			want = append(want, v.Name)
		}
		if !slices.Equal(values, want) {
			t.Errorf("enum %s: %v here, %v in the schema", name, values, want)
		}
	}
}

// TestFilesOfDirectory: a directory's YAML files at any depth, sorted,
// hidden ones left out; none is an error.
func TestFilesOfDirectory(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"b.yaml", "a/c.yml", ".git/x.yaml", "notes.txt"} {
		p := filepath.Join(dir, f)
		_ = os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := Files([]string{dir})
	if err != nil || !slices.Equal(got, []string{filepath.Join(dir, "a/c.yml"), filepath.Join(dir, "b.yaml")}) {
		t.Fatalf("%v, %v", got, err)
	}
	if _, err := Files([]string{filepath.Join(dir, "a", "..", ".git", "none")}); err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a missing path: %v", err)
	}
}
