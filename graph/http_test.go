package graph

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
)

// rawResponse is an HTTP answer with its body as JSON fields.
type rawResponse struct {
	status      int
	contentType string
	header      http.Header
	body        string
	fields      map[string]json.RawMessage
	errors      []gqlError
}

func (r *rawResponse) code() string {
	if len(r.errors) == 0 {
		return ""
	}
	return r.errors[0].code()
}

// send makes a request to the endpoint with the headers given (k, v, …).
func (a *testAPI) send(t *testing.T, method, rawURL, body string, headers ...string) *rawResponse {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, rawURL, rd)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	r := &rawResponse{status: resp.StatusCode, contentType: resp.Header.Get("Content-Type"), header: resp.Header, body: string(b)}
	if json.Unmarshal(b, &r.fields) == nil {
		_ = json.Unmarshal(r.fields["errors"], &r.errors)
	}
	return r
}

// TestHTTPFollowsGraphQLOverHTTP (issue 16, item 17): GET runs queries and
// refuses mutations with a code; a JSON array body is refused without
// echoing it; and every request error (parse, validation, depth,
// complexity, variables) has the same status: 200 with application/json,
// 400 with application/graphql-response+json and no data entry.
func TestHTTPFollowsGraphQLOverHTTP(t *testing.T) {
	t.Parallel()
	api := newAPI(t, dbtest.Open(t, db.SQLite), apiOptions{})
	admin := api.admin(t)
	api.createApp(t, admin, "orders")
	bearer := "Bearer " + admin

	// GET: a query runs.
	q := url.Values{"query": {`query($n: String!) { previewSchedule(type: CRON, expression: $n, count: 1) }`},
		"variables": {`{"n":"0 0 * * * ?"}`}}
	r := api.send(t, http.MethodGet, api.url+"?"+q.Encode(), "", "Authorization", bearer, "Accept", "application/json")
	if r.status != http.StatusOK || len(r.errors) > 0 || !strings.Contains(string(r.fields["data"]), "previewSchedule") {
		t.Fatalf("GET query: %d %s", r.status, r.body)
	}
	// GET: a mutation is refused, with its code, before it runs.
	q = url.Values{"query": {`mutation { createApp(name: "by-get") { secret } }`}}
	r = api.send(t, http.MethodGet, api.url+"?"+q.Encode(), "", "Authorization", bearer)
	if r.status != http.StatusMethodNotAllowed || r.code() != CodeBadInput || r.header.Get("Allow") != "POST" {
		t.Fatalf("GET mutation: %d %v %s", r.status, r.header, r.body)
	}
	var apps struct{ Apps []struct{ Name string } }
	api.must(t, admin, `{ apps { name } }`, nil, &apps)
	if len(apps.Apps) != 1 {
		t.Fatalf("the mutation sent with GET ran: %+v", apps)
	}

	// A JSON array (a batch) is refused; the answer neither echoes the body
	// nor names Go types.
	r = api.send(t, http.MethodPost, api.url, `[{"query":"{ me { id } }"}]`, "Authorization", bearer, "Content-Type", "application/json")
	if r.status != http.StatusBadRequest || r.code() != CodeBadInput || strings.Contains(r.body, "me { id }") ||
		strings.Contains(r.body, "RawParams") || strings.Contains(r.body, "Go value") {
		t.Fatalf("array body: %d %s", r.status, r.body)
	}
	r = api.send(t, http.MethodPost, api.url, `{"query": 5}`, "Authorization", bearer, "Content-Type", "application/json")
	if r.status != http.StatusBadRequest || r.code() != CodeBadInput || !strings.Contains(r.errors[0].Message, `"query" must be a string`) {
		t.Fatalf("query of the wrong type: %d %s", r.status, r.body)
	}

	requestErrors := map[string]string{
		"parse":      `{"query":"{ apps { name "}`,
		"validation": `{"query":"{ apps { nope } }"}`,
		"depth":      `{"query":` + jsonString(nested(20)) + `}`,
		"complexity": `{"query":"{ instances(app: \"orders\", first: 500) { edges { node { logs(first: 1000) { lines { seq text } } } } } }"}`,
		"variables":  `{"query":"query($n: Int) { jobs(app: \"orders\", first: $n) { totalCount } }","variables":{"n":"x"}}`,
	}
	for name, body := range requestErrors {
		for _, tc := range []struct {
			accept, media string
			status        int
		}{
			{"application/json", "application/json", http.StatusOK},
			{"", "application/json", http.StatusOK},
			{"application/graphql-response+json, application/json;q=0.9", "application/graphql-response+json", http.StatusBadRequest},
		} {
			r := api.send(t, http.MethodPost, api.url, body, "Authorization", bearer, "Content-Type", "application/json", "Accept", tc.accept)
			if r.status != tc.status || !strings.HasPrefix(r.contentType, tc.media) {
				t.Errorf("%s, Accept %q: status %d %q, want %d %s: %s", name, tc.accept, r.status, r.contentType, tc.status, tc.media, r.body)
			}
			if _, has := r.fields["data"]; has || r.code() != CodeBadInput {
				t.Errorf("%s, Accept %q: want errors with BAD_INPUT and no data entry: %s", name, tc.accept, r.body)
			}
		}
	}

	// An executed request answers 200 in both media types, with data.
	for _, accept := range []string{"application/json", "application/graphql-response+json"} {
		r := api.send(t, http.MethodPost, api.url, `{"query":"{ job(id: \"999\") { id } me { username } }"}`,
			"Authorization", bearer, "Content-Type", "application/json", "Accept", accept)
		if r.status != http.StatusOK || !strings.Contains(string(r.fields["data"]), "admin") {
			t.Errorf("executed request, Accept %s: %d %s", accept, r.status, r.body)
		}
	}
	// A media type the server cannot answer in.
	r = api.send(t, http.MethodPost, api.url, `{"query":"{ me { id } }"}`, "Authorization", bearer, "Content-Type", "application/json", "Accept", "text/csv")
	if r.status != http.StatusNotAcceptable || r.code() != CodeBadInput {
		t.Fatalf("Accept text/csv: %d %s", r.status, r.body)
	}
	// Subscriptions need the websocket.
	r = api.send(t, http.MethodPost, api.url, `{"query":"subscription { workersUpdated(app: \"orders\") { id } }"}`,
		"Authorization", bearer, "Content-Type", "application/json")
	if r.status != http.StatusBadRequest || r.code() != CodeBadInput || !strings.Contains(r.errors[0].Message, "websocket") {
		t.Fatalf("subscription over POST: %d %s", r.status, r.body)
	}
}

