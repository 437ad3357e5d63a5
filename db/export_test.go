package db

import "github.com/uptrace/bun"

// IDB is the bun handle a Store runs on: the external tests run their own
// statements in a transaction with it (prepare_test.go).
func (s *Store) IDB() bun.IDB { return s.idb }
