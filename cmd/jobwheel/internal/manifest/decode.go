package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Error is a document at fault: its file, its place in the file (from
// 1), the line, the field's path (e.g. "spec.nodes[2].job"; empty for the
// whole document) and why.
type Error struct {
	File   string
	Index  int
	Line   int
	Object string // "Job orders/nightly", when known
	Path   string
	Reason string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	fmt.Fprintf(&b, ": document %d", e.Index)
	if e.Object != "" {
		fmt.Fprintf(&b, " (%s)", e.Object)
	}
	if e.Path != "" {
		b.WriteString(": " + e.Path)
	}
	return b.String() + ": " + e.Reason
}

// Errors are every document error found; it is an error.
type Errors []*Error

func (e Errors) Error() string {
	parts := make([]string, len(e))
	for i, x := range e {
		parts[i] = x.Error()
	}
	return strings.Join(parts, "\n")
}

// Files lists the YAML files paths name: a file as it is, a directory's
// *.yaml and *.yml files at any depth (sorted, hidden ones left out), and
// "-" for standard input.
func Files(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		if p == "-" {
			out = append(out, p)
			continue
		}
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			out = append(out, p)
			continue
		}
		var found []string
		err = filepath.WalkDir(p, func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if strings.HasPrefix(d.Name(), ".") && path != p {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if !d.IsDir() && (strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".yml")) {
				found = append(found, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("%s has no .yaml or .yml files", p)
		}
		sort.Strings(found)
		out = append(out, found...)
	}
	return out, nil
}

// ReadFiles reads every document of the files (Files' list; "-" reads
// stdin). It returns every error it finds, not only the first, as Errors.
func ReadFiles(files []string, stdin io.Reader) ([]*Document, error) {
	var docs []*Document
	var errs Errors
	for _, f := range files {
		r, name := stdin, "(stdin)"
		if f != "-" {
			b, err := os.ReadFile(f)
			if err != nil {
				return nil, err
			}
			r, name = bytes.NewReader(b), f
		}
		d, e := Read(name, r)
		docs = append(docs, d...)
		errs = append(errs, e...)
	}
	if len(errs) > 0 {
		return docs, errs
	}
	return docs, nil
}

// Read reads the documents of one file; name is what errors call it.
func Read(name string, r io.Reader) ([]*Document, Errors) {
	dec := yaml.NewDecoder(r)
	var docs []*Document
	var errs Errors
	for index := 1; ; index++ {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			errs = append(errs, &Error{File: name, Index: index, Reason: "not YAML: " + strings.TrimPrefix(err.Error(), "yaml: ")})
			break // the decoder cannot go on past a syntax error
		}
		if len(n.Content) == 0 || (n.Content[0].Kind == yaml.ScalarNode && n.Content[0].Tag == "!!null") {
			index-- // an empty document ("---" at the end) is none
			continue
		}
		d, e := decodeDocument(name, index, n.Content[0])
		if e != nil {
			errs = append(errs, e...)
			continue
		}
		docs = append(docs, d)
	}
	return docs, errs
}

// walker decodes one document strictly, noting each field's line and
// every error.
type walker struct {
	kind  string
	lines map[string]int
	errs  []fieldError
}

type fieldError struct {
	path, reason string
	line         int
}

func (w *walker) fail(n *yaml.Node, path, format string, args ...any) {
	w.errs = append(w.errs, fieldError{path: path, reason: fmt.Sprintf(format, args...), line: n.Line})
}

func decodeDocument(file string, index int, n *yaml.Node) (*Document, Errors) {
	d := &Document{Source: Source{File: file, Index: index, Line: n.Line, Lines: map[string]int{}}}
	w := &walker{lines: d.Source.Lines}
	docErr := func(path, reason string, line int) Errors {
		return Errors{&Error{File: file, Index: index, Line: line, Path: path, Reason: reason}}
	}
	if n.Kind != yaml.MappingNode {
		return nil, docErr("", "a document is a mapping with apiVersion, kind, metadata and spec", n.Line)
	}
	top := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch k.Value {
		case "apiVersion", "kind", "metadata", "spec":
			top[k.Value] = v
			w.lines[k.Value] = k.Line
		default:
			w.fail(k, k.Value, "unknown field: a document has apiVersion, kind, metadata and spec%s", hint(k.Value))
		}
	}
	for _, f := range []string{"apiVersion", "kind", "metadata", "spec"} {
		if top[f] == nil {
			w.fail(n, f, "required")
		}
	}
	if v := top["apiVersion"]; v != nil {
		if v.Kind != yaml.ScalarNode || v.Value != APIVersion {
			w.fail(v, "apiVersion", "%q is not %s", v.Value, APIVersion)
		}
		d.APIVersion = v.Value
	}
	if v := top["kind"]; v != nil {
		d.Kind = v.Value
		switch v.Value {
		case KindJob:
			d.Spec = new(JobSpec)
		case KindWorkflow:
			d.Spec = new(WorkflowSpec)
		case KindCalendar:
			d.Spec = new(CalendarSpec)
		default:
			w.fail(v, "kind", "%q is not one of Job, Workflow, Calendar (alarm rules are part of a job's or workflow's alarm)", v.Value)
		}
	}
	w.kind = d.Kind
	if v := top["metadata"]; v != nil {
		w.decode(v, reflect.ValueOf(&d.Metadata).Elem(), "metadata")
		if d.Metadata.App == "" && !w.failed("metadata.app") {
			w.fail(v, "metadata.app", "required: the app the object belongs to")
		}
		if strings.TrimSpace(d.Metadata.Name) == "" && !w.failed("metadata.name") {
			w.fail(v, "metadata.name", "required: the object's name, unique in its app and kind")
		}
		for k := range d.Metadata.Labels {
			if k != SetLabel {
				w.fail(v, "metadata.labels."+k, "unknown label: the only label is %s, the managed set the document belongs to", SetLabel)
			}
		}
	}
	if v := top["spec"]; v != nil && d.Spec != nil {
		w.decode(v, reflect.ValueOf(d.Spec).Elem(), "spec")
		w.required(v, d)
	}
	if len(w.errs) == 0 {
		return d, nil
	}
	errs := make(Errors, len(w.errs))
	for i, e := range w.errs {
		errs[i] = &Error{File: file, Index: index, Line: e.line, Object: d.Object(), Path: e.path, Reason: e.reason}
	}
	return nil, errs
}

