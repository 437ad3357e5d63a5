package graph

import (
	"os"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"github.com/jobwheel/jobwheel/server/api/auth"
)

func TestMain(m *testing.M) {
	auth.PasswordCost = bcrypt.MinCost // bcrypt is slow by design, more so under -race
	os.Exit(m.Run())
}
