package model

import (
	"time"

	"github.com/jobwheel/jobwheel/db"
)

// Session is a login as the API returns it.
type Session struct {
	Token     string
	ExpiresAt time.Time
	User      *db.User
}
