// Package workflow is the workflow engine: for an app this server owns, it
// starts workflow instances, decides their nodes as node instances end, and
// fires the job instances the nodes run (docs/design.md §15).
//
// One Engine per owned app (package owned starts it with the app, after the
// execution actor and before the trigger loop). It runs on one goroutine,
// fed by a mailbox of workflow instance ids to look at: the trigger loop's
// wheel fires a WAITING instance whose time came (Fire), the execution actor
// says a node's job instance ended (WorkflowInstancesChanged), an API
// operation on any server sends a bus hint (HintTopic), and a reconcile pass
// every ReconcileEvery looks at every active instance in case a hint was
// lost. Each look is one transaction: lock the instance's tree (its top
// instance first) and read the instance with its node rows
// and node instances (load), decide in memory (decide, pure), write every
// change fenced by the lease epoch (apply), then fire the new node
// instances through the execution actor and tell subscribers (after). A
// decision that loses a compare-and-set (the instance moved meanwhile) is
// rolled back and looked at again.
//
// The files, in the order an instance travels through them:
//
//	engine.go   the shell: mailbox, reconcile, start (WAITING → RUNNING, its
//	            node rows), advance (one decision), load / apply / after
//	decide.go   the decisions: which finished nodes settle, which waiting
//	            nodes' trigger rules hold (start or skip), FOREACH elements,
//	            DECISION branches, NESTED children, failFast, and the
//	            instance's end — pure functions of a view, no I/O
//	expr.go     DECISION and FOREACH expressions evaluated over the context
//	            and upstream results (compiled by wfexpr), and what their
//	            values become (a label, a list)
//	evaluator.go  the server's expression evaluator: a few workers of their
//	            own, one queue per app; a node whose expression is evaluated
//	            is RUNNING meanwhile, and the outcome comes back through the
//	            engine's loop to the next decision
//	ops.go      the API's operations, on any server: stop, pause, resume,
//	            retry, mark a node succeeded, rerun, approve; each writes the
//	            rows and hints the owner, whose engine carries on
//
// So "where does a node's end start the next node": the node's job instance
// ends in package execution, which calls WorkflowInstancesChanged; advance
// loads the instance, decide.go settles the node and starts its successors
// whose trigger rules hold, and after hands their job instances to the
// execution actor.
//
// States (docs/design.md §6, §15): an instance is WAITING → RUNNING ⇄ PAUSED
// → SUCCEEDED | FAILED | STOPPED, or WAITING → CANCELED; a node is WAITING →
// RUNNING (or AWAITING_APPROVAL) → SUCCEEDED | FAILED | STOPPED, or SKIPPED.
// A failed node blocks only its descendants; the instance ends once nothing
// more can run.
package workflow
