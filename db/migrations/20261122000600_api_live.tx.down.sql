DROP INDEX sessions_user;
--bun:split
DROP INDEX api_tokens_user;
--bun:split
DROP INDEX instances_by_app_updated;
