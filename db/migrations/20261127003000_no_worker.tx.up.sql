-- "Why no worker?": when the execution actor cannot dispatch an instance
-- (it stays WAITING for a worker, or fails NO_WORKER), it records each
-- connected worker of the app and the filter that ruled it out. One JSON
-- object ({at, workers: [{worker, host, filter, reason}]}), overwritten by
-- the next finding, so it never grows with time; NULL if the instance
-- never waited for a worker.
ALTER TABLE instances ADD COLUMN no_worker {{.JSON}};
