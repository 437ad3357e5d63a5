package db_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/internal/testfactory"
	"github.com/jobwheel/jobwheel/internal/testkit"
)

// preparedStatement is a row of pg_prepared_statements: the statements
// prepared in the session that reads it.
type preparedStatement struct {
	Statement string `bun:"statement"`
	Generic   int    `bun:"generic_plans"`
	Custom    int    `bun:"custom_plans"`
}

func preparedStatements(t *testing.T, idb bun.IDB) []preparedStatement {
	t.Helper()
	var got []preparedStatement
	if err := idb.NewRaw(`SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements`).
		Scan(context.Background(), &got); err != nil {
		t.Fatalf("reading pg_prepared_statements: %v", err)
	}
	return got
}

// bulkRound runs the bulk statements of an API instance's life on s — an
// insert with RETURNING, one without, an upsert whose text has quoted
// strings (which a client-side substitution of $1 must step over), an
// update — and checks what they did.
func bulkRound(t *testing.T, ctx context.Context, s *db.Store, job *db.Job, round int) {
	t.Helper()
	in := &db.Instance{AppID: job.AppID, JobID: job.ID, Status: db.StatusWaiting, TriggerType: "API", TriggerAt: db.Now()}
	if err := s.InstanceCreateMany(ctx, []*db.Instance{in}); err != nil || in.ID == 0 {
		t.Fatalf("round %d: creating an instance: id %d, %v", round, in.ID, err)
	}
	if err := s.AuditCreateMany(ctx, []*db.AuditEntry{{At: db.Now(), App: "a", Actor: "t", Action: "RUN", ObjectType: "job"}}); err != nil {
		t.Fatalf("round %d: recording an audit entry: %v", round, err)
	}
	if err := s.AttemptUpsertMany(ctx, []db.InstanceAttempt{{InstanceID: in.ID, Attempt: 1, Status: db.StatusFailed, Result: "it's ''quoted''"}}); err != nil {
		t.Fatalf("round %d: recording an attempt: %v", round, err)
	}
	moved, err := s.InstanceTransitionMany(ctx, []db.InstanceTransition{{ID: in.ID, From: db.StatusWaiting, To: db.StatusRunning}})
	if err != nil || len(moved) != 1 || moved[0] != in.ID {
		t.Fatalf("round %d: moving instance %d: %v, %v", round, in.ID, moved, err)
	}
}

