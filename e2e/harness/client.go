package harness

import "github.com/jobwheel/jobwheel/graph/client"

// Client is the API client of package graph/client with the calls the
// tests share (the rest are in api.go and workflow.go).
type Client struct {
	*client.Client
}

// NewClient returns an anonymous client for the server at url.
func NewClient(url string) *Client { return &Client{client.New(url)} }

// GraphQLError and Errors are graph/client's.
type (
	GraphQLError = client.Error
	Errors       = client.Errors
)

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
