-- Servers serve the API's reads of rarely changing rows (callers'
-- sessions, tokens and roles; apps; jobs) from memory
-- (server/platform/readcache). A change anywhere must reach every
-- server's memory: bus hints carry it at once, and since a hint can be
-- lost, each server also reads these counters every 100 ms. Triggers
-- move them in the transaction that changes the rows, so no code path has
-- to remember them; inserts do not (a new row was in no one's memory).
CREATE TABLE change_versions (
    scope   VARCHAR(16) PRIMARY KEY,
    version BIGINT      NOT NULL
);
--bun:split
INSERT INTO change_versions (scope, version) VALUES ('auth', 1), ('apps', 1), ('jobs', 1);
--bun:split
{{if .Postgres}}
CREATE FUNCTION change_versions_bump() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE change_versions SET version = version + 1 WHERE scope = TG_ARGV[0];
    RETURN NULL;
END $$;
--bun:split
CREATE TRIGGER change_versions_users AFTER UPDATE OR DELETE ON users
    FOR EACH STATEMENT EXECUTE FUNCTION change_versions_bump('auth');
--bun:split
CREATE TRIGGER change_versions_sessions AFTER DELETE ON sessions
    FOR EACH STATEMENT EXECUTE FUNCTION change_versions_bump('auth');
--bun:split
-- last_used_at is a touch, not a change of rights.
CREATE TRIGGER change_versions_api_tokens AFTER UPDATE OF name, token_hash, user_id, app_id, role, revoked_at OR DELETE ON api_tokens
    FOR EACH STATEMENT EXECUTE FUNCTION change_versions_bump('auth');
--bun:split
CREATE TRIGGER change_versions_app_members AFTER INSERT OR UPDATE OR DELETE ON app_members
    FOR EACH STATEMENT EXECUTE FUNCTION change_versions_bump('auth');
--bun:split
CREATE TRIGGER change_versions_apps AFTER UPDATE OR DELETE ON apps
    FOR EACH STATEMENT EXECUTE FUNCTION change_versions_bump('apps');
--bun:split
-- Every column but next_trigger_at, which the trigger loop advances at
-- every pass: that is the schedule's progress, not the definition.
CREATE TRIGGER change_versions_jobs AFTER UPDATE OF name, description, enabled, schedule_type, schedule_expression, time_zone,
    lifecycle_start, lifecycle_end, execution_mode, processor_type, processor, params, max_instances, task_concurrency, timeout_ms,
    instance_retries, task_retries, worker_filter, dispatch_strategy, misfire_policy, alarm, updated_at, schedule_window,
    calendar_id, excluded_dates, version, managed_by, overlap_policy, max_queued, priority, retry_delay_ms, retry_backoff,
    retry_delay_max_ms OR DELETE ON jobs
    FOR EACH STATEMENT EXECUTE FUNCTION change_versions_bump('jobs');
{{else}}
CREATE TRIGGER change_versions_users_update AFTER UPDATE ON users
BEGIN UPDATE change_versions SET version = version + 1 WHERE scope = 'auth'; END;
--bun:split
CREATE TRIGGER change_versions_users_delete AFTER DELETE ON users
BEGIN UPDATE change_versions SET version = version + 1 WHERE scope = 'auth'; END;
--bun:split
CREATE TRIGGER change_versions_sessions AFTER DELETE ON sessions
BEGIN UPDATE change_versions SET version = version + 1 WHERE scope = 'auth'; END;
--bun:split
CREATE TRIGGER change_versions_api_tokens_update AFTER UPDATE OF name, token_hash, user_id, app_id, role, revoked_at ON api_tokens
BEGIN UPDATE change_versions SET version = version + 1 WHERE scope = 'auth'; END;
--bun:split
CREATE TRIGGER change_versions_api_tokens_delete AFTER DELETE ON api_tokens
BEGIN UPDATE change_versions SET version = version + 1 WHERE scope = 'auth'; END;
--bun:split
CREATE TRIGGER change_versions_app_members_insert AFTER INSERT ON app_members
BEGIN UPDATE change_versions SET version = version + 1 WHERE scope = 'auth'; END;
--bun:split
CREATE TRIGGER change_versions_app_members_update AFTER UPDATE ON app_members
BEGIN UPDATE change_versions SET version = version + 1 WHERE scope = 'auth'; END;
--bun:split
CREATE TRIGGER change_versions_app_members_delete AFTER DELETE ON app_members
BEGIN UPDATE change_versions SET version = version + 1 WHERE scope = 'auth'; END;
--bun:split
CREATE TRIGGER change_versions_apps_update AFTER UPDATE ON apps
BEGIN UPDATE change_versions SET version = version + 1 WHERE scope = 'apps'; END;
--bun:split
CREATE TRIGGER change_versions_apps_delete AFTER DELETE ON apps
BEGIN UPDATE change_versions SET version = version + 1 WHERE scope = 'apps'; END;
--bun:split
CREATE TRIGGER change_versions_jobs_update AFTER UPDATE ON jobs
WHEN old.next_trigger_at IS new.next_trigger_at OR old.updated_at IS NOT new.updated_at OR old.enabled IS NOT new.enabled
BEGIN UPDATE change_versions SET version = version + 1 WHERE scope = 'jobs'; END;
--bun:split
CREATE TRIGGER change_versions_jobs_delete AFTER DELETE ON jobs
BEGIN UPDATE change_versions SET version = version + 1 WHERE scope = 'jobs'; END;
{{end}}
