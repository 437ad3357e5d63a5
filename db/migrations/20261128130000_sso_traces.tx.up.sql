-- Single sign-on (docs/sso.md): a user who signs in through the identity
-- provider is found again by the provider's issuer and subject, never by
-- name; NULL for local users.
ALTER TABLE users ADD COLUMN sso_subject VARCHAR(512);
--bun:split
CREATE UNIQUE INDEX users_sso_subject ON users (sso_subject);
--bun:split
-- A session from single sign-on keeps the provider's refresh token
-- (sealed with a key derived from the client secret) and when the user's
-- groups were last checked with the provider; '' and NULL for password
-- logins.
ALTER TABLE sessions ADD COLUMN sso_refresh VARCHAR(4096) NOT NULL DEFAULT '';
--bun:split
ALTER TABLE sessions ADD COLUMN sso_checked_at {{.TS}};
--bun:split
-- The provider's subject of whoever made the change ('' for local users).
ALTER TABLE audit_log ADD COLUMN actor_subject VARCHAR(512) NOT NULL DEFAULT '';
--bun:split
-- Traces (docs/tracing.md): the W3C traceparent an instance's tasks are
-- traced under (its dispatch span), '' when it was not traced.
ALTER TABLE instances ADD COLUMN trace_parent VARCHAR(64) NOT NULL DEFAULT '';
--bun:split
-- A traced workflow instance's span; its nodes' spans and its job
-- instances are traced under it.
ALTER TABLE workflow_instances ADD COLUMN trace_parent VARCHAR(64) NOT NULL DEFAULT '';
