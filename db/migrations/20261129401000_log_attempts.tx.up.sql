-- Each log line records the instance's attempt current when it was stored
-- (issue 28, defect 2): the console follows a retried instance's log and
-- separates its attempts. Lines stored before have 0 (not recorded).
ALTER TABLE instance_logs ADD COLUMN attempt INTEGER NOT NULL DEFAULT 0;