// The bulk inserts (instances, tasks, attempts, audit entries inserted in
// one statement each) take their rows as a bind parameter and run as
// statements prepared once per connection, so PostgreSQL parses and plans
// each text once, not at every call (db/prepare.go). Seven rounds on one
// connection, in and out of transactions, prepare each insert once and run
// it seven times; after five runs PostgreSQL keeps a generic plan. The bulk
// updates stay simple queries, planned for the table as it is at each run.
func TestBulkInsertsArePreparedOncePerConnection(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := dbtest.Open(t, db.Postgres)
	app := testfactory.App(t, d, nil)
	job := testfactory.Job(t, d, app.ID, nil)
	// One connection, so one session: the one pg_prepared_statements shows.
	d.Bun().SetMaxOpenConns(1)

	const rounds = 7
	for round := 0; round < rounds; round++ {
		if round%2 == 0 {
			bulkRound(t, ctx, &d.Store, job, round)
			continue
		}
		if err := d.InTx(ctx, func(ctx context.Context, tx *db.Store) error {
			bulkRound(t, ctx, tx, job, round)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}

	got := preparedStatements(t, d.Bun())
	for _, p := range got {
		if strings.HasPrefix(strings.TrimSpace(p.Statement), "UPDATE") {
			t.Errorf("an update is prepared: %s", p.Statement)
		}
	}
	for _, w := range []string{"INSERT INTO instances", "INSERT INTO audit_log", "INSERT INTO instance_attempts"} {
		var found []preparedStatement
		for _, p := range got {
			if strings.HasPrefix(strings.TrimSpace(p.Statement), w) {
				found = append(found, p)
			}
		}
		if len(found) != 1 {
			t.Errorf("%s…: prepared %d times on the connection, want once (prepared: %+v)", w, len(found), got)
			continue
		}
		p := found[0]
		if !strings.Contains(p.Statement, "json_to_recordset($1::json)") {
			t.Errorf("%s…: its rows are not a bind parameter: %s", w, p.Statement)
		}
		if p.Generic+p.Custom != rounds {
			t.Errorf("%s…: run %d times as prepared, want %d", w, p.Generic+p.Custom, rounds)
		}
		if p.Generic == 0 {
			t.Errorf("%s…: planned anew at each of its %d runs; want PostgreSQL to keep a generic plan after five", w, p.Custom)
		}
	}
}

// Behind a pooler in transaction pooling mode the next statement may run
// in another server session, so no statement is prepared: the bulk
// statements go as simple queries with their parameter substituted on the
// client, and do the same.
func TestBulkStatementsAreNotPreparedBehindATransactionPooler(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := dbtest.Open(t, db.Postgres)
	app := testfactory.App(t, d, nil)
	job := testfactory.Job(t, d, app.ID, nil)

	base := dbtest.PostgresURL(t)
	sep := "?"
	if strings.Contains(base, "?") {
		sep = "&"
	}
	// Directly to PostgreSQL, but told it is a transaction pooler: one
	// connection, so one session to read pg_prepared_statements of.
	pooled, err := db.OpenPool(ctx, base+sep+"pool_mode=transaction", 1)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = pooled.Close() }()
	if err := pooled.InTx(ctx, func(ctx context.Context, tx *db.Store) error {
		// A transaction pooler refuses search_path in the URL; a
		// transaction may still set its own.
		if _, err := tx.IDB().ExecContext(ctx, "SET LOCAL search_path TO ?", bun.Ident(d.Namespace())); err != nil {
			return err
		}
		for round := 0; round < 7; round++ {
			bulkRound(t, ctx, tx, job, round)
		}
		if got := preparedStatements(t, tx.IDB()); len(got) != 0 {
			t.Errorf("prepared behind a transaction pooler: %+v", got)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// A prepared statement's answer that a timeout stopped reading is not
// read as the next statement's: the connection is closed (as pgdriver
// closes one after a simple query's timeout), and the next statement runs
// on a new one, prepared there.
func TestPreparedStatementCutByATimeoutLeavesNoAnswerBehind(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := dbtest.Open(t, db.Postgres)
	app := testfactory.App(t, d, nil)
	job := testfactory.Job(t, d, app.ID, nil)
	t0 := db.Stamp(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	t1 := t0.Add(time.Minute)
	fire := func(at time.Time) []db.Instance {
		return []db.Instance{{AppID: app.ID, JobID: job.ID, Status: db.StatusWaiting, TriggerType: "CRON", TriggerAt: at, ExpectedTriggerAt: &at}}
	}
	d.Bun().SetMaxOpenConns(1)
	var pid int
	if err := d.Bun().NewRaw("SELECT pg_backend_pid()").Scan(ctx, &pid); err != nil {
		t.Fatal(err)
	}

	// Another transaction records the fire at t0 and holds it uncommitted.
	other := dbtest.OpenURL(t, db.WithSearchPath(dbtest.PostgresURL(t), d.Namespace()))
	lock, err := other.Bun().BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = lock.Rollback() }()
	if _, err := db.TxStore(other, lock).InstanceCreateFired(ctx, fire(t0)); err != nil {
		t.Fatal(err)
	}
	// Recording the same fire waits to see whether that one commits; the
	// client stops waiting first.
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	_, err = d.InstanceCreateFired(short, fire(t0))
	cancel()
	if err == nil {
		t.Fatal("recorded a fire another transaction holds, within the timeout")
	}
	// Once the other rolls back PostgreSQL records the fire, and sends its
	// answer (the row) to the connection that stopped listening.
	if err := lock.Rollback(); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, "the timed-out insert ended in PostgreSQL", func() bool {
		var n int
		err := other.Bun().NewRaw("SELECT count(*) FROM pg_stat_activity WHERE pid = ? AND state = 'active'", pid).Scan(ctx, &n)
		return err == nil && n == 0
	})
	created, err := d.InstanceCreateFired(ctx, fire(t1))
	if err != nil || len(created) != 1 {
		t.Fatalf("recording the fire at t1: %v, %v; want it created (nothing created: the answer read was the timed-out statement's)", created, err)
	}
}

// A connection lost (a failover, a restart) takes its prepared statements
// with it; the one database/sql opens instead prepares them again.
func TestPreparedStatementsArePreparedAgainOnANewConnection(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := dbtest.Open(t, db.Postgres)
	app := testfactory.App(t, d, nil)
	job := testfactory.Job(t, d, app.ID, nil)
	d.Bun().SetMaxOpenConns(1)
	bulkRound(t, ctx, &d.Store, job, 0)

	var pid int
	if err := d.Bun().NewRaw("SELECT pg_backend_pid()").Scan(ctx, &pid); err != nil {
		t.Fatal(err)
	}
	other := dbtest.OpenURL(t, dbtest.PostgresURL(t))
	if _, err := other.Bun().ExecContext(ctx, "SELECT pg_terminate_backend(?)", pid); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, "the connection's server process ended", func() bool {
		var n int
		err := other.Bun().NewRaw("SELECT count(*) FROM pg_stat_activity WHERE pid = ?", pid).Scan(ctx, &n)
		return err == nil && n == 0
	})
	// The first statement on the dead connection fails as any statement
	// would, its outcome unknown to the caller; the next runs on a new one.
	audit := func() error {
		return d.AuditCreateMany(ctx, []*db.AuditEntry{{At: db.Now(), App: "a", Actor: "t", Action: "RUN", ObjectType: "job"}})
	}
	err := audit()
	if err != nil && !db.OutcomeUnknown(err) {
		t.Fatalf("the first statement after the connection was lost: %v; want a success or an outcome unknown", err)
	}
	if err != nil {
		err = audit()
	}
	if err != nil {
		t.Fatalf("recording an audit entry on a new connection: %v", err)
	}
	var newPid int
	if err := d.Bun().NewRaw("SELECT pg_backend_pid()").Scan(ctx, &newPid); err != nil || newPid == pid {
		t.Fatalf("still on server process %d (%v)", newPid, err)
	}
	found := false
	for _, p := range preparedStatements(t, d.Bun()) {
		found = found || strings.HasPrefix(strings.TrimSpace(p.Statement), "INSERT INTO audit_log")
	}
	if !found {
		t.Error("the audit insert is not prepared on the new connection")
	}
}
