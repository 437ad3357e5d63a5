-- Dependencies between workflows (issue 26 item 16; Airflow's datasets,
-- PowerJob's cross-workflow triggers): a workflow started each time a run
-- of another workflow, or an instance of a job, succeeds. The run it
-- starts records what started it (upstream_run_id, upstream_instance_id),
-- unique per downstream workflow, and is inserted in the transaction that
-- ends the upstream run (the workflow engine's) or instance (the execution
-- actor's): each success starts each downstream workflow exactly once,
-- whatever fail-over comes between. jobs.has_downstream and
-- workflows.has_downstream say there is a link to look up, so an end
-- without one costs nothing more.
CREATE TABLE workflow_links (
    id                   {{.ID}},
    app_id               BIGINT  NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    workflow_id          BIGINT  NOT NULL REFERENCES workflows (id) ON DELETE CASCADE,
    upstream_workflow_id BIGINT  REFERENCES workflows (id) ON DELETE CASCADE,
    upstream_job_id      BIGINT  REFERENCES jobs (id) ON DELETE CASCADE,
    created_at           {{.TS}} NOT NULL
);
--bun:split
CREATE UNIQUE INDEX workflow_links_workflow ON workflow_links (workflow_id, upstream_workflow_id);
--bun:split
CREATE UNIQUE INDEX workflow_links_job ON workflow_links (workflow_id, upstream_job_id);
--bun:split
CREATE INDEX workflow_links_by_upstream_workflow ON workflow_links (upstream_workflow_id);
--bun:split
CREATE INDEX workflow_links_by_upstream_job ON workflow_links (upstream_job_id);
--bun:split
ALTER TABLE jobs ADD COLUMN has_downstream BOOLEAN NOT NULL DEFAULT FALSE;
--bun:split
ALTER TABLE workflows ADD COLUMN has_downstream BOOLEAN NOT NULL DEFAULT FALSE;
--bun:split
ALTER TABLE workflow_instances ADD COLUMN upstream_run_id BIGINT;
--bun:split
ALTER TABLE workflow_instances ADD COLUMN upstream_instance_id BIGINT;
--bun:split
CREATE UNIQUE INDEX workflow_instances_upstream_run ON workflow_instances (workflow_id, upstream_run_id);
--bun:split
CREATE UNIQUE INDEX workflow_instances_upstream_instance ON workflow_instances (workflow_id, upstream_instance_id);
