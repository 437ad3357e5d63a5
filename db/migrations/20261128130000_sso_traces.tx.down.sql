ALTER TABLE workflow_instances DROP COLUMN trace_parent;
--bun:split
ALTER TABLE instances DROP COLUMN trace_parent;
--bun:split
ALTER TABLE audit_log DROP COLUMN actor_subject;
--bun:split
ALTER TABLE sessions DROP COLUMN sso_checked_at;
--bun:split
ALTER TABLE sessions DROP COLUMN sso_refresh;
--bun:split
DROP INDEX users_sso_subject;
--bun:split
ALTER TABLE users DROP COLUMN sso_subject;
