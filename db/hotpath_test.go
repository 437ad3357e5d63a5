package db_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
)

// Every row write of instances adds an entry to each index the row is in
// (its updates are not HOT), so a unique index over a key most rows do
// not have (a backfill's, a scheduled fire's expected time) is partial on
// the key being set: an API run, a retry, a workflow node's instance cost
// it nothing (migration 20261129430000, docs/design.md §13.1). SQLite
// keeps the table's UNIQUE (job_id, expected_trigger_at), which it cannot
// drop.
func TestSparseUniqueKeysArePartialIndexes(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		type ix struct {
			Name string `bun:"name"`
			Def  string `bun:"def"`
		}
		var got []ix
		var err error
		if d.Dialect() == db.Postgres {
			err = d.Bun().NewRaw(`SELECT c.relname AS name, t.relname || ': ' || pg_get_indexdef(x.indexrelid) AS def
				FROM pg_index AS x JOIN pg_class AS c ON c.oid = x.indexrelid JOIN pg_class AS t ON t.oid = x.indrelid
				WHERE t.relname IN ('instances', 'workflow_instances') AND t.relnamespace = current_schema()::regnamespace
				AND x.indisunique`).Scan(ctx, &got)
		} else {
			err = d.Bun().NewRaw(`SELECT name, tbl_name || ': ' || sql AS def FROM sqlite_master
				WHERE type = 'index' AND tbl_name IN ('instances', 'workflow_instances') AND sql LIKE 'CREATE UNIQUE%'`).Scan(ctx, &got)
		}
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{
			"instances_backfill":          "backfill_id IS NOT NULL",
			"workflow_instances_backfill": "backfill_id IS NOT NULL",
		}
		if d.Dialect() == db.Postgres {
			want["instances_expected"] = "expected_trigger_at IS NOT NULL"
		}
		seen := map[string]bool{}
		for _, x := range got {
			def := strings.ToLower(x.Def)
			for _, col := range []string{"backfill_id", "expected_trigger_at"} {
				if d.Dialect() == db.Postgres && strings.HasPrefix(def, "instances:") && strings.Contains(def, col) && !strings.Contains(def, " where ") {
					t.Errorf("%s indexes every row, those without %s too: %s", x.Name, col, x.Def)
				}
			}
			if w, ok := want[x.Name]; ok {
				seen[x.Name] = true
				if !strings.Contains(def, strings.ToLower(w)) {
					t.Errorf("%s = %s; want it partial: WHERE %s", x.Name, x.Def, w)
				}
			}
		}
		for name := range want {
			if !seen[name] {
				t.Errorf("no unique index %s (have %+v)", name, got)
			}
		}
	})
}
