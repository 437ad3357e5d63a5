DROP INDEX instances_by_app_finished;
