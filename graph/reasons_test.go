package graph

import (
	"regexp"
	"testing"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/graph/generated"
)

// TestInstanceReasonDocumentsEveryReason keeps Instance.reason's description
// in step with the reasons the server records: a client switching on the
// field learns every value from the schema.
func TestInstanceReasonDocumentsEveryReason(t *testing.T) {
	schema := generated.NewExecutableSchema(generated.Config{Resolvers: &Resolver{}}).Schema()
	f := schema.Types["Instance"].Fields.ForName("reason")
	if f == nil {
		t.Fatal("Instance.reason is missing from the schema")
	}
	for _, r := range db.Reasons {
		if !regexp.MustCompile(`\b` + r + `\b`).MatchString(f.Description) {
			t.Errorf("Instance.reason's description does not name %s: %q", r, f.Description)
		}
	}
}
