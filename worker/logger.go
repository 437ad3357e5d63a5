package worker

import (
	"context"
	"log/slog"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/jobwheel/jobwheel/worker/protocol"
)

// taskHandler is the slog.Handler behind TaskContext.Logger. Each record
// becomes one log line of the task's instance, formatted as the message
// followed by key=value attributes, queued in the outbox (which numbers
// it) — and is also passed to the worker's own handler, tagged with the
// instance and task.
type taskHandler struct {
	w          *Worker
	inst, task int64
	local      slog.Handler
	prefix     string // group prefix of attribute keys, "g1.g2."
	attrs      []byte // attributes from WithAttrs, formatted
}

func newTaskHandler(w *Worker, inst, task int64) *taskHandler {
	return &taskHandler{
		w: w, inst: inst, task: task,
		local: w.log.Handler().WithAttrs([]slog.Attr{slog.Int64("instance", inst), slog.Int64("task", task)}),
	}
}

// shipped says whether a line goes to the server. Only TaskLogLevel
// decides: the worker's own log level (Config.Logger) never filters what
// a task writes, or a quiet worker would leave its tasks without logs.
func (h *taskHandler) shipped(l slog.Level) bool {
	return h.w.cfg.TaskLogLevel == nil || l >= h.w.cfg.TaskLogLevel.Level()
}

func (h *taskHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.shipped(l) || h.local.Enabled(ctx, l)
}

func (h *taskHandler) Handle(ctx context.Context, r slog.Record) error {
	if h.shipped(r.Level) {
		buf := make([]byte, 0, len(r.Message)+len(h.attrs)+32)
		buf = append(buf, r.Message...)
		buf = append(buf, h.attrs...)
		r.Attrs(func(a slog.Attr) bool {
			buf = appendAttr(buf, h.prefix, a)
			return true
		})
		at := r.Time
		if at.IsZero() {
			at = time.Now()
		}
		h.w.out.addLog(protocol.LogLine{
			InstanceID: h.inst, TaskID: h.task, Time: at, Level: levelName(r.Level),
			Text: protocol.Truncate(string(buf), protocol.MaxLogLineBytes),
		})
	}
	if h.local.Enabled(ctx, r.Level) {
		return h.local.Handle(ctx, r)
	}
	return nil
}

func (h *taskHandler) WithAttrs(as []slog.Attr) slog.Handler {
	h2 := *h
	h2.attrs = append([]byte(nil), h.attrs...)
	for _, a := range as {
		h2.attrs = appendAttr(h2.attrs, h.prefix, a)
	}
	h2.local = h.local.WithAttrs(as)
	return &h2
}

func (h *taskHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	h2 := *h
	h2.prefix = h.prefix + name + "."
	h2.local = h.local.WithGroup(name)
	return &h2
}

// levelName maps slog levels to the four levels of the protocol.
func levelName(l slog.Level) string {
	switch {
	case l < slog.LevelInfo:
		return "DEBUG"
	case l < slog.LevelWarn:
		return "INFO"
	case l < slog.LevelError:
		return "WARN"
	}
	return "ERROR"
}

// appendAttr appends " key=value", quoting values that need it and
// flattening groups into dotted keys.
func appendAttr(buf []byte, prefix string, a slog.Attr) []byte {
	a.Value = a.Value.Resolve()
	if a.Equal(slog.Attr{}) {
		return buf
	}
	if a.Value.Kind() == slog.KindGroup {
		p := prefix
		if a.Key != "" {
			p += a.Key + "."
		}
		for _, ga := range a.Value.Group() {
			buf = appendAttr(buf, p, ga)
		}
		return buf
	}
	buf = append(buf, ' ')
	buf = append(buf, prefix...)
	buf = append(buf, a.Key...)
	buf = append(buf, '=')
	var s string
	if a.Value.Kind() == slog.KindTime {
		s = a.Value.Time().Format(time.RFC3339Nano)
	} else {
		s = a.Value.String()
	}
	if needsQuote(s) {
		return strconv.AppendQuote(buf, s)
	}
	return append(buf, s...)
}

func needsQuote(s string) bool {
	if s == "" {
		return true
	}
	return strings.ContainsFunc(s, func(r rune) bool {
		return r == '"' || r == '=' || unicode.IsSpace(r) || !unicode.IsPrint(r)
	})
}
