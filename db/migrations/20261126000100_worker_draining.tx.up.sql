-- A worker that is draining (stopping gracefully: it takes no new tasks,
-- lets running ones finish within a grace period and hands back the rest)
-- says so in its heartbeats; the console lists it as DRAINING.
ALTER TABLE workers ADD COLUMN draining BOOLEAN NOT NULL DEFAULT FALSE;
