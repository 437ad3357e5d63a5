-- Alarms (docs/design.md §6.7): the state of each rule of each job or
-- workflow, kept in the database so that de-duplication holds across a
-- restart and a change of the app's owner; the history of what was sent,
-- silenced or failed to deliver; and the workflows' alarm settings.
CREATE TABLE alarm_states (
    -- JOB or WORKFLOW, and its id; no foreign key: a deleted job's rows
    -- are harmless and go with retention.
    subject_kind VARCHAR(16) NOT NULL,
    subject_id   BIGINT      NOT NULL,
    rule         VARCHAR(32) NOT NULL,
    -- storming: the rule alarmed and no success has come since.
    storming     BOOLEAN     NOT NULL DEFAULT FALSE,
    -- consecutive failures so far (CONSECUTIVE_FAILURES).
    consecutive  INTEGER     NOT NULL DEFAULT 0,
    -- when the rule last sent; its silence window starts there.
    last_sent_at {{.TS}},
    updated_at   {{.TS}}     NOT NULL,
    PRIMARY KEY (subject_kind, subject_id, rule)
);
--bun:split
CREATE TABLE alarm_history (
    id           {{.ID}},
    app_id       BIGINT       NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    subject_kind VARCHAR(16)  NOT NULL,
    subject_id   BIGINT       NOT NULL,
    at           {{.TS}}      NOT NULL,
    -- the payload's event (instance.failed, job.recovered, test…) and the
    -- rule that raised it (empty for a test).
    event        VARCHAR(48)  NOT NULL,
    rule         VARCHAR(32)  NOT NULL DEFAULT '',
    instance_id  BIGINT,
    run_id       BIGINT,
    -- SENT, SILENCED or FAILED (delivery failed after its retries).
    outcome      VARCHAR(16)  NOT NULL,
    channel      VARCHAR(16)  NOT NULL DEFAULT '',
    -- the channel's URL without path and query (they hold chat keys), or
    -- the email address.
    target       VARCHAR(255) NOT NULL DEFAULT '',
    status_code  INTEGER      NOT NULL DEFAULT 0,
    -- the channel's answer (body excerpt) or the error.
    answer       TEXT         NOT NULL DEFAULT '',
    attempts     INTEGER      NOT NULL DEFAULT 0,
    summary      TEXT         NOT NULL DEFAULT ''
);
--bun:split
CREATE INDEX alarm_history_by_subject ON alarm_history (subject_kind, subject_id, id);
--bun:split
ALTER TABLE workflows ADD COLUMN alarm {{.JSON}} NOT NULL DEFAULT '{}';
