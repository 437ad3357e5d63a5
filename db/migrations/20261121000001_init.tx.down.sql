DROP TABLE instance_logs;
--bun:split
DROP TABLE tasks;
--bun:split
DROP TABLE instance_attempts;
--bun:split
DROP TABLE instances;
--bun:split
DROP TABLE workflow_instances;
--bun:split
DROP TABLE workflows;
--bun:split
DROP TABLE jobs;
--bun:split
DROP TABLE workers;
--bun:split
DROP TABLE app_leases;
--bun:split
DROP TABLE servers;
--bun:split
DROP TABLE api_tokens;
--bun:split
DROP TABLE app_members;
--bun:split
DROP TABLE apps;
--bun:split
DROP TABLE sessions;
--bun:split
DROP TABLE users;
