package db_test

import (
	"context"
	"errors"
	"testing"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/internal/testkit"
)

// TestCommitWithLostAnswerIsUnknown (issue 30): when the connection dies
// after COMMIT reached PostgreSQL and before its answer came back, the
// transaction committed but the caller sees an error. That error must say
// the outcome is unknown (db.OutcomeUnknown), so no caller redoes the
// write; an error PostgreSQL answered with (a unique violation) is a
// definite failure, which may be redone.
func TestCommitWithLostAnswerIsUnknown(t *testing.T) {
	t.Parallel()
	d, cut := dbtest.OpenCommitCut(t)
	ctx := context.Background()
	done := cut()
	err := d.InTx(ctx, func(ctx context.Context, tx *db.Store) error {
		return tx.AppCreate(ctx, &db.App{Name: "committed-unseen", SecretHash: "x"})
	})
	testkit.Receive(t, "the COMMIT to be carried out with its answer lost", done)
	if err == nil {
		t.Fatal("the commit's answer was lost, yet InTx returned no error")
	}
	if !db.OutcomeUnknown(err) {
		t.Errorf("OutcomeUnknown(%v) = false; want true: the commit happened", err)
	}
	if _, err := d.AppGetByName(ctx, "committed-unseen"); err != nil {
		t.Fatalf("the app whose commit answer was lost: %v; want it committed", err)
	}

	// A definite failure: PostgreSQL refused the statement and rolled back.
	err = d.InTx(ctx, func(ctx context.Context, tx *db.Store) error {
		return tx.AppCreate(ctx, &db.App{Name: "committed-unseen", SecretHash: "x"})
	})
	if !errors.Is(err, db.ErrConflict) || db.OutcomeUnknown(err) {
		t.Errorf("a duplicate app: %v, OutcomeUnknown %v; want a conflict whose outcome is known", err, db.OutcomeUnknown(err))
	}
}

// TestReadOnlyIsNotADataError: a write refused because the node turned
// read-only (a primary demoted by a switchover, SQLSTATE 25006) passes
// with the database's trouble; a write refused for its data (a unique
// violation) would meet the same refusal again (db.IsDataError).
func TestReadOnlyIsNotADataError(t *testing.T) {
	t.Parallel()
	d := dbtest.Open(t, db.Postgres)
	ctx := context.Background()
	err := d.InSnapshot(ctx, func(ctx context.Context, tx *db.Store) error { // a READ ONLY transaction
		return tx.AppCreate(ctx, &db.App{Name: "read-only", SecretHash: "x"})
	})
	if err == nil || db.IsDataError(err) {
		t.Errorf("a write in a read-only transaction: %v, IsDataError %v; want an error that is not the data's", err, db.IsDataError(err))
	}
	if err := d.AppCreate(ctx, &db.App{Name: "twice", SecretHash: "x"}); err != nil {
		t.Fatal(err)
	}
	err = d.AppCreate(ctx, &db.App{Name: "twice", SecretHash: "x"})
	if !db.IsDataError(err) {
		t.Errorf("a duplicate app: %v; want a data error", err)
	}
}
