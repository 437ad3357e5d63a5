-- The whole jobwheel domain. Rendered per dialect: {{.ID}} is an auto-increment
-- primary key, {{.TS}} a timestamp with time zone (SQLite stores UTC text that
-- sorts correctly), {{.JSON}} a JSON document.

CREATE TABLE users (
    id            {{.ID}},
    username      VARCHAR(64)  NOT NULL UNIQUE,
    password_hash VARCHAR(255) NOT NULL,
    admin         BOOLEAN      NOT NULL DEFAULT FALSE,
    created_at    {{.TS}}      NOT NULL,
    updated_at    {{.TS}}      NOT NULL
);
--bun:split
CREATE TABLE sessions (
    id           {{.ID}},
    token_hash   VARCHAR(64) NOT NULL UNIQUE,
    user_id      BIGINT      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at   {{.TS}}     NOT NULL,
    expires_at   {{.TS}}     NOT NULL
);
--bun:split
CREATE INDEX sessions_expires_at ON sessions (expires_at);
--bun:split
CREATE TABLE apps (
    id          {{.ID}},
    name        VARCHAR(64)  NOT NULL UNIQUE,
    description TEXT         NOT NULL DEFAULT '',
    secret_hash VARCHAR(255) NOT NULL,
    created_at  {{.TS}}      NOT NULL,
    updated_at  {{.TS}}      NOT NULL
);
--bun:split
CREATE TABLE app_members (
    app_id     BIGINT      NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    user_id    BIGINT      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    role       VARCHAR(16) NOT NULL,
    created_at {{.TS}}     NOT NULL,
    PRIMARY KEY (app_id, user_id)
);
--bun:split
CREATE INDEX app_members_user ON app_members (user_id);
--bun:split
CREATE TABLE api_tokens (
    id           {{.ID}},
    name         VARCHAR(128) NOT NULL,
    token_hash   VARCHAR(64)  NOT NULL UNIQUE,
    user_id      BIGINT       NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    app_id       BIGINT       REFERENCES apps (id) ON DELETE CASCADE,
    role         VARCHAR(16),
    created_at   {{.TS}}      NOT NULL,
    last_used_at {{.TS}},
    revoked_at   {{.TS}}
);
--bun:split
CREATE TABLE servers (
    id            VARCHAR(64)  PRIMARY KEY,
    advertise_url VARCHAR(512) NOT NULL,
    version       VARCHAR(64)  NOT NULL DEFAULT '',
    started_at    {{.TS}}      NOT NULL,
    heartbeat_at  {{.TS}}      NOT NULL
);
--bun:split
CREATE TABLE app_leases (
    app_id      BIGINT      PRIMARY KEY REFERENCES apps (id) ON DELETE CASCADE,
    server_id   VARCHAR(64) NOT NULL,
    epoch       BIGINT      NOT NULL,
    acquired_at {{.TS}}     NOT NULL,
    expires_at  {{.TS}}     NOT NULL
);
--bun:split
CREATE INDEX app_leases_server ON app_leases (server_id);
--bun:split
CREATE TABLE workers (
    app_id         BIGINT       NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    id             VARCHAR(128) NOT NULL,
    server_id      VARCHAR(64)  NOT NULL,
    host           VARCHAR(255) NOT NULL,
    version        VARCHAR(64)  NOT NULL DEFAULT '',
    tags           {{.JSON}}    NOT NULL,
    processors     {{.JSON}}    NOT NULL,
    slots          INTEGER      NOT NULL,
    metrics        {{.JSON}}    NOT NULL,
    connected_at   {{.TS}}      NOT NULL,
    last_heartbeat {{.TS}}      NOT NULL,
    disconnected_at {{.TS}},
    PRIMARY KEY (app_id, id)
);
--bun:split
CREATE TABLE jobs (
    id                  {{.ID}},
    app_id              BIGINT       NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    name                VARCHAR(128) NOT NULL,
    description         TEXT         NOT NULL DEFAULT '',
    enabled             BOOLEAN      NOT NULL,
    schedule_type       VARCHAR(16)  NOT NULL,
    schedule_expression VARCHAR(255) NOT NULL DEFAULT '',
    time_zone           VARCHAR(64)  NOT NULL DEFAULT 'UTC',
    lifecycle_start     {{.TS}},
    lifecycle_end       {{.TS}},
    execution_mode      VARCHAR(16)  NOT NULL,
    processor_type      VARCHAR(16)  NOT NULL,
    processor           TEXT         NOT NULL,
    params              TEXT         NOT NULL DEFAULT '',
    max_instances       INTEGER      NOT NULL,
    task_concurrency    INTEGER      NOT NULL,
    timeout_ms          BIGINT       NOT NULL,
    instance_retries    INTEGER      NOT NULL,
    task_retries        INTEGER      NOT NULL,
    worker_filter       {{.JSON}}    NOT NULL,
    dispatch_strategy   VARCHAR(16)  NOT NULL,
    misfire_policy      VARCHAR(16)  NOT NULL,
    alarm               {{.JSON}}    NOT NULL,
    next_trigger_at     {{.TS}},
    created_at          {{.TS}}      NOT NULL,
    updated_at          {{.TS}}      NOT NULL,
    UNIQUE (app_id, name)
);
--bun:split
-- The trigger loop's query: enabled jobs of one app due within the look-ahead.
CREATE INDEX jobs_due ON jobs (app_id, next_trigger_at) WHERE enabled;
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
CREATE TABLE instances (
    id                   {{.ID}},
    app_id               BIGINT       NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    job_id               BIGINT       NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    workflow_instance_id BIGINT       REFERENCES workflow_instances (id) ON DELETE CASCADE,
    workflow_node_id     VARCHAR(64),
    status               VARCHAR(16)  NOT NULL,
    trigger_type         VARCHAR(16)  NOT NULL,
    expected_trigger_at  {{.TS}},
    trigger_at           {{.TS}}      NOT NULL,
    actual_trigger_at    {{.TS}},
    started_at           {{.TS}},
    finished_at          {{.TS}},
    attempt              INTEGER      NOT NULL DEFAULT 1,
    params               TEXT         NOT NULL DEFAULT '',
    result               TEXT         NOT NULL DEFAULT '',
    reason               VARCHAR(32)  NOT NULL DEFAULT '',
    worker_id            VARCHAR(128),
    epoch                BIGINT       NOT NULL DEFAULT 0,
    log_seq              BIGINT       NOT NULL DEFAULT 0,
    created_at           {{.TS}}      NOT NULL,
    updated_at           {{.TS}}      NOT NULL,
    -- No duplicate fire, ever: one scheduled instance per job and expected time.
    UNIQUE (job_id, expected_trigger_at)
);
--bun:split
CREATE INDEX instances_by_job ON instances (job_id, id);
--bun:split
CREATE INDEX instances_by_app ON instances (app_id, id);
--bun:split
-- The status checker and concurrency limits read unfinished instances only.
CREATE INDEX instances_active ON instances (app_id, status, trigger_at)
    WHERE status IN ('WAITING', 'DISPATCHED', 'RUNNING');
