-- The console's dashboard counts an app's finished instances per hour.
CREATE INDEX instances_by_app_finished ON instances (app_id, finished_at);