// Object names a document's object, e.g. "Job orders/nightly".
func (d *Document) Object() string {
	if d.Kind == "" || d.Metadata.Name == "" {
		return ""
	}
	return d.Kind + " " + d.Metadata.App + "/" + d.Metadata.Name
}

func (w *walker) failed(path string) bool {
	return slices.ContainsFunc(w.errs, func(e fieldError) bool { return e.path == path })
}

var indexes = regexp.MustCompile(`\[\d+\]`)

// plain is a path without its list indexes: "spec.nodes[2].job" is
// "spec.nodes.job".
func plain(path string) string { return indexes.ReplaceAllString(path, "") }

func hint(path string) string {
	if h, ok := hints[plain(path)]; ok {
		return " (" + h + ")"
	}
	return ""
}

var scalarTypes = map[reflect.Kind]string{reflect.String: "text", reflect.Int: "a whole number", reflect.Float64: "a number", reflect.Bool: "true or false"}

// decode fills v from n, strictly: every key a field of v's type, every
// value of the field's type.
func (w *walker) decode(n *yaml.Node, v reflect.Value, path string) {
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if _, ok := w.lines[path]; !ok {
		w.lines[path] = n.Line
	}
	if v.Kind() == reflect.Pointer {
		if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
			return
		}
		p := reflect.New(v.Type().Elem())
		w.decode(n, p.Elem(), path)
		v.Set(p)
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			w.fail(n, path, "want a mapping of fields, not %s", describe(n))
			return
		}
		fields := map[string]int{}
		var names []string
		t := v.Type()
		for i := range t.NumField() {
			name := strings.Split(t.Field(i).Tag.Get("yaml"), ",")[0]
			if name != "" && name != "-" {
				fields[name] = i
				names = append(names, name)
			}
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, val := n.Content[i], n.Content[i+1]
			fp := path + "." + k.Value
			w.lines[fp] = k.Line
			fi, ok := fields[k.Value]
			if !ok {
				msg := "unknown field; " + path + " has " + strings.Join(names, ", ")
				if h := hint(fp); h != "" {
					msg = "unknown field" + h
				} else if near := nearest(k.Value, names); near != "" {
					msg = fmt.Sprintf("unknown field; did you mean %s?", near)
				}
				w.fail(k, fp, "%s", msg)
				continue
			}
			w.decode(val, v.Field(fi), fp)
		}
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			w.fail(n, path, "want a list, not %s", describe(n))
			return
		}
		s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
		for i, el := range n.Content {
			w.decode(el, s.Index(i), fmt.Sprintf("%s[%d]", path, i))
		}
		v.Set(s)
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			w.fail(n, path, "want a mapping, not %s", describe(n))
			return
		}
		m := reflect.MakeMap(v.Type())
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, val := n.Content[i], n.Content[i+1]
			e := reflect.New(v.Type().Elem()).Elem()
			w.decode(val, e, path+"."+k.Value)
			m.SetMapIndex(reflect.ValueOf(k.Value), e)
		}
		v.Set(m)
	default:
		w.scalar(n, v, path)
	}
}

