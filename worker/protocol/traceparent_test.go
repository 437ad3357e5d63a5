package protocol

import "testing"

// TestValidTraceparent: a worker starts its span only under a well-formed
// W3C traceparent (https://www.w3.org/TR/trace-context/#traceparent-header).
func TestValidTraceparent(t *testing.T) {
	for s, want := range map[string]bool{
		"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01":       true,
		"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00":       true,
		"01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra": true, // a later version may add fields
		"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra": false,
		"ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01":       false,
		"00-00000000000000000000000000000000-00f067aa0ba902b7-01":       false,
		"00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01":       false,
		"00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01":       false,
		"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7":          false,
		"00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01":       false,
		"": false,
	} {
		if got := ValidTraceparent(s); got != want {
			t.Errorf("ValidTraceparent(%q) = %v; want %v", s, got, want)
		}
	}
}
