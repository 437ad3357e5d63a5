package hub

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"

	"github.com/jobwheel/jobwheel/worker/protocol"
)

// What a worker is told when the server refuses or fails what it sent.
// Kept apart from the session's loop so the rules are in one place.

// refuseInvalid answers a frame whose fields are out of bounds
// (protocol.Validate). A report, logs or map message is refused by its
// ack, code BAD_FRAME, and the connection goes on (the worker drops that
// message and keeps the rest); anything else ends the connection with an
// error frame. It reports whether the connection goes on.
func (c *conn) refuseInvalid(frame protocol.Frame, err error) bool {
	c.hub.log.Warn("hub: refusing a worker's frame", "app", c.info.AppID, "worker", c.info.ID, "type", frame.Type, "err", err)
	switch frame.Type {
	case protocol.TypeReport, protocol.TypeLogs, protocol.TypeMap, protocol.TypeResults:
		if frame.ID > 0 {
			c.ack(frame.ID, &protocol.Ack{Code: protocol.CodeBadFrame, Error: frame.Type + ": " + err.Error()})
			return true
		}
	}
	c.fail(protocol.CodeBadFrame, frame.Type+": "+err.Error())
	return false
}

// ack queues an answer to message id.
func (c *conn) ack(id int64, a *protocol.Ack) {
	if id == 0 {
		return
	}
	if b, err := protocol.Encode(0, id, protocol.TypeAck, a); err == nil {
		_ = c.enqueue(b)
	}
}

// ackFor makes the ack of a message that the server handled with result
// err. A *protocol.Error is sent as it is; an error made from a message
// alone (errors.New, or fmt.Errorf without %w: written for the worker, as
// "this server does not own the app now") keeps its message; anything else
// may carry internals (a database's error text), so the worker gets a
// generic INTERNAL error with a reference, and the log gets the error.
func (c *conn) ackFor(typ string, err error) *protocol.Ack {
	if err == nil {
		return &protocol.Ack{OK: true}
	}
	var pe *protocol.Error
	switch {
	case errors.As(err, &pe):
		return &protocol.Ack{Code: pe.Code, Error: pe.Message}
	case reflect.TypeOf(err) == plainError:
		return &protocol.Ack{Code: protocol.CodeInternal, Error: err.Error()}
	}
	ref := newRef()
	c.hub.log.Error("hub: a worker's message failed", "app", c.info.AppID, "worker", c.info.ID, "type", typ, "ref", ref, "err", err)
	return &protocol.Ack{Code: protocol.CodeInternal,
		Error: fmt.Sprintf("the server could not handle this %s (reference %s; the server log has the details); it is not stored", typ, ref)}
}

// plainError is the type of errors.New's errors.
var plainError = reflect.TypeOf(errors.New(""))

func newRef() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// bearer returns the token of an "Authorization: Bearer <token>" header
// (any case of the scheme), or "".
func bearer(r *http.Request) string {
	scheme, token, ok := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(token)
}
