package graph

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/vektah/gqlparser/v2/ast"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/graph/generated"
)

// nested returns a query of the API's own fields n+2 levels deep: a
// nested workflow run's parent's parent… (introspection has bounds of its
// own, TestIntrospectionForExplorer).
func nested(n int) string {
	return `{ workflowInstance(id: "1") { ` + strings.Repeat("parent { ", n) + "id " + strings.Repeat("} ", n+1) + "}"
}

// TestBadRequests: malformed, oversized, deeply nested and too complex
// requests each get a clear error in the one shape, and the server keeps
// answering.
func TestBadRequests(t *testing.T) {
	t.Parallel()
	api := newAPI(t, dbtest.Open(t, db.SQLite), apiOptions{})
	admin := api.admin(t)
	api.createApp(t, admin, "orders")
	huge := `{"query":"{ me { id } }","variables":{"x":"` + strings.Repeat("a", 1<<20) + `"}}`
	// The attacker probe: same-named fields with different arguments, which
	// the validator compares pair by pair, reporting each pair (3,000 of
	// them took 52 s and 7 GB).
	var same strings.Builder
	for i := range 400 {
		fmt.Fprintf(&same, `x: jobs(app: \"orders\", first: %d) { totalCount } `, i+1)
	}
	for _, tc := range []struct {
		name        string
		contentType string
		body        string
		code        string // extensions.code of the first error
		message     string // part of its message
	}{
		{"not JSON", "application/json", `{"query": `, "BAD_INPUT", "not valid JSON"},
		{"empty body", "application/json", ``, "BAD_INPUT", "empty"},
		{"form garbage", "application/x-www-form-urlencoded", `%zz=%%`, "BAD_INPUT", ""},
		{"no query", "application/json", `{}`, "", ""},
		{"syntax error", "application/json", `{"query":"{ apps { name "}`, "BAD_INPUT", "Expected"},
		{"unknown field", "application/json", `{"query":"{ apps { nope } }"}`, "BAD_INPUT", "nope"},
		{"wrong variable type", "application/json", `{"query":"query($n: Int) { jobs(app: \"orders\", first: $n) { edges { cursor } } }","variables":{"n":"x"}}`, "BAD_INPUT", ""},
		{"bad id", "application/json", `{"query":"{ job(id: \"x\") { id } }"}`, "BAD_INPUT", "not an id"},
		{"page too large", "application/json", `{"query":"{ jobs(app: \"orders\", first: 100000) { edges { cursor } } }"}`, "BAD_INPUT", "first"},
		{"oversized body", "application/json", huge, "BAD_INPUT", "larger than"},
		{"deeply nested", "application/json", `{"query":` + jsonString(nested(20)) + `}`, "BAD_INPUT", "nested"},
		{"too complex", "application/json", `{"query":"{ instances(app: \"orders\", first: 500) { edges { node { logs(first: 1000) { lines { seq text } } } } } }"}`,
			"BAD_INPUT", "complexity"},
		{"complexity overflow", "application/json", `{"query":"{ instances(app: \"orders\", first: 2147483647) { edges { node { logs(first: 2147483647) { lines { seq } } } } } }"}`,
			"BAD_INPUT", "complexity"},
		{"unknown operation", "application/json", `{"query":"query A { me { id } }","operationName":"B"}`, "BAD_INPUT", ""},
		{"same field repeated", "application/json", `{"query":"{ ` + same.String() + `}"}`, "BAD_INPUT", "pair by pair"},
		{"subscription over POST", "application/json", `{"query":"subscription { instanceLogs(instanceId: \"1\") { seq } }"}`, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := api.postRaw(t, admin, tc.contentType, []byte(tc.body))
			if len(r.Errors) == 0 {
				t.Fatalf("status %d, no error; data %s", r.status, r.Data)
			}
			if r.status >= 500 {
				t.Fatalf("status %d: %+v", r.status, r.Errors)
			}
			e := r.Errors[0]
			if tc.code != "" && e.code() != tc.code {
				t.Fatalf("code %q (%s), want %s", e.code(), e.Message, tc.code)
			}
			if !strings.Contains(strings.ToLower(e.Message), strings.ToLower(tc.message)) {
				t.Fatalf("message %q does not mention %q", e.Message, tc.message)
			}
			if e.Message == "" {
				t.Fatal("empty message")
			}
		})
	}
	// Still healthy.
	var out struct{ Me struct{ Username string } }
	api.must(t, admin, `{ me { username } }`, nil, &out)
	if out.Me.Username != "admin" {
		t.Fatalf("me = %+v", out.Me)
	}
	// The largest legitimate page passes the complexity limit.
	api.must(t, admin, `{ instances(app: "orders", first: 500) { edges { node { id status triggerType expectedTriggerTime
		actualTriggerTime startedTime finishedTime attempt result reason worker { id host } attempts { attempt status worker result reason }
		tasks { total waiting running succeeded failed } } } } }`, nil, nil)
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// FuzzRequest: whatever is posted, the answer is a GraphQL response (JSON
// with data or errors, every error with a code) and never a 5xx.
func FuzzRequest(f *testing.F) {
	for _, seed := range []string{
		`{"query":"{ me { id } }"}`,
		`{"query":"{ apps { name members { username role } } }"}`,
		`{"query":"mutation { createJob(input: {app: \"orders\", name: \"x\", scheduleType: CRON, scheduleExpression: \"bad\", processorType: SHELL, processor: \"echo\"}) { id } }"}`,
		`{"query":"{ instances(app: \"orders\", first: -1) { edges { cursor } } }"}`,
		`{"query":"{ jobs(app: \"orders\", after: \"!!\") { edges { cursor } } }"}`,
		`{"query":"query($x: ID!) { instance(id: $x) { id } }","variables":{"x":null}}`,
		`{"query":"{ __schema { types { name } } }"}`,
		`{"query":"fragment F on Query { ...F } { ...F }"}`,
		`{"query":"{ apiTokens { id app { name } user { username } } users { id } }"}`,
		`{"query":"mutation { revokeApiToken(id: \"999\") }"}`,
		`[{"query":"{ me { id } }"}]`,
		`{"query":` + jsonString(nested(30)) + `}`,
		`{"query":"{ previewSchedule(type: CRON, expression: \"0 0 * * * ?\", count: 1000000) }"}`,
		`{"query":"mutation { createWorkflow(input: {app: \"orders\", name: \"w\", scheduleType: API, nodes: [{key: \"a\", type: DECISION, expression: \"context.\"}], edges: [{from: \"a\", to: \"a\"}]}) { id } }"}`,
		`{"query":"mutation { importWorkflow(app: \"orders\", definition: {name: 1, nodes: \"x\"}) { id } }"}`,
		`{"query":"{ workflowInstances(app: \"orders\", first: 0) { totalCount } exportWorkflow(id: \"9\") }"}`,
	} {
		f.Add(seed)
	}
	api := newAPI(f, dbtest.Open(f, db.SQLite), apiOptions{})
	admin := api.admin(f)
	api.createApp(f, admin, "orders")
	f.Fuzz(func(t *testing.T, body string) {
		req, err := http.NewRequest(http.MethodPost, api.url, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+admin)
		resp, err := fuzzClient.Do(req)
		if err != nil {
			t.Fatalf("%q: %v", body, err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode >= 500 {
			t.Fatalf("status %d for %q: %s", resp.StatusCode, body, raw)
		}
		var r struct {
			Data   json.RawMessage `json:"data"`
			Errors []gqlError      `json:"errors"`
		}
		if err := json.Unmarshal(raw, &r); err != nil {
			t.Fatalf("answer to %q is not a GraphQL response: %q", body, raw)
		}
		if len(r.Errors) == 0 && len(r.Data) == 0 {
			t.Fatalf("answer to %q has neither data nor errors: %q", body, raw)
		}
		for _, e := range r.Errors {
			if e.code() == "" || e.Message == "" {
				t.Fatalf("error without code or message for %q: %+v", body, e)
			}
			if e.code() == CodeInternal {
				t.Fatalf("internal error for %q: %+v", body, e)
			}
		}
	})
}

// fuzzClient bounds a request: a hang is a failure (with its input), not
// a stalled fuzzer.
var fuzzClient = &http.Client{Timeout: 10 * time.Second}

// TestSchemaDescribed: every type, field, input field and enum value of
// the schema has a description (docs/design.md §9.1: a typed schema whose
// every field is documented).
func TestSchemaDescribed(t *testing.T) {
	t.Parallel()
	schema := generated.NewExecutableSchema(generated.Config{Resolvers: &Resolver{}}).Schema()
	var missing []string
	for name, def := range schema.Types {
		if def.BuiltIn || strings.HasPrefix(name, "__") {
			continue
		}
		if strings.TrimSpace(def.Description) == "" {
			missing = append(missing, name)
		}
		for _, f := range def.Fields {
			if strings.HasPrefix(f.Name, "__") {
				continue
			}
			if strings.TrimSpace(f.Description) == "" {
				missing = append(missing, name+"."+f.Name)
			}
		}
		if def.Kind == ast.Enum {
			for _, v := range def.EnumValues {
				if strings.TrimSpace(v.Description) == "" {
					missing = append(missing, name+"."+v.Name)
				}
			}
		}
	}
	if len(missing) > 0 {
		t.Fatalf("undocumented in the schema: %s", strings.Join(missing, ", "))
	}
}
