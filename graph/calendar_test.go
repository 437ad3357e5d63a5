package graph

import (
	"testing"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
)

// TestCalendarsAndWindows: calendars are created, listed, used by jobs,
// updated (the jobs take the new dates) and deleted only when unused; a
// VIEWER reads but cannot change them; a job's window and calendar read
// back; previewSchedule shows both; bad input names its field.
func TestCalendarsAndWindows(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		api := newAPI(t, d, apiOptions{})
		admin := api.admin(t)
		api.createApp(t, admin, "orders")
		vera := api.createUser(t, admin, "vera")
		api.setRole(t, admin, "orders", "vera", "VIEWER")

		calQ := `mutation($in: CalendarInput!) { createCalendar(input: $in) { id name dates } }`
		var cal struct {
			CreateCalendar struct {
				ID, Name string
				Dates    []string
			}
		}
		api.must(t, admin, calQ, map[string]any{"in": map[string]any{"app": "orders", "name": "holidays",
			"dates": []string{"2026-12-26", "2026-12-25", "2026-12-25"}}}, &cal)
		if got := cal.CreateCalendar.Dates; len(got) != 2 || got[0] != "2026-12-25" || got[1] != "2026-12-26" {
			t.Fatalf("dates %v; want sorted, once each", got)
		}
		for _, tc := range []struct {
			in    map[string]any
			field string
		}{
			{map[string]any{"app": "orders", "name": "bad", "dates": []string{"25.12.2026"}}, "dates"},
			{map[string]any{"app": "orders", "name": "", "dates": []string{}}, "name"},
			{map[string]any{"app": "orders", "name": "holidays", "dates": []string{}}, "name"},
		} {
			if r := api.do(t, admin, calQ, map[string]any{"in": tc.in}, nil); r.code() != CodeBadInput || r.Errors[0].field() != tc.field {
				t.Errorf("%v: %+v; want BAD_INPUT on %s", tc.in, r.Errors, tc.field)
			}
		}
		if r := api.do(t, vera, calQ, map[string]any{"in": map[string]any{"app": "orders", "name": "mine", "dates": []string{}}}, nil); r.code() != CodeForbidden {
			t.Fatalf("a VIEWER created a calendar: %+v", r.Errors)
		}

		jobQ := `mutation($in: JobInput!) { createJob(input: $in) { id nextTriggerTime scheduleWindow { start end days } calendar { name }
			upcoming(count: 3) } }`
		var job struct {
			CreateJob struct {
				ID              string
				NextTriggerTime string
				ScheduleWindow  struct {
					Start, End string
					Days       []string
				}
				Calendar struct{ Name string }
				Upcoming []string
			}
		}
		api.must(t, admin, jobQ, map[string]any{"in": map[string]any{"app": "orders", "name": "office", "scheduleType": "FIXED_RATE",
			"scheduleExpression": "30s", "timeZone": "Europe/Berlin", "processorType": "SHELL", "processor": "true",
			"scheduleWindow": map[string]any{"start": "09:00", "end": "17:30", "days": []string{"MONDAY", "FRIDAY"}},
			"calendar":       "holidays"}}, &job)
		if w := job.CreateJob.ScheduleWindow; w.Start != "09:00" || w.End != "17:30" || len(w.Days) != 2 || job.CreateJob.Calendar.Name != "holidays" ||
			len(job.CreateJob.Upcoming) != 3 {
			t.Fatalf("job: %+v", job.CreateJob)
		}
		for _, tc := range []struct {
			in    map[string]any
			field string
		}{
			{map[string]any{"scheduleType": "CRON", "scheduleExpression": "0 0 * * * ?", "scheduleWindow": map[string]any{"start": "09:00", "end": "10:00"}}, "scheduleWindow"},
			{map[string]any{"scheduleType": "FIXED_RATE", "scheduleExpression": "1m", "scheduleWindow": map[string]any{"start": "10:00", "end": "09:00"}}, "scheduleWindow.end"},
			{map[string]any{"scheduleType": "FIXED_RATE", "scheduleExpression": "1m", "calendar": "nope"}, "calendar"},
			{map[string]any{"scheduleType": "API", "calendar": "holidays"}, "calendar"},
		} {
			in := map[string]any{"app": "orders", "name": "bad", "processorType": "SHELL", "processor": "true"}
			for k, v := range tc.in {
				in[k] = v
			}
			if r := api.do(t, admin, `mutation($in: JobInput!) { createJob(input: $in) { id } }`, map[string]any{"in": in}, nil); r.code() != CodeBadInput || r.Errors[0].field() != tc.field {
				t.Errorf("%v: %+v; want BAD_INPUT on %s", tc.in, r.Errors, tc.field)
			}
		}

		// previewSchedule: the window and the calendar's dates.
		var pv struct{ PreviewSchedule []string }
		api.must(t, vera, `query { previewSchedule(type: CRON, expression: "0 0 12 * * ?", after: "2026-12-24T13:00:00Z", count: 2,
			app: "orders", calendar: "holidays") }`, nil, &pv)
		if len(pv.PreviewSchedule) != 2 || pv.PreviewSchedule[0] != "2026-12-27T12:00:00Z" {
			t.Fatalf("preview with the calendar: %v", pv.PreviewSchedule)
		}
		api.must(t, vera, `query { previewSchedule(type: FIXED_RATE, expression: "30m", timeZone: "Europe/Berlin", after: "2026-06-01T15:00:00Z",
			count: 3, window: {start: "09:00", end: "17:30"}) }`, nil, &pv)
		if want := []string{"2026-06-01T15:30:00Z", "2026-06-02T07:00:00Z", "2026-06-02T07:30:00Z"}; len(pv.PreviewSchedule) != 3 ||
			pv.PreviewSchedule[0] != want[0] || pv.PreviewSchedule[1] != want[1] || pv.PreviewSchedule[2] != want[2] {
			t.Fatalf("preview with the window: %v; want %v", pv.PreviewSchedule, want)
		}
		if r := api.do(t, admin, `query { previewSchedule(type: FIXED_RATE, expression: "30m", window: {start: "x", end: "17:30"}) }`, nil, nil); r.code() != CodeBadInput || r.Errors[0].field() != "window.start" {
			t.Fatalf("bad window in a preview: %+v", r.Errors)
		}

		// Updating the calendar rewrites the jobs' copies; deleting it is
		// refused while a job uses it.
		upQ := `mutation($id: ID!, $in: CalendarInput!) { updateCalendar(id: $id, input: $in) { dates jobs { name } } }`
		var up struct {
			UpdateCalendar struct {
				Dates []string
				Jobs  []struct{ Name string }
			}
		}
		api.must(t, admin, upQ, map[string]any{"id": cal.CreateCalendar.ID, "in": map[string]any{"app": "orders", "name": "holidays",
			"dates": []string{"2027-01-01"}}}, &up)
		if len(up.UpdateCalendar.Jobs) != 1 || up.UpdateCalendar.Jobs[0].Name != "office" {
			t.Fatalf("calendar's jobs: %+v", up.UpdateCalendar)
		}
		stored, err := d.JobGet(t.Context(), mustInt(t, job.CreateJob.ID))
		if err != nil || len(stored.ExcludedDates) != 1 || stored.ExcludedDates[0] != "2027-01-01" {
			t.Fatalf("the job's copy of the dates: %v (%v)", stored.ExcludedDates, err)
		}
		if r := api.do(t, vera, upQ, map[string]any{"id": cal.CreateCalendar.ID, "in": map[string]any{"app": "orders", "name": "holidays", "dates": []string{}}}, nil); r.code() != CodeForbidden {
			t.Fatalf("a VIEWER updated a calendar: %+v", r.Errors)
		}
		delQ := `mutation($id: ID!) { deleteCalendar(id: $id) }`
		if r := api.do(t, admin, delQ, map[string]any{"id": cal.CreateCalendar.ID}, nil); r.code() != CodeConflict {
			t.Fatalf("deleting a calendar in use: %+v; want CONFLICT", r.Errors)
		}
		api.must(t, admin, `mutation($id: ID!, $in: JobInput!) { updateJob(id: $id, input: $in) { id } }`, map[string]any{"id": job.CreateJob.ID,
			"in": map[string]any{"app": "orders", "name": "office", "scheduleType": "FIXED_RATE", "scheduleExpression": "30s",
				"processorType": "SHELL", "processor": "true"}}, nil)
		api.must(t, admin, delQ, map[string]any{"id": cal.CreateCalendar.ID}, nil)
		var list struct{ Calendars []struct{ Name string } }
		api.must(t, vera, `query { calendars(app: "orders") { name } }`, nil, &list)
		if len(list.Calendars) != 0 {
			t.Fatalf("calendars after the delete: %+v", list.Calendars)
		}
	})
}
