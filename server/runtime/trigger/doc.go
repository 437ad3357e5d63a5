// Package trigger is the trigger loop: for an app this server owns, it
// turns its jobs' schedules into instances and fires them on time.
//
// Each owned app has one Loop (package owned starts it with the app). Each
// pass (every Interval, or sooner when woken) does:
//
//  1. Read the enabled jobs whose next_trigger_at falls within the
//     look-ahead window.
//  2. For each, compute every fire up to the window's end (applying the
//     job's misfire policy to fires already missed; plan.go), and in ONE
//     transaction advance next_trigger_at by compare-and-set on its old
//     value and insert the fires as WAITING instances;
//     UNIQUE(job_id, expected_trigger_at) drops any fire already recorded.
//     Two owners, a crash between the two writes, or a retried pass can
//     therefore never record a fire twice.
//  3. Put the fires just recorded on the timing wheel as recorded (the
//     actor then need not read them back: FireRecorded), then read the
//     ids and times of the app's other WAITING instances due within the
//     window (delayed API runs, instance retries, a predecessor's fires)
//     and put the ones not yet there on the wheel.
//
// The wheel is one for the whole server (Service), with one group per app.
// It hands each millisecond's fires back as one batch, which the loop gives
// to the app's execution actor (Firer) — the next step of a fire's path is
// package execution, fire.go. Only the window is in memory; the rest is
// next_trigger_at in the database, so memory is bounded however many jobs
// exist. When the app is stopped (its lease lost) its wheel entries are
// dropped at once, before anything else.
//
// Fires handed to the actor are remembered for a while ("in hand"): one
// still WAITING then is queued in the actor, not missed. The actor hands
// back fires it could not process (Unfired), which makes them missed fires
// again for the misfire policy.
//
// The fires handed to the actor and not yet taken by it (FiresTaken) are
// at most Config.MaxInFlight. Fires due beyond that, when the actor runs
// behind (an overload: more fires a second than the machine starts), are
// not queued in memory: they stay WAITING in the database, and readBack
// hands them over, oldest first, as the actor takes what it has, while
// every later fire waits its turn there too. They are late, not missed:
// the misfire policy leaves them alone. So an overloaded app's memory is
// the look-ahead window on the wheel plus MaxInFlight fires, whatever the
// backlog.
package trigger
