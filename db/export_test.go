package db

import "github.com/uptrace/bun"

// IDB is the bun handle a Store runs on: the external tests run their own
// statements in a transaction with it (prepare_test.go).
func (s *Store) IDB() bun.IDB { return s.idb }

// TxStore is the Store of a transaction a test began itself on d's pool,
// to hold it open across the test's steps (prepare_test.go).
func TxStore(d *DB, tx bun.Tx) *Store { return &Store{idb: tx, dialect: d.dialect} }
