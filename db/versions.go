package db

import "context"

// Scopes of change_versions: each counts the changes to a kind of row a
// server keeps in memory (server/platform/readcache). Triggers move them
// in the transaction that changes the rows (migration 20261128100100).
const (
	VersionAuth = "auth" // users, sessions ended, API tokens, app members
	VersionApps = "apps" // apps
	VersionJobs = "jobs" // job definitions (not their next fire)
)

// ChangeVersionList returns every scope's change counter.
func (s *Store) ChangeVersionList(ctx context.Context) (map[string]int64, error) {
	var rows []struct {
		Scope   string `bun:"scope"`
		Version int64  `bun:"version"`
	}
	err := s.idb.NewSelect().TableExpr("change_versions").Column("scope", "version").Scan(ctx, &rows)
	out := make(map[string]int64, len(rows))
	for _, r := range rows {
		out[r.Scope] = r.Version
	}
	return out, wrap(err, "reading change versions")
}
