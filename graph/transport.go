package graph

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// Media types of GraphQL over HTTP.
const (
	mediaJSON            = "application/json"
	mediaGraphQLResponse = "application/graphql-response+json"
	mediaForm            = "application/x-www-form-urlencoded"
)

// httpTransport serves queries and mutations over HTTP as the
// GraphQL-over-HTTP specification describes, with one error shape for
// every failure (a message and extensions.code):
//
//   - POST with a JSON object body {"query", "variables", "operationName",
//     "extensions"}; requests that carry a bearer token may also send it
//     form-encoded (what `curl -d` does). A body that is not one JSON
//     object (a batch array, say) is refused: 400 BAD_INPUT.
//   - GET with the same parameters in the URL, for queries only: any other
//     operation is refused with 405 and BAD_INPUT.
//   - The response is application/graphql-response+json when the client
//     accepts it first, else application/json. A request that cannot be
//     executed at all (it does not parse, does not validate, exceeds the
//     depth or complexity limit, or its variables do not fit) answers 200
//     with application/json and 400 with application/graphql-response+json,
//     and has no data entry; a request that was executed answers 200.
type httpTransport struct{}

var _ graphql.Transport = httpTransport{}

func (httpTransport) Supports(r *http.Request) bool {
	return r.Header.Get("Upgrade") == "" && (r.Method == http.MethodGet || r.Method == http.MethodPost)
}

// requestError is a request refused before execution, with its status.
type requestError struct {
	status int
	msg    string
}

func (e *requestError) Error() string { return e.msg }

func (httpTransport) Do(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor) {
	ctx := r.Context()
	media, ok := negotiate(r.Header.Get("Accept"))
	if !ok {
		writeError(w, mediaJSON, &requestError{http.StatusNotAcceptable,
			"the response can only be application/graphql-response+json or application/json; set Accept to one of them"})
		return
	}
	start := graphql.Now()
	params, reqErr := readParams(r)
	if reqErr != nil {
		writeError(w, media, reqErr)
		return
	}
	params.Headers = r.Header
	params.ReadTime = graphql.TraceTiming{Start: start, End: graphql.Now()}

	rc, errs := exec.CreateOperationContext(ctx, params)
	if errs != nil {
		// Not executed: parse, validation, limits or variables.
		status := http.StatusOK
		if media == mediaGraphQLResponse {
			status = http.StatusBadRequest
		}
		resp := exec.DispatchError(graphql.WithOperationContext(ctx, rc), errs)
		writeResponse(w, media, status, resp)
		return
	}
	if op := rc.Operation; op != nil {
		switch {
		case op.Operation == ast.Subscription:
			writeError(w, media, &requestError{http.StatusBadRequest,
				"subscriptions are served over a websocket to /graphql (graphql-transport-ws), not over HTTP"})
			return
		case r.Method == http.MethodGet && op.Operation != ast.Query:
			w.Header().Set("Allow", http.MethodPost)
			writeError(w, media, &requestError{http.StatusMethodNotAllowed,
				fmt.Sprintf("a %s cannot be sent with GET; send it with POST", op.Operation)})
			return
		}
	}
	responses, ctx := exec.DispatchOperation(ctx, rc)
	writeResponse(w, media, http.StatusOK, responses(ctx))
}

// negotiate picks the response media type from an Accept header: the
// first supported one by preference; a missing header, or only wildcards,
// mean application/json (what clients before the specification expect).
func negotiate(accept string) (string, bool) {
	if strings.TrimSpace(accept) == "" {
		return mediaJSON, true
	}
	type choice struct {
		media string
		q     float64
		i     int
	}
	var choices []choice
	for i, part := range strings.Split(accept, ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		q := 1.0
		if v, ok := params["q"]; ok {
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				q = f
			}
		}
		if q <= 0 {
			continue
		}
		switch mt {
		case mediaGraphQLResponse, mediaJSON:
			choices = append(choices, choice{mt, q, i})
		case "*/*", "application/*":
			choices = append(choices, choice{mediaJSON, q, i})
		}
	}
	if len(choices) == 0 {
		return "", false
	}
	sort.SliceStable(choices, func(a, b int) bool { return choices[a].q > choices[b].q })
	return choices[0].media, true
}

