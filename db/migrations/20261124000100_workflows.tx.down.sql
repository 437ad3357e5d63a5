DROP INDEX instances_by_workflow_instance;
--bun:split
ALTER TABLE instances DROP COLUMN max_retries;
--bun:split
ALTER TABLE instances DROP COLUMN timeout_ms;
--bun:split
ALTER TABLE instances DROP COLUMN workflow_output;
--bun:split
ALTER TABLE instances DROP COLUMN workflow_input;
--bun:split
ALTER TABLE instances DROP COLUMN workflow_generation;
--bun:split
ALTER TABLE instances DROP COLUMN workflow_item;
--bun:split
DROP TABLE workflow_node_runs;
--bun:split
DROP TABLE workflow_instances{{if .Postgres}} CASCADE{{end}};
--bun:split
DROP TABLE workflow_versions;
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
    misfire_policy      VARCHAR(16)  NOT NULL,
    dag                 {{.JSON}}    NOT NULL,
    next_trigger_at     {{.TS}},
    created_at          {{.TS}}      NOT NULL,
    updated_at          {{.TS}}      NOT NULL,
    UNIQUE (app_id, name)
);
--bun:split
CREATE INDEX workflows_due ON workflows (app_id, next_trigger_at) WHERE enabled;
--bun:split
CREATE TABLE workflow_instances (
    id                  {{.ID}},
    app_id              BIGINT      NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    workflow_id         BIGINT      NOT NULL REFERENCES workflows (id) ON DELETE CASCADE,
    parent_instance_id  BIGINT,
    status              VARCHAR(16) NOT NULL,
    trigger_type        VARCHAR(16) NOT NULL,
    expected_trigger_at {{.TS}},
    dag                 {{.JSON}}   NOT NULL,
    nodes               {{.JSON}}   NOT NULL,
    context             {{.JSON}}   NOT NULL,
    result              TEXT        NOT NULL DEFAULT '',
    epoch               BIGINT      NOT NULL DEFAULT 0,
    created_at          {{.TS}}     NOT NULL,
    started_at          {{.TS}},
    finished_at         {{.TS}},
    updated_at          {{.TS}}     NOT NULL,
    UNIQUE (workflow_id, expected_trigger_at)
);
--bun:split
CREATE INDEX workflow_instances_list ON workflow_instances (app_id, workflow_id, id);
--bun:split
CREATE INDEX workflow_instances_active ON workflow_instances (app_id, status);
--bun:split
{{if .Postgres}}ALTER TABLE instances ADD CONSTRAINT instances_workflow_instance_id_fkey
    FOREIGN KEY (workflow_instance_id) REFERENCES workflow_instances (id) ON DELETE CASCADE{{else}}SELECT 1{{end}}
