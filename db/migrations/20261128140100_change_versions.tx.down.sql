{{if .Postgres}}
DROP TRIGGER change_versions_users ON users;
--bun:split
DROP TRIGGER change_versions_sessions ON sessions;
--bun:split
DROP TRIGGER change_versions_api_tokens ON api_tokens;
--bun:split
DROP TRIGGER change_versions_app_members ON app_members;
--bun:split
DROP TRIGGER change_versions_apps ON apps;
--bun:split
DROP TRIGGER change_versions_jobs ON jobs;
--bun:split
DROP FUNCTION change_versions_bump();
{{else}}
DROP TRIGGER change_versions_users_update;
--bun:split
DROP TRIGGER change_versions_users_delete;
--bun:split
DROP TRIGGER change_versions_sessions;
--bun:split
DROP TRIGGER change_versions_api_tokens_update;
--bun:split
DROP TRIGGER change_versions_api_tokens_delete;
--bun:split
DROP TRIGGER change_versions_app_members_insert;
--bun:split
DROP TRIGGER change_versions_app_members_update;
--bun:split
DROP TRIGGER change_versions_app_members_delete;
--bun:split
DROP TRIGGER change_versions_apps_update;
--bun:split
DROP TRIGGER change_versions_apps_delete;
--bun:split
DROP TRIGGER change_versions_jobs_update;
--bun:split
DROP TRIGGER change_versions_jobs_delete;
{{end}}
--bun:split
DROP TABLE change_versions;
