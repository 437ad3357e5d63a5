package graph

import (
	"mime"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"

	"github.com/jobwheel/jobwheel/server/platform/fault"
)

// GraphiQLPath is the console's GraphQL explorer, where a browser that
// opens /graphql is sent.
const GraphiQLPath = "/graphiql"

// crossSite refuses a request that a browser made on behalf of a page of
// another origin and that would ride on the session cookie (cross-site
// request forgery; SameSite=Strict does not help against pages on another
// port or a sibling subdomain, which count as the same site). Requests
// with an Authorization header carry their credential explicitly and are
// not checked. A browser says where a request comes from in
// Sec-Fetch-Site and Origin; requests with neither are not from a page.
func crossSite(r *http.Request, allowed []string) error {
	if r.Header.Get("Authorization") != "" || r.Method == http.MethodOptions {
		return nil
	}
	site := r.Header.Get("Sec-Fetch-Site")
	if site == "same-origin" || site == "none" { // "none": typed into the address bar
		return nil
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		if site == "" {
			return nil // not sent by a browser page
		}
		return fault.Forbidden("a request from another site may not use the session cookie")
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return fault.Forbidden("a request from origin %q may not use the session cookie", origin)
	}
	if originAllowed(u.Host, r.Host, allowed) {
		return nil
	}
	return fault.Forbidden("a request from origin %s may not use the session cookie; the console's own origin and JOBWHEEL_ALLOWED_ORIGINS may", origin)
}

// originAllowed reports whether a page on host may call the API: the
// server's own host, or one matching a configured host[:port] pattern
// (the same patterns that allow websocket origins).
func originAllowed(host, self string, patterns []string) bool {
	host = strings.ToLower(host)
	if host == strings.ToLower(self) {
		return true
	}
	for _, p := range patterns {
		if ok, _ := path.Match(strings.ToLower(p), host); ok {
			return true
		}
	}
	return false
}

// wantsHTML reports whether a GET comes from a browser navigating to the
// endpoint: it prefers HTML to JSON.
func wantsHTML(r *http.Request) bool {
	if r.Method != http.MethodGet || r.Header.Get("Upgrade") != "" {
		return false
	}
	best, bestQ := "", -1.0
	for _, part := range strings.Split(r.Header.Get("Accept"), ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		q := 1.0
		if v, ok := params["q"]; ok {
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				q = f
			}
		}
		switch mt {
		case "text/html", mediaJSON, mediaGraphQLResponse:
			if q > bestQ {
				best, bestQ = mt, q
			}
		}
	}
	return best == "text/html"
}

// bearerToken returns the token of an "Authorization: Bearer <token>"
// header (the scheme is case-insensitive, as in RFC 9110), else the
// session cookie's. A present Authorization header that is not a bearer
// token counts as a credential that fails, not as none.
func bearerToken(r *http.Request) (token string, fromCookie, malformed bool) {
	if h := r.Header.Get("Authorization"); h != "" {
		t, ok := cutBearer(h)
		return t, false, !ok
	}
	if c, err := r.Cookie(SessionCookie); err == nil {
		return c.Value, true, false
	}
	return "", false, false
}

// cutBearer parses "Bearer <token>" with any case of the scheme.
func cutBearer(h string) (string, bool) {
	scheme, token, ok := strings.Cut(strings.TrimSpace(h), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}
