package node

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/server/api/apps"
	"github.com/jobwheel/jobwheel/server/api/auth"
	"github.com/jobwheel/jobwheel/server/schedule"
)

// DemoApp is the app `make run` creates so a newcomer sees jobs run.
const DemoApp = "demo"

// demoSecretFile is where the demo app's secret is written for the demo
// agent, next to the SQLite file.
const demoSecretFile = "jobwheel-demo.secret"

// demoHello is the demo's SHELL script: it shows the variables a script
// gets, parameters included, and writes its lines over a few seconds so the
// console's log fills live.
const demoHello = `echo "hello from $(hostname): instance $JOBWHEEL_INSTANCE_ID, attempt $JOBWHEEL_ATTEMPT"
echo "job parameters (JOBWHEEL_JOB_PARAMS, also \$1): $JOBWHEEL_JOB_PARAMS"
echo "run parameters (JOBWHEEL_INSTANCE_PARAMS, also \$2): ${JOBWHEEL_INSTANCE_PARAMS:-none; give some with Run now}"
for step in 1 2 3 4 5; do
  echo "working: step $step of 5"
  sleep 1
done
echo "done"
`

// demoJobs are the example jobs of the demo app.
var demoJobs = []db.Job{
	{Name: "hello-every-10s", Description: "A SHELL script every 10 seconds: it prints its parameters and writes a line a second for 5 seconds. Run it now with parameters to see them in $JOBWHEEL_INSTANCE_PARAMS.",
		ScheduleType: "CRON", ScheduleExpression: "0/10 * * * * ?", ExecutionMode: "STANDALONE", ProcessorType: "SHELL",
		// Two at once, so a Run now is not refused while a scheduled run is on.
		Processor: demoHello, Params: "region=eu", MaxInstances: 2},
	{Name: "sleep-every-30s", Description: "The example.sleep GO processor every 30 seconds, at a fixed rate: it logs while it sleeps for its parameters' duration.",
		ScheduleType: "FIXED_RATE", ScheduleExpression: "30s", ExecutionMode: "STANDALONE", ProcessorType: "GO",
		Processor: "example.sleep", Params: "3s"},
	{Name: "broadcast-on-demand", Description: "Run it by hand: a SHELL script on every worker of the app.",
		ScheduleType: "API", ExecutionMode: "BROADCAST", ProcessorType: "SHELL",
		Processor: "echo \"broadcast on $(hostname), task $JOBWHEEL_TASK_ID ($JOBWHEEL_TASK_NAME)\"\nuptime"},
	{Name: "fail-on-demand", Description: "Run it by hand to see a failure, a retry and the attempts.",
		ScheduleType: "API", ExecutionMode: "STANDALONE", ProcessorType: "GO", Processor: "example.fail", InstanceRetries: 1},
}

// ensureDemo creates the demo app and its jobs on a first start and writes
// the app secret to dir/jobwheel-demo.secret for the demo agent. Later
// starts leave everything as the user left it.
func ensureDemo(ctx context.Context, store *db.DB, appSvc *apps.Service, dir string) error {
	secretPath := filepath.Join(dir, demoSecretFile)
	if _, err := store.AppGetByName(ctx, DemoApp); err == nil {
		if _, err := os.Stat(secretPath); err != nil {
			return fmt.Errorf("the demo app exists but %s is missing; rotate its secret in the console and write it there", secretPath)
		}
		return nil
	} else if !errors.Is(err, db.ErrNotFound) {
		return err
	}
	secret := auth.NewSecret("jwa_")
	app, err := appSvc.CreateWithSecret(ctx, DemoApp, "Examples created by `make run`: watch them run, then make your own.", secret)
	if err != nil {
		return err
	}
	if admin, err := store.UserGetByName(ctx, auth.AdminUsername); err == nil {
		if err := store.AppMemberSet(ctx, app.ID, admin.ID, db.RoleOwner); err != nil {
			return err
		}
	}
	now := db.Now()
	for _, j := range demoJobs {
		j.AppID = app.ID
		j.Enabled = true
		j.TimeZone = "UTC"
		if j.MaxInstances == 0 {
			j.MaxInstances = 1
		}
		j.TaskConcurrency = 5
		j.DispatchStrategy = "HEALTH_FIRST"
		j.MisfirePolicy = "FIRE_ONCE"
		j.WorkerFilter = db.WorkerFilter{}
		sch, err := schedule.Parse(schedule.Spec{Type: j.ScheduleType, Expression: j.ScheduleExpression, TimeZone: j.TimeZone})
		if err != nil {
			return fmt.Errorf("demo job %s: %w", j.Name, err)
		}
		if next, ok := sch.Next(now); ok && sch.Fires() {
			j.NextTriggerAt = &next
		}
		if err := store.JobCreate(ctx, &j); err != nil {
			return err
		}
	}
	return os.WriteFile(secretPath, []byte(secret+"\n"), 0o600)
}