// scalar decodes a text, number or boolean, and checks an enum's value.
func (w *walker) scalar(n *yaml.Node, v reflect.Value, path string) {
	want := scalarTypes[v.Kind()]
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		w.fail(n, path, "want %s, not %s", want, describe(n))
		return
	}
	ok := false
	switch v.Kind() {
	case reflect.String:
		// Text must be text: a number or boolean where text belongs is
		// more likely a mistake (quote it if it is meant).
		ok = n.Tag == "!!str" || n.Tag == "!!timestamp"
	case reflect.Int:
		ok = n.Tag == "!!int"
	case reflect.Float64:
		ok = n.Tag == "!!int" || n.Tag == "!!float"
	case reflect.Bool:
		ok = n.Tag == "!!bool"
	}
	if !ok {
		w.fail(n, path, "want %s, not %s%s", want, describe(n), quoteHint(v.Kind()))
		return
	}
	if err := n.Decode(v.Addr().Interface()); err != nil {
		w.fail(n, path, "want %s: %v", want, err)
		return
	}
	if v.Kind() == reflect.String {
		if enum, ok := enumOf[w.kind][plain(path)]; ok && !slices.Contains(enums[enum], v.String()) {
			w.fail(n, path, "%q is not one of %s", v.String(), strings.Join(enums[enum], ", "))
		}
		if strings.HasSuffix(path, "lifecycle.start") || strings.HasSuffix(path, "lifecycle.end") {
			if _, err := time.Parse(time.RFC3339Nano, v.String()); err != nil {
				w.fail(n, path, "%q is not an RFC 3339 time such as 2027-01-01T00:00:00Z", v.String())
			}
		}
	}
}

func quoteHint(k reflect.Kind) string {
	if k == reflect.String {
		return " (quote it to make it text)"
	}
	return ""
}

// describe says what a node holds, for errors.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	switch n.Tag {
	case "!!null":
		return "null"
	case "!!int", "!!float":
		return "the number " + n.Value
	case "!!bool":
		return n.Value
	}
	return fmt.Sprintf("%q", n.Value)
}

// nearest is the name among names closest to s (a likely typo), or "".
func nearest(s string, names []string) string {
	best, bestD := "", 3
	for _, n := range names {
		if d := distance(strings.ToLower(s), strings.ToLower(n)); d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

// distance is the Levenshtein distance between a and b.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// required checks the spec's required fields, which the API would refuse
// without saying which document lacked them.
func (w *walker) required(n *yaml.Node, d *Document) {
	need := func(path string, missing bool, what string) {
		if missing && !w.failed(path) {
			w.errs = append(w.errs, fieldError{path: path, reason: "required: " + what, line: w.lineOf(path, n.Line)})
		}
	}
	switch s := d.Spec.(type) {
	case *JobSpec:
		need("spec.scheduleType", s.ScheduleType == "", "how the job is triggered: "+strings.Join(enums["ScheduleType"], ", "))
		need("spec.processorType", s.ProcessorType == "", "what runs the job: "+strings.Join(enums["ProcessorType"], ", "))
		need("spec.processor", s.Processor == "", "the GO processor's name, the script, or the HTTP request as JSON")
		if s.ScheduleWindow != nil {
			need("spec.scheduleWindow.start", s.ScheduleWindow.Start == "", "the time of day it opens, HH:MM")
			need("spec.scheduleWindow.end", s.ScheduleWindow.End == "", "the time of day it closes, HH:MM")
		}
		w.requiredAlarm(n, "spec.alarm", s.Alarm)
	case *WorkflowSpec:
		need("spec.scheduleType", s.ScheduleType == "", "CRON, FIXED_RATE or API")
		need("spec.nodes", len(s.Nodes) == 0, "at least one node")
		for i, node := range s.Nodes {
			f := fmt.Sprintf("spec.nodes[%d]", i)
			need(f+".key", node.Key == "", "the node's key, unique in the workflow")
			need(f+".type", node.Type == "", strings.Join(enums["WorkflowNodeType"], ", "))
		}
		for i, e := range s.Edges {
			f := fmt.Sprintf("spec.edges[%d]", i)
			need(f+".from", e.From == "", "the upstream node's key")
			need(f+".to", e.To == "", "the downstream node's key")
		}
		w.requiredAlarm(n, "spec.alarm", s.Alarm)
	case *CalendarSpec:
		need("spec.dates", s.Dates == nil, "the excluded dates, YYYY-MM-DD (an empty list for none)")
	}
}

// lineOf is the line of path, or of the nearest enclosing field read.
func (w *walker) lineOf(path string, def int) int {
	for p := path; p != ""; {
		if l, ok := w.lines[p]; ok {
			return l
		}
		i := strings.LastIndexAny(p, ".[")
		if i < 0 {
			break
		}
		p = p[:i]
	}
	return def
}

func (w *walker) requiredAlarm(n *yaml.Node, path string, a *Alarm) {
	if a == nil {
		return
	}
	for i, r := range a.Rules {
		if r.Type == "" && !w.failed(fmt.Sprintf("%s.rules[%d].type", path, i)) {
			w.fail(n, fmt.Sprintf("%s.rules[%d].type", path, i), "required: %s", strings.Join(enums["AlarmRuleType"], ", "))
		}
	}
	for i, c := range a.Channels {
		if c.Type == "" && !w.failed(fmt.Sprintf("%s.channels[%d].type", path, i)) {
			w.fail(n, fmt.Sprintf("%s.channels[%d].type", path, i), "required: %s", strings.Join(enums["AlarmChannelType"], ", "))
		}
		if c.Target == "" && !w.failed(fmt.Sprintf("%s.channels[%d].target", path, i)) {
			w.fail(n, fmt.Sprintf("%s.channels[%d].target", path, i), "required: the URL or email address")
		}
	}
}
