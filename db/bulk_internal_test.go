package db

import (
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/driver/pgdriver"
)

// A bulk statement's rows leave their NULL fields out: PostgreSQL lexes
// every key of every object json_to_recordset reads, and most of an
// instance's or a transition's fields are NULL (issue 24). A key left out
// reads as NULL (TestBulkStatementsKeepEveryValue reads them back).
func TestRecordsetLeavesNullsOut(t *testing.T) {
	sqldb := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN("postgres://nobody@127.0.0.1:1/none?sslmode=disable")))
	defer sqldb.Close()
	s := &Store{idb: bun.NewDB(sqldb, pgdialect.New()), dialect: Postgres}
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	worker := "w"
	_, arg, cols := s.recordset("?", []InstanceTransition{
		{ID: 1, From: StatusWaiting, To: StatusDispatched, WorkerID: &worker, UpdatedAt: now},
		{ID: 2, From: StatusDispatched, To: StatusSucceeded, UpdatedAt: now},
	})
	if strings.Contains(arg, "null") {
		t.Errorf("rows %s carry nulls", arg)
	}
	want := `[{"instance_id":1,"from_status":"WAITING","to_status":"DISPATCHED","worker_id":"w","updated_at":"2026-11-28T12:00:00Z"},` +
		`{"instance_id":2,"from_status":"DISPATCHED","to_status":"SUCCEEDED","updated_at":"2026-11-28T12:00:00Z"}]`
	if arg != want {
		t.Errorf("rows\n%s\nwant\n%s", arg, want)
	}
	if len(cols) != 12 || cols[0] != `"instance_id"` {
		t.Errorf("columns %v: want every column, the NULL ones too", cols)
	}
}
