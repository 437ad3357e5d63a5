-- Workflows, as built: versions, runs whose every node is its own row (so a
-- node's transition is one conditional UPDATE, never a rewrite of the run's
-- state), and job instances linked to the node that started them. The
-- tables of the first schema were never written (the API had no workflows),
-- so they are replaced.
DROP TABLE workflow_instances{{if .Postgres}} CASCADE{{end}};
--bun:split
DROP TABLE workflows{{if .Postgres}} CASCADE{{end}};
--bun:split
CREATE TABLE workflows (
    id                  {{.ID}},
    app_id              BIGINT       NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    name                VARCHAR(128) NOT NULL,
    description         TEXT         NOT NULL DEFAULT '',
    enabled             BOOLEAN      NOT NULL,
    schedule_type       VARCHAR(16)  NOT NULL,
    schedule_expression VARCHAR(255) NOT NULL DEFAULT '',
    time_zone           VARCHAR(64)  NOT NULL DEFAULT 'UTC',
    max_instances       INTEGER      NOT NULL,
    overlap_policy      VARCHAR(16)  NOT NULL,
    misfire_policy      VARCHAR(16)  NOT NULL,
    fail_fast           BOOLEAN      NOT NULL DEFAULT FALSE,
    -- The current version's nodes and edges; every version is kept in
    -- workflow_versions.
    graph               {{.JSON}}    NOT NULL,
    version             INTEGER      NOT NULL,
    next_trigger_at     {{.TS}},
    created_at          {{.TS}}      NOT NULL,
    updated_at          {{.TS}}      NOT NULL,
    UNIQUE (app_id, name)
);
--bun:split
CREATE INDEX workflows_due ON workflows (app_id, next_trigger_at) WHERE enabled;
--bun:split
CREATE TABLE workflow_versions (
    workflow_id BIGINT       NOT NULL REFERENCES workflows (id) ON DELETE CASCADE,
    version     INTEGER      NOT NULL,
    spec        {{.JSON}}    NOT NULL,
    created_by  VARCHAR(128) NOT NULL DEFAULT '',
    created_at  {{.TS}}      NOT NULL,
    PRIMARY KEY (workflow_id, version)
);
--bun:split
CREATE TABLE workflow_instances (
    id                  {{.ID}},
    app_id              BIGINT      NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    workflow_id         BIGINT      NOT NULL REFERENCES workflows (id) ON DELETE CASCADE,
    version             INTEGER     NOT NULL,
    -- A nested run: the run and node that started it.
    parent_instance_id  BIGINT      REFERENCES workflow_instances (id) ON DELETE CASCADE,
    parent_node_key     VARCHAR(64),
    status              VARCHAR(16) NOT NULL,
    reason              VARCHAR(32) NOT NULL DEFAULT '',
    trigger_type        VARCHAR(16) NOT NULL,
    expected_trigger_at {{.TS}},
    trigger_at          {{.TS}}     NOT NULL,
    -- The version's graph and options, as the run started with them.
    graph               {{.JSON}}   NOT NULL,
    fail_fast           BOOLEAN     NOT NULL DEFAULT FALSE,
    -- The initial context; nodes' additions are in workflow_node_runs.output.
    context             {{.JSON}}   NOT NULL,
    result              TEXT        NOT NULL DEFAULT '',
    epoch               BIGINT      NOT NULL DEFAULT 0,
    idempotency_key     VARCHAR(128),
    created_at          {{.TS}}     NOT NULL,
    started_at          {{.TS}},
    finished_at         {{.TS}},
    updated_at          {{.TS}}     NOT NULL,
    -- No duplicate fire, ever: one scheduled run per workflow and expected time.
    UNIQUE (workflow_id, expected_trigger_at)
);
--bun:split
CREATE INDEX workflow_instances_list ON workflow_instances (app_id, workflow_id, id);
--bun:split
CREATE INDEX workflow_instances_active ON workflow_instances (app_id, status, trigger_at)
    WHERE status IN ('WAITING', 'RUNNING', 'PAUSED');
--bun:split
CREATE INDEX workflow_instances_children ON workflow_instances (parent_instance_id);
--bun:split
{{if .Postgres}}ALTER TABLE instances ADD CONSTRAINT instances_workflow_instance_id_fkey
    FOREIGN KEY (workflow_instance_id) REFERENCES workflow_instances (id) ON DELETE CASCADE{{else}}SELECT 1{{end}};
--bun:split
CREATE TABLE workflow_node_runs (
    id                   {{.ID}},
    workflow_instance_id BIGINT       NOT NULL REFERENCES workflow_instances (id) ON DELETE CASCADE,
    node_key             VARCHAR(64)  NOT NULL,
    node_type            VARCHAR(16)  NOT NULL,
    status               VARCHAR(24)  NOT NULL,
    -- Why a node was SKIPPED or FAILED (BRANCH_NOT_TAKEN, DISABLED,
    -- UPSTREAM_FAILED, TRIGGER_RULE, REJECTED, TIMEOUT, CONTEXT_TOO_LARGE…).
    reason               VARCHAR(32)  NOT NULL DEFAULT '',
    message              TEXT         NOT NULL DEFAULT '',
    -- Bumped by every retry or rerun: a job instance or child run of an
    -- older generation no longer moves the node.
    generation           INTEGER      NOT NULL DEFAULT 1,
    instance_id          BIGINT,
    child_instance_id    BIGINT,
    result               TEXT         NOT NULL DEFAULT '',
    output               {{.JSON}},
    failure_ignored      BOOLEAN      NOT NULL DEFAULT FALSE,
    items                INTEGER      NOT NULL DEFAULT 0,
    finish_seq           BIGINT       NOT NULL DEFAULT 0,
    decided_by           VARCHAR(128),
    comment              TEXT         NOT NULL DEFAULT '',
    deadline             {{.TS}},
    started_at           {{.TS}},
    finished_at          {{.TS}},
    updated_at           {{.TS}}      NOT NULL,
    UNIQUE (workflow_instance_id, node_key)
);
--bun:split
-- A JOB or FOREACH node's job instances: which element of the list an
-- instance ran (FOREACH), what it was given and what it added to the
-- context, and the node's overrides of the job's timeout and retries.
ALTER TABLE instances ADD COLUMN workflow_item INTEGER;
--bun:split
ALTER TABLE instances ADD COLUMN workflow_generation INTEGER;
--bun:split
ALTER TABLE instances ADD COLUMN workflow_input {{.JSON}};
--bun:split
ALTER TABLE instances ADD COLUMN workflow_output {{.JSON}};
--bun:split
ALTER TABLE instances ADD COLUMN timeout_ms BIGINT;
--bun:split
ALTER TABLE instances ADD COLUMN max_retries INTEGER;
--bun:split
CREATE INDEX instances_by_workflow_instance ON instances (workflow_instance_id) WHERE workflow_instance_id IS NOT NULL;
