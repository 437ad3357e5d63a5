DROP INDEX tasks_by_attempt;
