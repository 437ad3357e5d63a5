package schedule

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/server/platform/fault"
)

func mustTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestPreview(t *testing.T) {
	start := mustTime("2026-03-01T10:00:00Z")
	end := mustTime("2026-03-01T10:00:05Z")
	cases := []struct {
		name  string
		spec  Spec
		after string
		want  []string
	}{
		{"cron every 2s", Spec{Type: db.ScheduleCron, Expression: "*/2 * * * * ?"}, "2026-03-01T10:00:00Z",
			[]string{"2026-03-01T10:00:02Z", "2026-03-01T10:00:04Z", "2026-03-01T10:00:06Z"}},
		{"cron in a zone", Spec{Type: db.ScheduleCron, Expression: "0 30 9 * * ?", TimeZone: "Asia/Kolkata"}, "2026-03-01T00:00:00Z",
			[]string{"2026-03-01T04:00:00Z", "2026-03-02T04:00:00Z", "2026-03-03T04:00:00Z"}},
		{"fixed rate", Spec{Type: db.ScheduleFixedRate, Expression: "1m30s"}, "2026-03-01T10:00:00Z",
			[]string{"2026-03-01T10:01:30Z", "2026-03-01T10:03:00Z", "2026-03-01T10:04:30Z"}},
		{"fixed rate starts at lifecycle start", Spec{Type: db.ScheduleFixedRate, Expression: "2s", Start: &start, End: &end}, "2026-03-01T09:00:00Z",
			[]string{"2026-03-01T10:00:00Z", "2026-03-01T10:00:02Z", "2026-03-01T10:00:04Z"}},
		{"cron bounded by lifecycle", Spec{Type: db.ScheduleCron, Expression: "* * * * * ?", Start: &start, End: &end}, "2026-03-01T10:00:03Z",
			[]string{"2026-03-01T10:00:04Z", "2026-03-01T10:00:05Z"}},
		{"api never fires", Spec{Type: db.ScheduleAPI}, "2026-03-01T10:00:00Z", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := Parse(c.spec)
			if err != nil {
				t.Fatal(err)
			}
			got := s.Preview(mustTime(c.after), 3)
			if len(got) != len(c.want) {
				t.Fatalf("Preview = %v; want %v", got, c.want)
			}
			for i := range got {
				if !got[i].Equal(mustTime(c.want[i])) {
					t.Fatalf("Preview[%d] = %v; want %v", i, got[i], c.want[i])
				}
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	start := mustTime("2026-03-01T10:00:00Z")
	cases := []struct {
		spec  Spec
		field string
		want  string
	}{
		{Spec{Type: "HOURLY"}, "scheduleType", "not one of"},
		{Spec{Type: db.ScheduleCron, Expression: ""}, "scheduleExpression", "needs a Quartz cron expression"},
		{Spec{Type: db.ScheduleCron, Expression: "* * * * *"}, "scheduleExpression", "6 or 7 fields"},
		{Spec{Type: db.ScheduleCron, Expression: "0 0 12 * * ?", TimeZone: "Mars/Olympus"}, "timeZone", "not an IANA time zone"},
		{Spec{Type: db.ScheduleFixedRate, Expression: "500ms"}, "scheduleExpression", "shorter than the minimum"},
		{Spec{Type: db.ScheduleFixedDelay, Expression: "soon"}, "scheduleExpression", "not a duration"},
		{Spec{Type: db.ScheduleAPI, Expression: "1s"}, "scheduleExpression", "must be empty"},
		{Spec{Type: db.ScheduleFixedRate, Expression: "1s", Start: &start, End: &start}, "lifecycle", "must be after start"},
	}
	for _, c := range cases {
		_, err := Parse(c.spec)
		var in *fault.Input
		if !errors.As(err, &in) || in.Field != c.field || !strings.Contains(in.Reason, c.want) {
			t.Errorf("Parse(%+v) = %v; want a %s error containing %q", c.spec, err, c.field, c.want)
		}
	}
}