// TestWrongVariableTypes (issue 16, item 18): a number for a String
// variable, a string for an Int, and wrong values inside lists and input
// objects are BAD_INPUT errors naming the variable, and nothing runs.
func TestWrongVariableTypes(t *testing.T) {
	t.Parallel()
	api := newAPI(t, dbtest.Open(t, db.SQLite), apiOptions{})
	admin := api.admin(t)
	api.createApp(t, admin, "orders")
	for _, tc := range []struct {
		name, query string
		vars        map[string]any
		field       string
	}{
		{"number for String!", `query($a: String!) { previewSchedule(type: CRON, expression: $a) }`, map[string]any{"a": 5}, "a"},
		{"string for Int", `query($n: Int) { jobs(app: "orders", first: $n) { totalCount } }`, map[string]any{"n": "5"}, "n"},
		{"number in a list of enums", `query($s: [InstanceStatus!]) { instances(app: "orders", status: $s) { totalCount } }`,
			map[string]any{"s": []any{"RUNNING", 5}}, "s"},
		{"number in an input object", `mutation($in: JobInput!) { createJob(input: $in) { id } }`,
			map[string]any{"in": map[string]any{"app": "orders", "name": 42, "scheduleType": "API", "processorType": "SHELL", "processor": "true"}}, "name"},
		{"number in a list in an input object", `mutation($in: JobInput!) { createJob(input: $in) { id } }`,
			map[string]any{"in": map[string]any{"app": "orders", "name": "n", "scheduleType": "API", "processorType": "SHELL", "processor": "true",
				"workerFilter": map[string]any{"tags": []any{"a", 7}}}}, "workerFilter.tags[1]"},
		{"object for Boolean", `mutation($e: Boolean!) { setJobEnabled(id: "1", enabled: $e) { id } }`, map[string]any{"e": map[string]any{}}, "e"},
	} {
		r := api.do(t, admin, tc.query, tc.vars, nil)
		if r.code() != CodeBadInput || r.Errors[0].field() != tc.field {
			t.Errorf("%s: %+v, want BAD_INPUT on %s", tc.name, r.Errors, tc.field)
			continue
		}
		if v := strings.SplitN(strings.TrimPrefix(tc.query, "query("), ":", 2)[0]; strings.HasPrefix(tc.query, "query(") &&
			!strings.Contains(r.Errors[0].Message, v) {
			t.Errorf("%s: message %q does not name the variable %s", tc.name, r.Errors[0].Message, v)
		}
	}
	var out struct{ Jobs struct{ TotalCount int } }
	api.must(t, admin, `{ jobs(app: "orders") { totalCount } }`, nil, &out)
	if out.Jobs.TotalCount != 0 {
		t.Fatalf("a job was created from wrong variables: %d", out.Jobs.TotalCount)
	}
	// The right types still pass, ids as strings or numbers.
	api.must(t, admin, `query($a: String!, $n: Int) { previewSchedule(type: CRON, expression: $a, count: $n) }`,
		map[string]any{"a": "0 0 * * * ?", "n": 2}, nil)
	for _, id := range []any{"5", 5} {
		if r := api.do(t, admin, `query($id: ID!) { job(id: $id) { id } }`, map[string]any{"id": id}, nil); r.code() != CodeNotFound {
			t.Fatalf("id %#v: %+v, want NOT_FOUND (it ran)", id, r.Errors)
		}
	}
}

