package apps

import (
	"context"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/server/platform/fault"
)

// MaxRetentionDays bounds an app's retention: a hundred years is forever
// enough.
const MaxRetentionDays = 36500

// SetRetention sets how many days the app keeps its finished instances,
// with their tasks and log lines (OWNER); nil returns it to the server's
// retention. Retention (package retention) applies it at its next pass.
func (s *Service) SetRetention(ctx context.Context, appName string, days *int) (*db.App, error) {
	app, err := s.ByName(ctx, appName, db.RoleOwner)
	if err != nil {
		return nil, err
	}
	if days != nil && (*days < 1 || *days > MaxRetentionDays) {
		return nil, fault.BadInput("days", "%d is out of range 1 to %d (days to keep finished instances; null: the server's retention)", *days, MaxRetentionDays)
	}
	if err := s.store.AppSetRetentionDays(ctx, app.ID, days); err != nil {
		return nil, err
	}
	s.changed(app.ID)
	app.RetentionDays = days
	return app, nil
}
