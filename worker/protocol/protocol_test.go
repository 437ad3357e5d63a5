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
		"not json":     {`{"type":`, "not a JSON frame"},
		"unknown type": {`{"type":"launch"}`, `unknown type "launch"`},
		"body shape":   {`{"type":"hello","body":{"slots":"many"}}`, "hello body"},
		"negative id":  {`{"id":-1,"type":"ack"}`, "negative"},
		"oversized":    {`{"type":"logs","body":{"lines":[{"text":"` + strings.Repeat("x", MaxFrameBytes) + `"}]}}`, "over the"},
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

// TestValidate: every field a worker sends is checked, and the error
// names the field (issue 11, items 2, 9 and 10).
func TestValidate(t *testing.T) {
	t.Parallel()
	at := `"time":"2026-01-01T00:00:00Z"`
	cases := map[string]struct {
		frame string
		field string
	}{
		"hello no app":          {`{"type":"hello","body":{"workerId":"w","slots":1}}`, "app"},
		"hello slots":           {`{"type":"hello","body":{"app":"a","workerId":"w","slots":0}}`, "slots"},
		"hello long host":       {`{"type":"hello","body":{"app":"a","workerId":"w","slots":1,"host":"` + strings.Repeat("h", 300) + `"}}`, "host"},
		"hello host with CR LF": {`{"type":"hello","body":{"app":"a","workerId":"w","slots":1,"host":"a\r\nb"}}`, "host"},
		"hello empty tag":       {`{"type":"hello","body":{"app":"a","workerId":"w","slots":1,"tags":[""]}}`, "tags[0]"},
		"hello negative memory": {`{"type":"hello","body":{"app":"a","workerId":"w","slots":1,"metrics":{"freeMemoryMB":-1}}}`, "metrics.freeMemoryMB"},
		"heartbeat running 0":   {`{"type":"heartbeat","body":{"running":[0]}}`, "running[0]"},
		"report status":         {`{"type":"report","body":{"items":[{"taskId":1,"status":"DONE"}]}}`, "items[0].status"},
		"report long reason":    {`{"type":"report","body":{"items":[{"taskId":1,"status":"FAILED","reason":"` + strings.Repeat("r", 40) + `"}]}}`, "items[0].reason"},
		"logs year 0":           {`{"type":"logs","body":{"lines":[{"instanceId":1,"seq":1,"level":"INFO","time":"0000-01-01T00:00:00Z"}]}}`, "lines[0].time"},
		"logs no time":          {`{"type":"logs","body":{"lines":[{"instanceId":1,"seq":1,"level":"INFO"}]}}`, "lines[0].time"},
		"logs server's seq":     {`{"type":"logs","body":{"lines":[{"instanceId":1,"seq":-1,"level":"INFO",` + at + `}]}}`, "lines[0].seq"},
		"logs seq 0":            {`{"type":"logs","body":{"lines":[{"instanceId":1,"seq":0,"level":"INFO",` + at + `}]}}`, "lines[0].seq"},
		"logs level":            {`{"type":"logs","body":{"lines":[{"instanceId":1,"seq":1,"level":"LOUD",` + at + `}]}}`, "lines[0].level"},
		"logs no instance":      {`{"type":"logs","body":{"lines":[{"seq":1,"level":"INFO",` + at + `}]}}`, "lines[0].instanceId"},
		"logs long text":        {`{"type":"logs","body":{"lines":[{"instanceId":1,"seq":1,"level":"INFO",` + at + `,"text":"` + strings.Repeat("x", MaxLogTextBytes+1) + `"}]}}`, "lines[0].text"},
		"logs negative dropped": {`{"type":"logs","body":{"dropped":{"1":-5}}}`, "dropped[1]"},
		"map no name":           {`{"type":"map","body":{"instanceId":1,"parentTaskId":1,"payloads":["x"]}}`, "name"},
		"map no instance":       {`{"type":"map","body":{"parentTaskId":1,"name":"n"}}`, "instanceId"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, body, err := Decode([]byte(c.frame))
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			err = Validate(body)
			var fe *FieldError
			if !errors.As(err, &fe) || fe.Field != c.field {
				t.Fatalf("Validate = %v; want an error on %s", err, c.field)
			}
		})
	}
	// What the SDK sends passes.
	for _, ok := range []string{
		`{"id":1,"type":"hello","body":{"app":"a","workerId":"w","slots":4,"auth":"s","host":"box-1","tags":["gpu"],"types":["SHELL"],"metrics":{"cpuCores":2,"load1":0.5}}}`,
		`{"id":4,"type":"logs","body":{"lines":[{"instanceId":1,"seq":1,"level":"warning","text":"x",` + at + `}],"dropped":{"1":3}}}`,
		`{"id":3,"type":"report","body":{"items":[{"taskId":1,"status":"FAILED","reason":"TIMEOUT","at":"2026-01-01T00:00:00Z"}]}}`,
		`{"id":5,"type":"map","body":{"instanceId":1,"parentTaskId":1,"name":"n","payloads":["a"],"key":"k"}}`,
	} {
		_, body, err := Decode([]byte(ok))
		if err == nil {
			err = Validate(body)
		}
		if err != nil {
			t.Errorf("%s: %v", ok, err)
		}
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
// validates or fails naming a field, and whatever decodes re-encodes.
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
		var fe *FieldError
		if err := Validate(body); err != nil && !errors.As(err, &fe) {
			t.Fatalf("Validate's error is not a *FieldError: %v", err)
		}
		if _, err := Encode(fr.ID, fr.Re, fr.Type, body); err != nil && !strings.Contains(err.Error(), "limit") {
			t.Fatalf("decoded frame does not re-encode: %v", err)
		}
	})
}