// TestMalformedTimeIsBadInput (issue 11, item 12): a Time argument that is
// not RFC 3339 is the caller's mistake, named, not an internal error.
func TestMalformedTimeIsBadInput(t *testing.T) {
	t.Parallel()
	api := newAPI(t, dbtest.Open(t, db.SQLite), apiOptions{})
	admin := api.admin(t)
	api.createApp(t, admin, "orders")
	r := api.do(t, admin, `{ previewSchedule(type: CRON, expression: "0 0 * * * ?", after: "yesterday") }`, nil, nil)
	if r.code() != CodeBadInput || r.Errors[0].field() != "after" || !strings.Contains(r.Errors[0].Message, "RFC 3339") {
		t.Fatalf("literal: %+v", r.Errors)
	}
	r = api.do(t, admin, `query($from: Time) { instances(app: "orders", from: $from) { totalCount } }`, map[string]any{"from": "2026-13-45"}, nil)
	if r.code() != CodeBadInput || r.Errors[0].field() != "from" {
		t.Fatalf("variable: %+v", r.Errors)
	}
	api.must(t, admin, `{ previewSchedule(type: CRON, expression: "0 0 * * * ?", after: "2030-01-01T00:00:00Z", count: 1) }`, nil, nil)
}

// TestBrowserGetsExplorer: a browser opening /graphql is sent to the
// console's GraphiQL, which needs a login; the endpoint itself serves no
// page (and loads nothing from a CDN).
func TestBrowserGetsExplorer(t *testing.T) {
	t.Parallel()
	api := newAPI(t, dbtest.Open(t, db.SQLite), apiOptions{})
	r := api.send(t, http.MethodGet, api.url, "", "Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8")
	if r.status != http.StatusFound || r.header.Get("Location") != GraphiQLPath {
		t.Fatalf("browser GET: %d %v %s", r.status, r.header, r.body)
	}
	r = api.send(t, http.MethodGet, api.url+"?query=%7Bme%7Bid%7D%7D", "", "Accept", "text/html")
	if r.status != http.StatusFound || r.header.Get("Location") != GraphiQLPath+"?query=%7Bme%7Bid%7D%7D" {
		t.Fatalf("browser GET with a query: %d %v", r.status, r.header)
	}
	// fetch() and curl get JSON.
	r = api.send(t, http.MethodGet, api.url+"?query=%7B__typename%7D", "", "Accept", "*/*")
	if r.status != http.StatusOK || !strings.Contains(r.body, "Query") {
		t.Fatalf("GET with Accept */*: %d %s", r.status, r.body)
	}
}

// TestBearerSchemeIsCaseInsensitive (item 12): "bearer" and "BEARER" work
// as "Bearer" does; a header that is not a bearer token is refused, not
// ignored.
func TestBearerSchemeIsCaseInsensitive(t *testing.T) {
	t.Parallel()
	api := newAPI(t, dbtest.Open(t, db.SQLite), apiOptions{})
	admin := api.admin(t)
	for _, scheme := range []string{"bearer", "BEARER", "Bearer"} {
		r := api.send(t, http.MethodPost, api.url, `{"query":"{ me { username } }"}`, "Content-Type", "application/json",
			"Authorization", scheme+" "+admin)
		if len(r.errors) > 0 || !strings.Contains(r.body, "admin") {
			t.Fatalf("%s: %s", scheme, r.body)
		}
	}
	r := api.send(t, http.MethodPost, api.url, `{"query":"{ me { username } }"}`, "Content-Type", "application/json",
		"Authorization", "Basic "+admin)
	if r.code() != CodeUnauthenticated {
		t.Fatalf("Basic: %s", r.body)
	}
}

// TestSessionCookieSecureBehindTLS (item 12): the session cookie is Secure
// when the client came over HTTPS, as the proxy in front says, and not
// over plain HTTP.
func TestSessionCookieSecureBehindTLS(t *testing.T) {
	t.Parallel()
	api := newAPI(t, dbtest.Open(t, db.SQLite), apiOptions{})
	login := `{"query":"mutation { login(username: \"admin\", password: \"` + adminPassword + `\") { token } }"}`
	r := api.send(t, http.MethodPost, api.url, login, "Content-Type", "application/json", "X-Forwarded-Proto", "https")
	if c := sessionCookie(r); c == nil || !c.Secure || !c.HttpOnly || c.SameSite != http.SameSiteStrictMode {
		t.Fatalf("behind a TLS proxy: cookie %+v", c)
	}
	r = api.send(t, http.MethodPost, api.url, login, "Content-Type", "application/json")
	if c := sessionCookie(r); c == nil || c.Secure {
		t.Fatalf("plain HTTP: cookie %+v", c)
	}
}

