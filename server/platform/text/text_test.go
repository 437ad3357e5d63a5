package text

import (
	"errors"
	"testing"

	"github.com/jobwheel/jobwheel/server/platform/fault"
)

func TestLine(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"", "nightly report", "Grüße 日本", "a-b_c.d@e", "tab\u00a0nbsp"} {
		if err := Line("name", ok); err != nil {
			t.Errorf("Line(%q) = %v, want nil", ok, err)
		}
	}
	for _, bad := range []string{"\x00", "fail\r\nBcc: victim@example.com", "a\nb", "tab\there", "\x1b[31m", "\x7f", "\u0085", "a\u2028b", "\u202eevil", "\xff"} {
		err := Line("name", bad)
		var in *fault.Input
		if !errors.As(err, &in) || in.Field != "name" {
			t.Errorf("Line(%q) = %v, want a BAD_INPUT on name", bad, err)
		}
	}
}

func TestBlock(t *testing.T) {
	t.Parallel()
	if err := Block("description", "line 1\r\nline 2\tand a tab"); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"\x00", "bell\a", "\u202e"} {
		if Block("description", bad) == nil {
			t.Errorf("Block(%q) accepted", bad)
		}
	}
}

func TestBytes(t *testing.T) {
	t.Parallel()
	if err := Bytes("processor", "echo \x1b[31mred\x1b[0m\n"); err != nil {
		t.Fatal(err)
	}
	if Bytes("processor", "echo a\x00b") == nil {
		t.Fatal("NUL accepted")
	}
}
