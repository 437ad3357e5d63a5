package processors

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/jobwheel/jobwheel/worker/protocol"
	"github.com/jobwheel/jobwheel/worker/workertest"
)

func httpTask(spec string) protocol.Task {
	return protocol.Task{TaskID: 1, InstanceID: 2, Kind: protocol.KindRoot, ProcessorType: "HTTP", Processor: spec}
}

func TestHTTPSuccess(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if r.Method != http.MethodPost || r.Header.Get("X-Token") != "t" || string(b) != `{"n":1}` {
			http.Error(w, "bad request "+r.Method+" "+string(b), http.StatusBadRequest)
			return
		}
		w.WriteHeader(http.StatusCreated)
		_, _ = io.WriteString(w, "made it")
	}))
	defer srv.Close()
	ctx := workertest.New(t.Context(), httpTask(`{"method":"post","url":"`+srv.URL+`/x","headers":{"X-Token":"t"},"body":"{\"n\":1}"}`))
	res, err := (&HTTP{}).Process(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.Message != "HTTP 201: made it" {
		t.Errorf("result %q", res.Message)
	}
	lines := ctx.Lines()
	if len(lines) != 2 || lines[0].Text != "POST "+srv.URL+"/x" || !strings.HasPrefix(lines[1].Text, "HTTP 201 Created") {
		t.Errorf("lines %v", lines)
	}
}

func TestHTTPWrongStatus(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/ok" {
			_, _ = io.WriteString(w, "fine")
			return
		}
		http.Error(w, "broken", http.StatusInternalServerError)
	}))
	defer srv.Close()
	_, err := (&HTTP{}).Process(workertest.New(t.Context(), httpTask(`{"url":"`+srv.URL+`/fail"}`)))
	if err == nil || !strings.Contains(err.Error(), "HTTP 500, expected 2xx: broken") {
		t.Errorf("error %v", err)
	}
	_, err = (&HTTP{}).Process(workertest.New(t.Context(), httpTask(`{"url":"`+srv.URL+`/ok","expectStatus":204}`)))
	if err == nil || !strings.Contains(err.Error(), "HTTP 200, expected 204") {
		t.Errorf("error %v", err)
	}
}

func TestHTTPTimeout(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done() // never answers
	}))
	defer srv.Close()
	_, err := (&HTTP{}).Process(workertest.New(t.Context(), httpTask(`{"url":"`+srv.URL+`","timeoutMs":50}`)))
	if err == nil || !strings.Contains(err.Error(), "timed out after 50ms") {
		t.Errorf("error %v", err)
	}
}

func TestHTTPCancel(t *testing.T) {
	started := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		<-r.Context().Done()
	}))
	defer srv.Close()
	cctx, cancel := context.WithCancel(t.Context())
	go func() { <-started; cancel() }()
	_, err := (&HTTP{}).Process(workertest.New(cctx, httpTask(`{"url":"`+srv.URL+`"}`)))
	if err == nil || !strings.Contains(err.Error(), "context canceled") {
		t.Errorf("error %v", err)
	}
}

func TestHTTPBadSpec(t *testing.T) {
	for spec, want := range map[string]string{
		`not json`:          "must be a JSON object",
		`{"url":""}`:        "no url",
		`{"url":"ftp://x"}`: "http:// or https://",
		`{"url":"http://x","expectedStatus":200}`:      "unknown field",
		`{"url":"http://x","expectStatus":42}`:         "not an HTTP status",
		`{"url":"http://127.0.0.1:1/","method":"G T"}`: "invalid method",
	} {
		_, err := (&HTTP{}).Process(workertest.New(t.Context(), httpTask(spec)))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", spec, err, want)
		}
	}
}
