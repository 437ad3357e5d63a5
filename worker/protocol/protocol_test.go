package protocol

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestRoundTrip(t *testing.T) {
	in := &Dispatch{App: "orders", Epoch: 7, Tasks: []Task{{TaskID: 1, InstanceID: 2, Kind: KindRoot, ProcessorType: "SHELL", Processor: "echo hi"}}}
	b, err := Encode(5, 0, TypeDispatch, in)
	if err != nil {
		t.Fatal(err)
	}
	f, body, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	out, ok := body.(*Dispatch)
	if !ok || f.ID != 5 || f.Type != TypeDispatch || out.Epoch != 7 || out.Tasks[0].Processor != "echo hi" {
		t.Fatalf("round trip: frame %+v body %#v", f, body)
	}
}

func TestDecodeRejects(t *testing.T) {
	cases := map[string]struct {
		frame string
		want  string
	}{
		"not json":      {`{"type":`, "not a JSON frame"},
		"unknown type":  {`{"type":"launch"}`, `unknown type "launch"`},
		"body shape":    {`{"type":"hello","body":{"slots":"many"}}`, "hello body"},
		"hello no app":  {`{"type":"hello","body":{"workerId":"w","slots":1}}`, "app is empty"},
		"hello slots":   {`{"type":"hello","body":{"app":"a","workerId":"w","slots":0}}`, "slots"},
		"report status": {`{"type":"report","body":{"items":[{"taskId":1,"status":"DONE"}]}}`, `unknown status "DONE"`},
		"negative id":   {`{"id":-1,"type":"ack"}`, "negative"},
		"map no name":   {`{"type":"map","body":{"payloads":["x"]}}`, "name"},
		"oversized":     {`{"type":"logs","body":{"lines":[{"text":"` + strings.Repeat("x", MaxFrameBytes) + `"}]}}`, "over the"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, _, err := Decode([]byte(c.frame))
			if !errors.Is(err, ErrBadFrame) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Decode = %v; want ErrBadFrame mentioning %q", err, c.want)
			}
		})
	}
}

func TestTruncate(t *testing.T) {
	if got := Truncate("short", 10); got != "short" {
		t.Fatalf("Truncate short = %q", got)
	}
	s := strings.Repeat("é", 100) // 2 bytes each
	got := Truncate(s, 51)
	if len(got) > 51 || !utf8.ValidString(got) || !strings.HasSuffix(got, "[cut]") {
		t.Fatalf("Truncate = %q (%d bytes)", got, len(got))
	}
}

// FuzzDecode: any input decodes or fails with ErrBadFrame, never panics,
// and whatever decodes re-encodes.
func FuzzDecode(f *testing.F) {
	seeds := []string{
		`{"id":1,"type":"hello","body":{"app":"a","workerId":"w","slots":4,"auth":"s"}}`,
		`{"re":1,"type":"welcome","body":{"serverId":"s","epoch":3,"servers":["http://x"],"heartbeatMs":2000}}`,
		`{"type":"heartbeat","body":{"metrics":{"cpuCores":2},"running":[1,2]}}`,
		`{"id":2,"type":"dispatch","body":{"epoch":1,"tasks":[{"taskId":1,"kind":"ROOT"}]}}`,
		`{"id":3,"type":"report","body":{"items":[{"taskId":1,"status":"SUCCEEDED","at":"2026-01-01T00:00:00Z"}]}}`,
		`{"id":4,"type":"logs","body":{"lines":[{"instanceId":1,"seq":1,"level":"INFO","text":"x"}],"dropped":{"1":3}}}`,
		`{"id":5,"type":"map","body":{"instanceId":1,"parentTaskId":1,"name":"n","payloads":["a"]}}`,
		`{"type":"stop","body":{"instanceId":1}}`,
		`{"type":"redirect","body":{"server":"http://y"}}`,
		`{"type":"error","body":{"code":"AUTH","message":"m"}}`,
		`{"re":9,"type":"ack","body":{"ok":true,"accepted":[1],"rejected":[{"taskId":2,"reason":"r"}]}}`,
		`{"type":"hello","body":null}`, `{}`, `[]`, `null`, ``, `{"type":"ack","body":[1,2]}`,
		`{"type":"report","body":{"items":[{"at":"not a time","status":"RUNNING"}]}}`,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fr, body, err := Decode(data)
		if err != nil {
			if !errors.Is(err, ErrBadFrame) {
				t.Fatalf("error does not wrap ErrBadFrame: %v", err)
			}
			return
		}
		if _, err := Encode(fr.ID, fr.Re, fr.Type, body); err != nil && !strings.Contains(err.Error(), "limit") {
			t.Fatalf("decoded frame does not re-encode: %v", err)
		}
	})
}
