// Package execution runs instances: it turns a fired instance into tasks,
// hands tasks to workers within their free slots, and moves instances and
// tasks through their state machines as workers report, fail or vanish.
//
// One Actor per owned app does all of this (package owned starts it with
// the app). Every event for the app (fires, reports, maps, worker joins and
// losses, dispatch acks, status checks, API stops) goes through its
// mailbox; the actor takes whatever has queued up as one batch, reads what
// the batch needs, lets the pure decisions of its state decide in memory,
// writes every change of the batch in ONE transaction of compare-and-set
// statements, and only then sends frames to workers and acks what workers
// sent. So the hot path costs a transaction per batch, not per task, and
// nothing is sent that is not durable. The in-memory state is a cache of
// the database: when a write fails or a compare-and-set loses a race (an
// instance stopped through the API, another owner), the actor re-reads
// from the database.
//
// The files, in the order a fire travels through them:
//
//	actor.go     the shell: mailbox, one batch at a time, reads
//	fire.go      fired instances → DISPATCHED, their first task queued
//	assign.go    queued tasks → free worker slots
//	commit.go    the batch's transaction, then dispatch frames to workers
//	report.go    what workers send back: joins, heartbeats, reports, maps, acks
//	queue.go     overlap policies: fires held in a QUEUE job's queue, REPLACE
//	pools.go     pools: the slots a fire takes, or its place in the pool's queue
//	instance.go  task ends → instance stages, retries, ends; deadlines
//	backoff.go   the retry back-off: delays, tasks held until their time
//	changes.go   what one batch decided, merged per row
//	adopt.go     loading an app's unfinished work on start or after an error
//	state.go     the in-memory picture the decisions work on
//
// State machines (docs/design.md §5.6): instances go WAITING → DISPATCHED →
// RUNNING → SUCCEEDED | FAILED | STOPPED, or WAITING → CANCELED. Tasks
// follow the same states. A failed task is retried up to the job's
// taskRetries; a failed attempt is retried (the instance back to WAITING
// with attempt+1) up to instanceRetries. A worker that disconnects keeps
// its tasks for a grace period to reconnect; after that they fail as
// "worker lost".
package execution
