package graph

import (
	"errors"
	"strings"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/graph/model"
	"github.com/jobwheel/jobwheel/server/api/jobs"
	"github.com/jobwheel/jobwheel/server/platform/fault"
)

// jobInput converts the API's JobInput to the job service's.
func jobInput(in model.JobInput) jobs.Input {
	out := jobs.Input{
		App: in.App, Name: in.Name, Description: in.Description, Enabled: in.Enabled,
		ScheduleType: in.ScheduleType, ScheduleExpression: in.ScheduleExpression, TimeZone: in.TimeZone,
		ExecutionMode: in.ExecutionMode, ProcessorType: in.ProcessorType, Processor: in.Processor, Params: in.Params,
		MaxInstances: in.MaxInstances, TaskConcurrency: in.TaskConcurrency, TimeoutMs: in.TimeoutMs,
		InstanceRetries: in.InstanceRetries, TaskRetries: in.TaskRetries,
		DispatchStrategy: in.DispatchStrategy, MisfirePolicy: in.MisfirePolicy,
		ScheduleWindow: in.ScheduleWindow, Calendar: in.Calendar,
		OverlapPolicy: in.OverlapPolicy, MaxQueued: in.MaxQueued, Priority: in.Priority,
		RetryDelayMs: in.RetryDelayMs, RetryBackoff: in.RetryBackoff, RetryDelayMaxMs: in.RetryDelayMaxMs,
		Pool: in.Pool, PoolSlots: in.PoolSlots,
	}
	if l := in.Lifecycle; l != nil {
		out.LifecycleStart, out.LifecycleEnd = l.Start, l.End
	}
	if f := in.WorkerFilter; f != nil {
		out.WorkerFilter = db.WorkerFilter{Designated: f.Designated, Tags: f.Tags, MinCPUCores: deref(f.MinCPUCores),
			MinMemoryMB: int64(deref(f.MinMemoryMb)), MinDiskMB: int64(deref(f.MinDiskMb)), MaxWorkers: deref(f.MaxWorkers)}
	}
	if in.Alarm != nil {
		out.Alarm = alarmInput(in.Alarm)
	}
	return out
}

// alarmInput converts the API's AlarmInput (the deprecated fields
// included: the alarm service folds them into rules and channels).
func alarmInput(a *model.AlarmInput) db.Alarm {
	out := db.Alarm{LegacyOnFailure: deref(a.OnFailure), LegacyOnTimeout: deref(a.OnTimeout), LegacyWebhooks: a.Webhooks,
		LegacyEmails: a.Emails, LegacySilenceSec: deref(a.SilenceSec)}
	for _, r := range a.Rules {
		out.Rules = append(out.Rules, db.AlarmRule{Type: r.Type, Threshold: int64(deref(r.Threshold)), SilenceSec: deref(r.SilenceSec)})
	}
	for _, c := range a.Channels {
		out.Channels = append(out.Channels, db.AlarmChannel{Type: c.Type, Target: c.Target})
	}
	return out
}

// asArgument renames the job-field names of schedule errors to the
// arguments of previewSchedule.
func asArgument(err error) error {
	var in *fault.Input
	if !errors.As(err, &in) {
		return err
	}
	switch in.Field {
	case "scheduleExpression":
		return &fault.Input{Field: "expression", Reason: in.Reason}
	case "scheduleType":
		return &fault.Input{Field: "type", Reason: in.Reason}
	}
	if rest, ok := strings.CutPrefix(in.Field, "scheduleWindow"); ok {
		return &fault.Input{Field: "window" + rest, Reason: in.Reason}
	}
	return err
}

// calendarInput converts the API's CalendarInput to the job service's.
func calendarInput(in model.CalendarInput) jobs.CalendarInput {
	return jobs.CalendarInput{App: in.App, Name: in.Name, Description: deref(in.Description), Dates: in.Dates}
}

// poolInput converts the API's PoolInput to the job service's.
func poolInput(in model.PoolInput) jobs.PoolInput {
	return jobs.PoolInput{App: in.App, Name: in.Name, Description: deref(in.Description), Slots: in.Slots}
}
