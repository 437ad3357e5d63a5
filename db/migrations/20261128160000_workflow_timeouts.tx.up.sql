-- A whole run's timeout (issue 26, item 7; Airflow's dagrun_timeout, Argo's
-- activeDeadlineSeconds): the workflow's timeout_ms, copied onto each run
-- as it starts with the deadline it gives (started + timeout, again from
-- a retry). Past its deadline a run's running nodes stop and it fails
-- with reason TIMEOUT.
ALTER TABLE workflows ADD COLUMN timeout_ms BIGINT;
--bun:split
ALTER TABLE workflow_instances ADD COLUMN timeout_ms BIGINT;
--bun:split
ALTER TABLE workflow_instances ADD COLUMN deadline {{.TS}};
