-- The GraphQL API (issue 6). instanceUpdated subscribers on every server
-- re-read an app's instances changed since a point in time.
CREATE INDEX instances_by_app_updated ON instances (app_id, updated_at);
--bun:split
-- Listing a user's API tokens; ending a user's other sessions on a password change.
CREATE INDEX api_tokens_user ON api_tokens (user_id);
--bun:split
CREATE INDEX sessions_user ON sessions (user_id);
