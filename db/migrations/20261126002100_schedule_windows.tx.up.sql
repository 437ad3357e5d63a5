-- Calendars of excluded dates (holidays), per app, that CRON and
-- FIXED_RATE jobs reference; and a FIXED_RATE job's daily window. A job
-- keeps a copy of its calendar's dates (excluded_dates), rewritten with
-- the calendar in one transaction, so its schedule is computed from the
-- job row alone (the trigger loop reads nothing more).
CREATE TABLE calendars (
    id          {{.ID}},
    app_id      BIGINT       NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    name        VARCHAR(128) NOT NULL,
    description TEXT         NOT NULL DEFAULT '',
    dates       {{.JSON}}    NOT NULL,
    created_at  {{.TS}}      NOT NULL,
    updated_at  {{.TS}}      NOT NULL,
    UNIQUE (app_id, name)
);
--bun:split
ALTER TABLE jobs ADD COLUMN schedule_window {{.JSON}};
--bun:split
ALTER TABLE jobs ADD COLUMN calendar_id BIGINT REFERENCES calendars (id) ON DELETE SET NULL;
--bun:split
ALTER TABLE jobs ADD COLUMN excluded_dates {{.JSON}};
--bun:split
CREATE INDEX jobs_by_calendar ON jobs (calendar_id);