// readParams reads the request's GraphQL parameters from its URL (GET) or
// body (POST).
func readParams(r *http.Request) (*graphql.RawParams, *requestError) {
	if r.Method == http.MethodGet {
		q, err := url.ParseQuery(r.URL.RawQuery)
		if err != nil {
			return nil, &requestError{http.StatusBadRequest, "the URL's query string does not parse: " + err.Error()}
		}
		return paramsFromValues(q)
	}
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	body, err := io.ReadAll(r.Body) // bounded by MaxBodyBytes in NewHandler
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return nil, &requestError{http.StatusRequestEntityTooLarge, fmt.Sprintf("the request body is larger than %d bytes", MaxBodyBytes)}
	case err != nil:
		return nil, &requestError{http.StatusBadRequest, "the request body could not be read: " + err.Error()}
	}
	switch {
	case mt == mediaJSON || mt == mediaGraphQLResponse:
		return paramsFromJSON(body)
	case mt == mediaForm && r.Header.Get("Authorization") != "":
		// Only with a bearer token: a browser page can post a form on
		// its own, with the session cookie (cross-site request forgery).
		q, err := url.ParseQuery(string(body))
		if err != nil {
			return nil, &requestError{http.StatusBadRequest, "the form body does not parse: " + err.Error()}
		}
		return paramsFromValues(q)
	}
	return nil, &requestError{http.StatusUnsupportedMediaType,
		"send the request as JSON: Content-Type: application/json, body {\"query\": \"…\", \"variables\": {…}}"}
}

// paramsFromJSON decodes a JSON request body, which must be one object;
// its errors say what is wrong without echoing the body.
func paramsFromJSON(body []byte) (*graphql.RawParams, *requestError) {
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	switch {
	case len(trimmed) == 0:
		return nil, &requestError{http.StatusBadRequest, "the request body is empty: send {\"query\": \"…\", \"variables\": {…}}"}
	case trimmed[0] == '[':
		return nil, &requestError{http.StatusBadRequest, "batched requests (a JSON array) are not supported: send one {\"query\": …} object per request"}
	case trimmed[0] != '{':
		if !json.Valid(trimmed) {
			return nil, &requestError{http.StatusBadRequest, "the request body is not valid JSON: send {\"query\": \"…\", \"variables\": {…}}"}
		}
		return nil, &requestError{http.StatusBadRequest, "the request body must be a JSON object {\"query\": \"…\", \"variables\": {…}}"}
	}
	var raw map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	if err := dec.Decode(&raw); err != nil || dec.More() {
		return nil, &requestError{http.StatusBadRequest, "the request body is not valid JSON: send {\"query\": \"…\", \"variables\": {…}}"}
	}
	p := &graphql.RawParams{}
	if err := decodeParam(raw, "query", &p.Query); err != nil {
		return nil, err
	}
	if err := decodeParam(raw, "operationName", &p.OperationName); err != nil {
		return nil, err
	}
	if err := decodeParam(raw, "variables", &p.Variables); err != nil {
		return nil, err
	}
	if err := decodeParam(raw, "extensions", &p.Extensions); err != nil {
		return nil, err
	}
	return p, nil
}

// decodeParam decodes one request parameter (null counts as absent).
func decodeParam(raw map[string]json.RawMessage, key string, into any) *requestError {
	v, ok := raw[key]
	if !ok || string(v) == "null" {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(v))
	dec.UseNumber()
	if err := dec.Decode(into); err != nil {
		kind := "a string"
		if key == "variables" || key == "extensions" {
			kind = "an object"
		}
		return &requestError{http.StatusBadRequest, fmt.Sprintf("%q must be %s", key, kind)}
	}
	return nil
}

// paramsFromValues reads the parameters of a GET URL or a form body;
// variables and extensions are JSON-encoded.
func paramsFromValues(q url.Values) (*graphql.RawParams, *requestError) {
	p := &graphql.RawParams{Query: q.Get("query"), OperationName: q.Get("operationName")}
	for _, f := range []struct {
		key  string
		into *map[string]any
	}{{"variables", &p.Variables}, {"extensions", &p.Extensions}} {
		v := q.Get(f.key)
		if v == "" {
			continue
		}
		dec := json.NewDecoder(strings.NewReader(v))
		dec.UseNumber()
		if err := dec.Decode(f.into); err != nil {
			return nil, &requestError{http.StatusBadRequest, fmt.Sprintf("%q must be a JSON object", f.key)}
		}
	}
	return p, nil
}

// writeError answers a request refused before GraphQL saw it.
func writeError(w http.ResponseWriter, media string, e *requestError) {
	writeResponse(w, media, e.status, &graphql.Response{Errors: gqlerror.List{{
		Message: e.msg, Extensions: map[string]any{"code": CodeBadInput}}}})
}

func writeResponse(w http.ResponseWriter, media string, status int, resp *graphql.Response) {
	if resp == nil { // gqlgen gives none when the request's context ended
		resp = &graphql.Response{Errors: gqlerror.List{{Message: "the request was cancelled before it finished",
			Extensions: map[string]any{"code": CodeUnavailable}}}}
	}
	var v any = resp
	if resp.Data == nil {
		// Not executed: the response has no data entry at all.
		v = struct {
			Errors     gqlerror.List  `json:"errors"`
			Extensions map[string]any `json:"extensions,omitempty"`
		}{resp.Errors, resp.Extensions}
	}
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(`{"errors":[{"message":"the response could not be encoded","extensions":{"code":"INTERNAL"}}]}`)
	}
	w.Header().Set("Content-Type", media+"; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}