func sessionCookie(r *rawResponse) *http.Cookie {
	resp := http.Response{Header: r.header}
	for _, c := range resp.Cookies() {
		if c.Name == SessionCookie {
			return c
		}
	}
	return nil
}

// TestClientLeavingIsNotAnError (issue 16, item 19): a request whose
// client went away while it ran is logged at debug, not as an internal
// error, whether it went while the caller was being authenticated or
// while a resolver read the database.
func TestClientLeavingIsNotAnError(t *testing.T) {
	t.Parallel()
	var logs lockedWriter
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	api := newAPI(t, dbtest.Open(t, db.SQLite), apiOptions{log: log})
	admin := api.admin(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // gone before the database was read
	req := httptest.NewRequest(http.MethodPost, "/graphql", strings.NewReader(`{"query":"{ apps { name } }"}`)).WithContext(ctx)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+admin)
	rec := httptest.NewRecorder()
	api.handler.ServeHTTP(rec, req)

	// A resolver's database call failing because the request ended.
	gqlErr := errorPresenter(log)(ctx, fmt.Errorf("listing apps: %w", context.Canceled))
	if gqlErr.Extensions["code"] == CodeInternal {
		t.Fatalf("presented as %v", gqlErr.Extensions)
	}
	out := logs.String()
	if strings.Contains(out, "level=ERROR") || strings.Contains(rec.Body.String(), CodeInternal) {
		t.Fatalf("a client that left was logged or answered as an internal error:\n%s\n%s", out, rec.Body.String())
	}
	if strings.Count(out, "level=DEBUG") != 2 {
		t.Fatalf("want a debug line for each client that left:\n%s", out)
	}
}

// lockedWriter collects log output from several goroutines.
type lockedWriter struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *lockedWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// TestTimeOutOfRangeIsBadInput (issue 25, info): a time the databases
// cannot store is the caller's mistake, named, not INTERNAL.
func TestTimeOutOfRangeIsBadInput(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		api := newAPI(t, d, apiOptions{})
		admin := api.admin(t)
		api.createApp(t, admin, "orders")
		for _, from := range []string{"0000-01-01T00:00:00Z", "0001-01-01T00:00:00+01:00"} {
			r := api.do(t, admin, `query($from: Time) { instances(app: "orders", from: $from) { totalCount } }`, map[string]any{"from": from}, nil)
			if r.code() != CodeBadInput || r.Errors[0].field() != "from" {
				t.Errorf("from %s: %+v", from, r.Errors)
			}
			r = api.do(t, admin, `query { instances(app: "orders", from: "`+from+`") { totalCount } }`, nil, nil)
			if r.code() != CodeBadInput || r.Errors[0].field() != "from" {
				t.Errorf("literal from %s: %+v", from, r.Errors)
			}
		}
		api.must(t, admin, `query { instances(app: "orders", from: "0001-01-01T00:00:00Z", to: "9999-12-31T23:59:59Z") { totalCount } }`, nil, nil)
	})
}

// TestRefusedNonNullRootFieldNullsTheData: a caller without a session asks
// for a non-null root field (appStats: AppStats!) and gets data null with
// UNAUTHENTICATED, as the GraphQL spec says, never {"appStats": null}: the
// console typed by the schema read that null as stats and failed to render
// while it was being sent to the login page.
func TestRefusedNonNullRootFieldNullsTheData(t *testing.T) {
	t.Parallel()
	api := newAPI(t, dbtest.Open(t, db.SQLite), apiOptions{})
	for _, q := range []string{`{ appStats(app: "orders") { jobs } }`, `{ me { username } appStats(app: "orders") { jobs } }`} {
		r := api.do(t, "", q, nil, nil)
		if r.code() != CodeUnauthenticated || string(r.Data) != "null" {
			t.Errorf("%s anonymously: data %s, errors %+v; want data null and UNAUTHENTICATED", q, r.Data, r.Errors)
		}
	}
	// A nullable root field is null on its own; the @public ones answer.
	r := api.do(t, "", `{ me { username } }`, nil, nil)
	if r.code() != CodeUnauthenticated || string(r.Data) != `{"me":null}` {
		t.Errorf("me anonymously: data %s, errors %+v; want {\"me\":null} and UNAUTHENTICATED", r.Data, r.Errors)
	}
}