--bun:split
CREATE TABLE instance_attempts (
    id          {{.ID}},
    instance_id BIGINT       NOT NULL REFERENCES instances (id) ON DELETE CASCADE,
    attempt     INTEGER      NOT NULL,
    status      VARCHAR(16)  NOT NULL,
    worker_id   VARCHAR(128),
    result      TEXT         NOT NULL DEFAULT '',
    reason      VARCHAR(32)  NOT NULL DEFAULT '',
    started_at  {{.TS}},
    finished_at {{.TS}},
    UNIQUE (instance_id, attempt)
);
--bun:split
CREATE TABLE tasks (
    id          {{.ID}},
    instance_id BIGINT       NOT NULL REFERENCES instances (id) ON DELETE CASCADE,
    parent_id   BIGINT,
    name        VARCHAR(255) NOT NULL,
    kind        VARCHAR(16)  NOT NULL,
    status      VARCHAR(16)  NOT NULL,
    payload     TEXT         NOT NULL DEFAULT '',
    result      TEXT         NOT NULL DEFAULT '',
    worker_id   VARCHAR(128),
    -- The instance attempt the task belongs to; a retried instance starts afresh.
    instance_attempt INTEGER NOT NULL,
    retries     INTEGER      NOT NULL DEFAULT 0,
    created_at  {{.TS}}      NOT NULL,
    dispatched_at {{.TS}},
    finished_at {{.TS}},
    updated_at  {{.TS}}      NOT NULL
);
--bun:split
CREATE INDEX tasks_by_instance ON tasks (instance_id, status, id);
--bun:split
CREATE INDEX tasks_by_worker ON tasks (worker_id, status) WHERE status IN ('DISPATCHED', 'RUNNING');
--bun:split
CREATE TABLE instance_logs (
    id          {{.ID}},
    instance_id BIGINT       NOT NULL REFERENCES instances (id) ON DELETE CASCADE,
    seq         BIGINT       NOT NULL,
    worker_id   VARCHAR(128) NOT NULL DEFAULT '',
    worker_seq  BIGINT       NOT NULL,
    time        {{.TS}}      NOT NULL,
    level       VARCHAR(8)   NOT NULL,
    text        TEXT         NOT NULL,
    UNIQUE (instance_id, seq),
    -- At-least-once delivery from workers, de-duplicated here.
    UNIQUE (instance_id, worker_id, worker_seq)
);
