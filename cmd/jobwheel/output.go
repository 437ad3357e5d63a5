package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"go.yaml.in/yaml/v3"
)

// pageInfo is a list's Relay page info.
type pageInfo struct {
	HasNextPage bool    `json:"hasNextPage"`
	EndCursor   *string `json:"endCursor"`
}

// listOutput is what -o json|yaml prints for a page of a list.
type listOutput struct {
	Items      any     `json:"items"`
	TotalCount *int    `json:"totalCount,omitempty"`
	NextCursor *string `json:"nextCursor,omitempty"`
}

// show prints v for scripts (-o json, -o yaml) or as a table of rows
// under headers for people.
func (c *cli) show(v any, headers []string, rows [][]string) error {
	switch c.output {
	case "json":
		enc := json.NewEncoder(c.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	case "yaml":
		return writeYAML(c.stdout, v)
	}
	if len(rows) == 0 {
		fmt.Fprintln(c.stderr, "(none)")
		return nil
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(headers, "\t"))
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	return tw.Flush()
}

// showPage prints a page of a list and, for people, how to get the next.
func (c *cli) showPage(items any, total *int, page pageInfo, headers []string, rows [][]string) error {
	out := listOutput{Items: items, TotalCount: total}
	if page.HasNextPage {
		out.NextCursor = page.EndCursor
	}
	if err := c.show(out, headers, rows); err != nil {
		return err
	}
	if c.output == "table" && page.HasNextPage && page.EndCursor != nil {
		shown := ""
		if total != nil {
			shown = fmt.Sprintf("%d of %d shown; ", len(rows), *total)
		}
		fmt.Fprintf(c.stderr, "%smore with --after %s\n", shown, *page.EndCursor)
	}
	return nil
}

// writeYAML prints v (anything JSON can encode) as block-style YAML with
// its fields in the API's order.
func writeYAML(w interface{ Write([]byte) (int, error) }, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	var n yaml.Node
	// JSON is YAML: decoding it as YAML keeps the order of fields.
	if err := yaml.Unmarshal(b, &n); err != nil {
		return err
	}
	blockStyle(&n)
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(&n); err != nil {
		return err
	}
	return enc.Close()
}

func blockStyle(n *yaml.Node) {
	if n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode {
		n.Style = 0
	}
	if n.Kind == yaml.ScalarNode && n.Style == yaml.DoubleQuotedStyle && !strings.ContainsAny(n.Value, "\n") {
		n.Style = 0
	}
	for _, c := range n.Content {
		blockStyle(c)
	}
}

// when shows a time for people: local, to the second; "-" for none.
func when(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return t.Local().Format("2006-01-02 15:04:05")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
