-- Backfills (issue 26 item 15; Airflow's backfill): a CRON-scheduled
-- workflow or job run once per fire time of a past range, at most
-- `parallelism` runs at once. The owner's backfill driver
-- (server/runtime/backfill) makes the runs as places free, in the same
-- transaction that moves the backfill's cursor; each run carries the
-- backfill and its logical time, unique together, so a driver that dies
-- mid-pass and its successor never make a fire time's run twice.
CREATE TABLE backfills (
    id          {{.ID}},
    app_id      BIGINT       NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    workflow_id BIGINT       REFERENCES workflows (id) ON DELETE CASCADE,
    job_id      BIGINT       REFERENCES jobs (id) ON DELETE CASCADE,
    range_from  {{.TS}}      NOT NULL,
    range_to    {{.TS}}      NOT NULL,
    schedule    {{.JSON}}    NOT NULL,
    parallelism INTEGER      NOT NULL,
    total       INTEGER      NOT NULL,
    made        INTEGER      NOT NULL DEFAULT 0,
    cursor_at   {{.TS}},
    context     {{.JSON}}    NOT NULL,
    params      TEXT         NOT NULL DEFAULT '',
    status      VARCHAR(16)  NOT NULL,
    created_by  VARCHAR(128) NOT NULL DEFAULT '',
    created_at  {{.TS}}      NOT NULL,
    finished_at {{.TS}},
    updated_at  {{.TS}}      NOT NULL
);
--bun:split
CREATE INDEX backfills_running ON backfills (app_id) WHERE status = 'RUNNING';
--bun:split
CREATE INDEX backfills_by_app ON backfills (app_id, id);
--bun:split
ALTER TABLE workflow_instances ADD COLUMN backfill_id BIGINT;
--bun:split
ALTER TABLE workflow_instances ADD COLUMN logical_time {{.TS}};
--bun:split
CREATE UNIQUE INDEX workflow_instances_backfill ON workflow_instances (backfill_id, logical_time);
--bun:split
ALTER TABLE instances ADD COLUMN backfill_id BIGINT;
--bun:split
ALTER TABLE instances ADD COLUMN logical_time {{.TS}};
--bun:split
CREATE UNIQUE INDEX instances_backfill ON instances (backfill_id, logical_time);
