package graph

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"time"

	"github.com/vektah/gqlparser/v2/formatter"

	"github.com/jobwheel/jobwheel/graph/generated"
)

// SchemaPath is where the API's schema is served as SDL, for clients that
// generate code or check their operations against it.
const SchemaPath = "/graphql/schema.graphql"

// SchemaSDL returns the API's schema as one SDL document: the schema the
// server executes (every graph/schema/*.graphqls file merged), with its
// descriptions and @deprecated reasons, without the built-in types.
func SchemaSDL() []byte {
	var b bytes.Buffer
	formatter.NewFormatter(&b, formatter.WithIndent("  ")).FormatSchema(generated.NewExecutableSchema(generated.Config{}).Schema())
	return b.Bytes()
}

// SchemaHandler serves the schema as SDL, with an ETag so a client can
// ask whether it changed. It needs no login: the schema is what
// introspection shows anyone, and a build tool fetching it holds no
// credential.
func SchemaHandler() http.Handler {
	body := SchemaSDL()
	sum := sha256.Sum256(body)
	etag := `"` + hex.EncodeToString(sum[:16]) + `"`
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/graphql; charset=utf-8")
		w.Header().Set("ETag", etag)
		w.Header().Set("Cache-Control", "no-cache")
		http.ServeContent(w, r, "schema.graphql", time.Time{}, bytes.NewReader(body))
	})
}
