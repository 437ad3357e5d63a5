package harness

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

// Client is a minimal GraphQL-over-HTTP client.
type Client struct {
	URL   string
	Token string
	HTTP  *http.Client
}

// NewClient returns an anonymous client for the server at url.
func NewClient(url string) *Client {
	return &Client{URL: strings.TrimRight(url, "/") + "/graphql", HTTP: &http.Client{Timeout: 30 * time.Second}}
}

// GraphQLError is one error of a response.
type GraphQLError struct {
	Message    string         `json:"message"`
	Path       []any          `json:"path"`
	Extensions map[string]any `json:"extensions"`
}

// Code is extensions.code.
func (e GraphQLError) Code() string { s, _ := e.Extensions["code"].(string); return s }

// Field is extensions.field.
func (e GraphQLError) Field() string { s, _ := e.Extensions["field"].(string); return s }

// Errors is a response's error list; it is an error.
type Errors []GraphQLError

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

// Do runs a query or mutation and decodes data into out. GraphQL errors
// come back as Errors.
func (c *Client) Do(query string, vars map[string]any, out any) error {
	return c.DoContext(context.Background(), query, vars, out)
}

// DoContext is Do with a context.
func (c *Client) DoContext(ctx context.Context, query string, vars map[string]any, out any) error {
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.URL, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
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

// Login logs in and keeps the session token.
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

// CreateApp creates an app and returns its secret.
func (c *Client) CreateApp(name string) (id, secret string, err error) {
	var out struct {
		CreateApp struct {
			App    struct{ ID string }
			Secret string
		}
	}
	err = c.Do(`mutation($n: String!) { createApp(name: $n) { app { id } secret } }`, map[string]any{"n": name}, &out)
	return out.CreateApp.App.ID, out.CreateApp.Secret, err
}
