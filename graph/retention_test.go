package graph

import (
	"testing"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
)

// An app's retention is set, read back, validated (the field named, the
// reason given) and reset to the server's with null.
func TestAppRetention(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		api := newAPI(t, d, apiOptions{})
		admin := api.admin(t)
		api.createApp(t, admin, "orders")
		var set struct{ SetAppRetention struct{ RetentionDays *int } }
		api.must(t, admin, `mutation { setAppRetention(app: "orders", days: 30) { retentionDays } }`, nil, &set)
		if set.SetAppRetention.RetentionDays == nil || *set.SetAppRetention.RetentionDays != 30 {
			t.Fatalf("retentionDays %v; want 30", set.SetAppRetention.RetentionDays)
		}
		var apps struct {
			Apps []struct{ RetentionDays *int }
		}
		api.must(t, admin, `{ apps { retentionDays } }`, nil, &apps)
		if len(apps.Apps) != 1 || apps.Apps[0].RetentionDays == nil || *apps.Apps[0].RetentionDays != 30 {
			t.Fatalf("apps %+v; want retentionDays 30", apps.Apps)
		}
		for _, bad := range []string{"0", "-1", "36501"} {
			r := api.do(t, admin, `mutation { setAppRetention(app: "orders", days: `+bad+`) { retentionDays } }`, nil, nil)
			if r.code() != CodeBadInput || r.Errors[0].field() != "days" {
				t.Fatalf("days %s: %+v; want BAD_INPUT on days", bad, r.Errors)
			}
		}
		api.must(t, admin, `mutation { setAppRetention(app: "orders", days: null) { retentionDays } }`, nil, &set)
		if set.SetAppRetention.RetentionDays != nil {
			t.Fatalf("after null: retentionDays %v; want null (the server's)", *set.SetAppRetention.RetentionDays)
		}
	})
}
