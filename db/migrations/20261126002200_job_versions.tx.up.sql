-- Version history of jobs: every change (create, update, enable, disable,
-- restore) is kept with who made it and when; a job's version counts them
-- and an instance records the version it ran. Jobs from before this
-- migration are version 1; their first change records that version too.
ALTER TABLE jobs ADD COLUMN version INTEGER NOT NULL DEFAULT 1;
--bun:split
CREATE TABLE job_versions (
    job_id     BIGINT      NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    version    INTEGER     NOT NULL,
    definition {{.JSON}}   NOT NULL,
    change     VARCHAR(32) NOT NULL,
    created_by VARCHAR(64) NOT NULL,
    created_at {{.TS}}     NOT NULL,
    PRIMARY KEY (job_id, version)
);
--bun:split
ALTER TABLE instances ADD COLUMN job_version INTEGER;
