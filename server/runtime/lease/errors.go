package lease

import (
	"errors"

	"github.com/jobwheel/jobwheel/db"
)

var errStopped = errors.New("lease: this server is shutting down")

func isNotFound(err error) bool { return errors.Is(err, db.ErrNotFound) }
