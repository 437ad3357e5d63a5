-- appStats read an app's finished instances of the last week on every call
-- (up to 20,000 for its lag; all of them for its outcomes). An hour's
-- figures, once the hour is over, never change: a maintenance pass on the
-- owner's clock (server/runtime/rollup) sums each finished hour of an app
-- into one row, and appStats reads those rows and the instances of the
-- hour or so not summed yet (db/rollups.go). The lag's percentiles stay
-- exact: each row keeps how many instances had each whole number of
-- milliseconds of lateness and of fire-to-start (JSON objects).
CREATE TABLE instance_rollups (
    app_id        BIGINT NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    hour          BIGINT NOT NULL, -- the hour's start, seconds since 1970 UTC
    finished      INTEGER NOT NULL,
    succeeded     INTEGER NOT NULL,
    failed        INTEGER NOT NULL,
    stopped       INTEGER NOT NULL,
    canceled      INTEGER NOT NULL,
    lateness      TEXT NOT NULL,
    fire_to_start TEXT NOT NULL,
    PRIMARY KEY (app_id, hour)
);
--bun:split
-- Per app, the hour before which every hour is summed (seconds since 1970).
CREATE TABLE instance_rollup_marks (
    app_id BIGINT PRIMARY KEY REFERENCES apps (id) ON DELETE CASCADE,
    until  BIGINT NOT NULL
);
