// Package client is a Go client of jobwheel's GraphQL API: queries and
// mutations over HTTP (Do), and subscriptions over websocket speaking
// graphql-transport-ws (Dial, Subscribe). The end-to-end tests, the graph
// package's tests, the benchmark harness and graph/example/client all use
// it; another Go service can too.
//
//	c := client.New("http://localhost:7700")
//	c.Token = os.Getenv("JOBWHEEL_TOKEN") // or c.Login(user, password)
//	var out struct{ Apps []struct{ Name string } }
//	err := c.Do(`{ apps { name } }`, nil, &out)
//
// GraphQL errors come back as Errors, whose Code is extensions.code
// (UNAUTHENTICATED, FORBIDDEN, BAD_INPUT with Field, NOT_FOUND, CONFLICT…).
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// Client talks to one jobwheel server's /graphql.
type Client struct {
	// URL is the GraphQL endpoint, http(s)://host:port/graphql.
	URL string
	// Token is sent as "Authorization: Bearer <token>" when set: a
	// session's (Login) or an API token.
	Token string
	HTTP  *http.Client
}

// New returns an anonymous client of the server at base
// (http(s)://host:port).
func New(base string) *Client {
	return &Client{URL: strings.TrimRight(base, "/") + "/graphql", HTTP: &http.Client{Timeout: 30 * time.Second}}
}

// Error is one GraphQL error of a response.
type Error struct {
	Message    string         `json:"message"`
	Path       []any          `json:"path,omitempty"`
	Extensions map[string]any `json:"extensions,omitempty"`
}

// Code is extensions.code.
func (e Error) Code() string { s, _ := e.Extensions["code"].(string); return s }

// Field is extensions.field: the input at fault of a BAD_INPUT.
func (e Error) Field() string { s, _ := e.Extensions["field"].(string); return s }

// Errors is a response's error list; it is an error.
type Errors []Error

func (e Errors) Error() string {
	parts := make([]string, len(e))
	for i, x := range e {
		parts[i] = fmt.Sprintf("%s (%s)", x.Message, x.Code())
	}
	return "graphql: " + strings.Join(parts, "; ")
}

// Code returns the first error's code.
func (e Errors) Code() string {
	if len(e) == 0 {
		return ""
	}
	return e[0].Code()
}

// Do runs a query or mutation and decodes data into out (if not nil).
// GraphQL errors come back as Errors.
func (c *Client) Do(query string, vars map[string]any, out any) error {
	return c.DoContext(context.Background(), query, vars, out)
}

// DoContext is Do with a context.
func (c *Client) DoContext(ctx context.Context, query string, vars map[string]any, out any) error {
	body, err := json.Marshal(map[string]any{"query": query, "variables": vars})
	if err != nil {
		return fmt.Errorf("encoding the request: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.URL, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/graphql-response+json, application/json")
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	var r struct {
		Data   json.RawMessage `json:"data"`
		Errors Errors          `json:"errors"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return fmt.Errorf("status %d, undecodable body %q: %w", resp.StatusCode, raw, err)
	}
	if len(r.Errors) > 0 {
		return r.Errors
	}
	if out != nil {
		return json.Unmarshal(r.Data, out)
	}
	return nil
}

// Login logs in and keeps the session's token.
func (c *Client) Login(username, password string) error {
	var out struct {
		Login struct{ Token string }
	}
	err := c.Do(`mutation($u: String!, $p: String!) { login(username: $u, password: $p) { token } }`,
		map[string]any{"u": username, "p": password}, &out)
	if err != nil {
		return err
	}
	c.Token = out.Login.Token
	return nil
}

// Subscribe opens a websocket with the client's token and starts one
// subscription on it; closing the returned connection ends it.
func (c *Client) Subscribe(ctx context.Context, query string, vars map[string]any) (*Conn, *Sub, error) {
	conn, err := Dial(ctx, c.URL, Options{Token: c.Token})
	if err != nil {
		return nil, nil, err
	}
	sub, err := conn.Subscribe(ctx, query, vars)
	if err != nil {
		conn.CloseNow()
		return nil, nil, err
	}
	return conn, sub, nil
}
