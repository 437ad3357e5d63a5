// Package secrets keeps the secrets of job and alarm configuration
// write-only (issue 25, item 5): the API shows them to nobody, whatever
// the role, and a save that sends back what it was shown keeps what is
// stored.
//
// The secrets are an HTTP job's header values (Authorization, API keys;
// all but a few that only describe the content, such as Content-Type)
// and the URLs of alarm channels other than email (webhooks and the chats
// Slack, Feishu, DingTalk and WeCom carry their key in the path or the
// query). They are shown as Redacted, and a URL as its scheme and host
// followed by "/" + Redacted. A value sent back exactly as it was shown is
// replaced by the stored value it stands for; anything else is the new
// value. A new job or workflow holding the marker is refused: there is no
// stored value to keep.
package secrets

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"

	"github.com/jobwheel/jobwheel/db"
)

// Redacted stands for a secret the API does not show.
const Redacted = "[redacted]"

// plainHeaders are the request headers that describe the content and
// never carry a credential: their values are shown. Every other header's
// value (Authorization, Cookie, X-Api-Key, any custom one) is a secret.
var plainHeaders = map[string]bool{
	"Accept": true, "Accept-Charset": true, "Accept-Encoding": true, "Accept-Language": true,
	"Content-Type": true, "Content-Encoding": true, "Content-Language": true,
	"Cache-Control": true, "User-Agent": true,
}

// Processor is an HTTP job's processor as shown: its header values
// redacted, but for plainHeaders. Other processors are shown as they are.
func Processor(processorType, processor string) string {
	if processorType != db.ProcessorHTTP {
		return processor
	}
	var req map[string]any
	if json.Unmarshal([]byte(processor), &req) != nil {
		return processor
	}
	h, ok := req["headers"].(map[string]any)
	if !ok || len(h) == 0 {
		return processor
	}
	for k := range h {
		if !plainHeaders[http.CanonicalHeaderKey(k)] {
			h[k] = Redacted
		}
	}
	b, err := json.Marshal(req)
	if err != nil {
		return processor
	}
	return string(b)
}

// Target is an alarm channel's target as shown.
func Target(channelType, target string) string {
	if channelType == db.ChannelEmail {
		return target
	}
	u, err := url.Parse(target)
	if err != nil || u.Host == "" {
		return Redacted
	}
	if (u.Path == "" || u.Path == "/") && u.RawQuery == "" && u.User == nil && u.Fragment == "" {
		return target
	}
	return u.Scheme + "://" + u.Host + "/" + Redacted
}

// Alarm is an alarm's settings as shown: normalized (the legacy fields
// folded into rules and channels, which the deprecated fields are computed
// from), channel targets redacted.
func Alarm(a db.Alarm) db.Alarm {
	n := a.Normalized()
	for i := range n.Channels {
		n.Channels[i].Target = Target(n.Channels[i].Type, n.Channels[i].Target)
	}
	return n
}

// KeepProcessor is the processor to save when processor was sent over the
// stored one: header values sent as Redacted take the stored value of the
// header of that name. A header with no stored value keeps the marker,
// for Holds to refuse.
func KeepProcessor(processorType, processor, storedType, stored string) string {
	if processorType != db.ProcessorHTTP || !strings.Contains(processor, Redacted) {
		return processor
	}
	var req map[string]any
	if json.Unmarshal([]byte(processor), &req) != nil {
		return processor
	}
	h, ok := req["headers"].(map[string]any)
	if !ok {
		return processor
	}
	var old struct {
		Headers map[string]string `json:"headers"`
	}
	if storedType == db.ProcessorHTTP {
		_ = json.Unmarshal([]byte(stored), &old)
	}
	for k, v := range h {
		if v != Redacted {
			continue
		}
		for ok, ov := range old.Headers {
			if strings.EqualFold(ok, k) {
				h[k] = ov
			}
		}
	}
	b, err := json.Marshal(req)
	if err != nil {
		return processor
	}
	return string(b)
}

// KeepAlarm is the alarm to save when in was sent over stored: a channel
// whose target is what a stored channel of its type was shown as takes
// that channel's target (each stored channel once, in order); the legacy
// webhooks likewise.
func KeepAlarm(in, stored db.Alarm) db.Alarm {
	old := stored.Normalized().Channels
	used := make([]bool, len(old))
	keep := func(typ, target string) string {
		if !strings.Contains(target, Redacted) {
			return target
		}
		for i, c := range old {
			if !used[i] && c.Type == typ && Target(c.Type, c.Target) == target {
				used[i] = true
				return c.Target
			}
		}
		return target
	}
	out := in
	out.Channels = append([]db.AlarmChannel(nil), in.Channels...)
	for i := range out.Channels {
		out.Channels[i].Target = keep(out.Channels[i].Type, out.Channels[i].Target)
	}
	if len(in.LegacyWebhooks) > 0 {
		out.LegacyWebhooks = make([]string, len(in.LegacyWebhooks))
		for i, w := range in.LegacyWebhooks {
			out.LegacyWebhooks[i] = keep(db.ChannelWebhook, w)
		}
	}
	return out
}

// Holds says whether a value still holds the marker after Keep: a secret
// that was never stored, sent as shown. The save is refused.
func Holds(s string) bool { return strings.Contains(s, Redacted) }
