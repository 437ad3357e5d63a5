package cron

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reugn/go-quartz/quartz"
)

// nextCase is one row of the fire-time table: starting at start (RFC 3339),
// repeated calls of Next must return want, in order; with end, the call after
// the last one must report that there are no more fire times.
type nextCase struct {
	name       string
	expr, zone string
	start      string
	want       []string // RFC 3339 in zone
	end        bool
	// quartzDiffers explains a row where we deliberately differ from
	// Quartz 2.3.2 (because Quartz is wrong there); empty for rows that
	// agree with it.
	quartzDiffers string
}

// nextCases was written from the Quartz documentation (the CronExpression
// javadoc and the cron tutorial: the "doc:" rows are its examples) and from
// the DST and calendar corner cases the scheduler must get right. Every
// expected value was checked with the real Quartz 2.3.2 (Debian's
// libquartz2-java) through testdata/quartz-oracle: all rows agree with it
// except those with quartzDiffers, where Quartz is wrong and the row holds
// our answer. Re-check with:
//
//	go test -tags quartzoracle -run TestQuartzTable ./server/schedule/cron/
var nextCases = []nextCase{
	{name: "doc: noon every day", expr: "0 0 12 * * ?", zone: "UTC", start: "2026-03-01T00:00:00Z",
		want: []string{"2026-03-01T12:00:00Z", "2026-03-02T12:00:00Z", "2026-03-03T12:00:00Z"}},
	{name: "doc: 10:15 every day (? in day-of-month)", expr: "0 15 10 ? * *", zone: "UTC", start: "2026-03-01T10:15:00Z",
		want: []string{"2026-03-02T10:15:00Z", "2026-03-03T10:15:00Z", "2026-03-04T10:15:00Z"}},
	{name: "doc: 10:15 every day (? in day-of-week)", expr: "0 15 10 * * ?", zone: "UTC", start: "2026-03-01T10:14:59Z",
		want: []string{"2026-03-01T10:15:00Z", "2026-03-02T10:15:00Z", "2026-03-03T10:15:00Z"}},
	{name: "doc: 10:15 every day, year *", expr: "0 15 10 * * ? *", zone: "UTC", start: "2026-03-01T00:00:00Z",
		want: []string{"2026-03-01T10:15:00Z", "2026-03-02T10:15:00Z"}},
	{name: "doc: 10:15 every day during 2005", expr: "0 15 10 * * ? 2005", zone: "UTC", start: "2005-12-30T00:00:00Z",
		want: []string{"2005-12-30T10:15:00Z", "2005-12-31T10:15:00Z"}, end: true},
	{name: "doc: every minute 14:00-14:59", expr: "0 * 14 * * ?", zone: "UTC", start: "2026-03-01T14:57:30Z",
		want: []string{"2026-03-01T14:58:00Z", "2026-03-01T14:59:00Z", "2026-03-02T14:00:00Z", "2026-03-02T14:01:00Z"}},
	{name: "doc: every 5 minutes 14:00-14:55", expr: "0 0/5 14 * * ?", zone: "UTC", start: "2026-03-01T14:50:00Z",
		want: []string{"2026-03-01T14:55:00Z", "2026-03-02T14:00:00Z", "2026-03-02T14:05:00Z"}},
	{name: "doc: every 5 minutes 14:00-14:55 and 18:00-18:55", expr: "0 0/5 14,18 * * ?", zone: "UTC", start: "2026-03-01T14:52:00Z",
		want: []string{"2026-03-01T14:55:00Z", "2026-03-01T18:00:00Z", "2026-03-01T18:05:00Z"}},
	{name: "doc: every minute 14:00-14:05", expr: "0 0-5 14 * * ?", zone: "UTC", start: "2026-03-01T14:03:00Z",
		want: []string{"2026-03-01T14:04:00Z", "2026-03-01T14:05:00Z", "2026-03-02T14:00:00Z", "2026-03-02T14:01:00Z"}},
	{name: "doc: 14:10 and 14:44 every Wednesday in March", expr: "0 10,44 14 ? 3 WED", zone: "UTC", start: "2026-03-01T00:00:00Z",
		want: []string{"2026-03-04T14:10:00Z", "2026-03-04T14:44:00Z", "2026-03-11T14:10:00Z", "2026-03-11T14:44:00Z", "2026-03-18T14:10:00Z"}},
	{name: "doc: 10:15 Monday to Friday", expr: "0 15 10 ? * MON-FRI", zone: "UTC", start: "2026-03-05T11:00:00Z",
		want: []string{"2026-03-06T10:15:00Z", "2026-03-09T10:15:00Z", "2026-03-10T10:15:00Z", "2026-03-11T10:15:00Z"}},
	{name: "doc: 10:15 on the 15th", expr: "0 15 10 15 * ?", zone: "UTC", start: "2026-01-15T10:15:00Z",
		want: []string{"2026-02-15T10:15:00Z", "2026-03-15T10:15:00Z", "2026-04-15T10:15:00Z"}},
	{name: "doc: 10:15 on the last day of the month", expr: "0 15 10 L * ?", zone: "UTC", start: "2026-01-01T00:00:00Z",
		want: []string{"2026-01-31T10:15:00Z", "2026-02-28T10:15:00Z", "2026-03-31T10:15:00Z", "2026-04-30T10:15:00Z"}},
	{name: "doc: 10:15 on the second-to-last day (L-2)", expr: "0 15 10 L-2 * ?", zone: "UTC", start: "2026-01-01T00:00:00Z",
		want: []string{"2026-01-29T10:15:00Z", "2026-02-26T10:15:00Z", "2026-03-29T10:15:00Z", "2026-04-28T10:15:00Z"}},
	{name: "doc: 10:15 on the last Friday", expr: "0 15 10 ? * 6L", zone: "UTC", start: "2026-01-01T00:00:00Z",
		want: []string{"2026-01-30T10:15:00Z", "2026-02-27T10:15:00Z", "2026-03-27T10:15:00Z", "2026-04-24T10:15:00Z"}},
	{name: "doc: last Friday during 2002-2005", expr: "0 15 10 ? * 6L 2002-2005", zone: "UTC", start: "2005-09-01T00:00:00Z",
		want: []string{"2005-09-30T10:15:00Z", "2005-10-28T10:15:00Z", "2005-11-25T10:15:00Z", "2005-12-30T10:15:00Z"}, end: true},
	{name: "doc: 10:15 on the third Friday", expr: "0 15 10 ? * 6#3", zone: "UTC", start: "2026-01-01T00:00:00Z",
		want: []string{"2026-01-16T10:15:00Z", "2026-02-20T10:15:00Z", "2026-03-20T10:15:00Z", "2026-04-17T10:15:00Z"}},
	{name: "doc: noon every 5 days from the 1st", expr: "0 0 12 1/5 * ?", zone: "UTC", start: "2026-01-20T00:00:00Z",
		want: []string{"2026-01-21T12:00:00Z", "2026-01-26T12:00:00Z", "2026-01-31T12:00:00Z", "2026-02-01T12:00:00Z", "2026-02-06T12:00:00Z"}},
	{name: "doc: 11:11 on November 11th", expr: "0 11 11 11 11 ?", zone: "UTC", start: "2026-01-01T00:00:00Z",
		want: []string{"2026-11-11T11:11:00Z", "2027-11-11T11:11:00Z", "2028-11-11T11:11:00Z"}},
	{name: "doc: first Monday (2#1)", expr: "0 0 12 ? * 2#1", zone: "UTC", start: "2026-01-01T00:00:00Z",
		want: []string{"2026-01-05T12:00:00Z", "2026-02-02T12:00:00Z", "2026-03-02T12:00:00Z", "2026-04-06T12:00:00Z"}},
	{name: "doc: fifth Wednesday (4#5) skips months without one", expr: "0 0 12 ? * 4#5", zone: "UTC", start: "2026-01-01T00:00:00Z",
		want: []string{"2026-04-29T12:00:00Z", "2026-07-29T12:00:00Z", "2026-09-30T12:00:00Z", "2026-12-30T12:00:00Z"}},
	{name: "seconds: */15", expr: "*/15 * * * * ?", zone: "UTC", start: "2026-01-01T00:00:50Z",
		want: []string{"2026-01-01T00:01:00Z", "2026-01-01T00:01:15Z", "2026-01-01T00:01:30Z", "2026-01-01T00:01:45Z"}},
	{name: "seconds: 5/15", expr: "5/15 * * * * ?", zone: "UTC", start: "2026-01-01T00:00:50Z",
		want: []string{"2026-01-01T00:01:05Z", "2026-01-01T00:01:20Z", "2026-01-01T00:01:35Z", "2026-01-01T00:01:50Z"}},
	{name: "seconds: wrap-around 50-10", expr: "50-10 * * * * ?", zone: "UTC", start: "2026-01-01T00:00:08Z",
		want: []string{"2026-01-01T00:00:09Z", "2026-01-01T00:00:10Z", "2026-01-01T00:00:50Z", "2026-01-01T00:00:51Z", "2026-01-01T00:00:52Z"}},
	{name: "seconds: list and range", expr: "1,3,10-12 0 0 * * ?", zone: "UTC", start: "2026-01-01T00:00:00Z",
		want: []string{"2026-01-01T00:00:01Z", "2026-01-01T00:00:03Z", "2026-01-01T00:00:10Z", "2026-01-01T00:00:11Z", "2026-01-01T00:00:12Z", "2026-01-02T00:00:01Z"}},
	{name: "minutes: wrap-around with step 50-10/5", expr: "0 50-10/5 * * * ?", zone: "UTC", start: "2026-01-01T00:40:00Z",
		want: []string{"2026-01-01T00:50:00Z", "2026-01-01T00:55:00Z", "2026-01-01T01:00:00Z", "2026-01-01T01:05:00Z", "2026-01-01T01:10:00Z", "2026-01-01T01:50:00Z"}},
	{name: "hours: wrap-around 22-2", expr: "0 0 22-2 * * ?", zone: "UTC", start: "2026-01-01T12:00:00Z",
		want: []string{"2026-01-01T22:00:00Z", "2026-01-01T23:00:00Z", "2026-01-02T00:00:00Z", "2026-01-02T01:00:00Z", "2026-01-02T02:00:00Z", "2026-01-02T22:00:00Z"}},
	{name: "hours: wrap-around with step 22-2/2", expr: "0 0 22-2/2 * * ?", zone: "UTC", start: "2026-01-01T12:00:00Z",
		want: []string{"2026-01-01T22:00:00Z", "2026-01-02T00:00:00Z", "2026-01-02T02:00:00Z", "2026-01-02T22:00:00Z"}},
	{name: "hours: */7", expr: "0 0 */7 * * ?", zone: "UTC", start: "2026-01-01T01:00:00Z",
		want: []string{"2026-01-01T07:00:00Z", "2026-01-01T14:00:00Z", "2026-01-01T21:00:00Z", "2026-01-02T00:00:00Z", "2026-01-02T07:00:00Z"}},
	{name: "hours: step larger than range (0-23/30 is 0)", expr: "0 0 0-23/30 * * ?", zone: "UTC", start: "2026-01-01T01:00:00Z",
		want: []string{"2026-01-02T00:00:00Z", "2026-01-03T00:00:00Z"}},
	{name: "month: wrap-around NOV-FEB", expr: "0 0 0 1 NOV-FEB ?", zone: "UTC", start: "2026-01-15T00:00:00Z",
		want: []string{"2026-02-01T00:00:00Z", "2026-11-01T00:00:00Z", "2026-12-01T00:00:00Z", "2027-01-01T00:00:00Z", "2027-02-01T00:00:00Z"}},
	{name: "month: 7/6 is July only (docs)", expr: "0 0 0 1 7/6 ?", zone: "UTC", start: "2026-01-01T00:00:00Z",
		want: []string{"2026-07-01T00:00:00Z", "2027-07-01T00:00:00Z"}},
	{name: "month: */3", expr: "0 0 0 1 */3 ?", zone: "UTC", start: "2026-01-15T00:00:00Z",
		want: []string{"2026-04-01T00:00:00Z", "2026-07-01T00:00:00Z", "2026-10-01T00:00:00Z", "2027-01-01T00:00:00Z"}},
	{name: "month: names lower case", expr: "0 0 0 ? jan,mar,may mon", zone: "UTC", start: "2026-01-01T00:00:00Z",
		want: []string{"2026-01-05T00:00:00Z", "2026-01-12T00:00:00Z", "2026-01-19T00:00:00Z", "2026-01-26T00:00:00Z"}},
	{name: "day-of-month: wrap-around 25-5", expr: "0 0 0 25-5 * ?", zone: "UTC", start: "2026-01-30T00:00:00Z",
		want: []string{"2026-01-31T00:00:00Z", "2026-02-01T00:00:00Z", "2026-02-02T00:00:00Z", "2026-02-03T00:00:00Z", "2026-02-04T00:00:00Z", "2026-02-05T00:00:00Z", "2026-02-25T00:00:00Z", "2026-02-26T00:00:00Z"}},
	{name: "day-of-month: 31 skips short months", expr: "0 0 0 31 * ?", zone: "UTC", start: "2026-01-31T00:00:00Z",
		want: []string{"2026-03-31T00:00:00Z", "2026-05-31T00:00:00Z", "2026-07-31T00:00:00Z", "2026-08-31T00:00:00Z"}},
	{name: "day-of-month: 30 in February never fires", expr: "0 0 0 30 2 ?", zone: "UTC", start: "2026-01-01T00:00:00Z",
		want: []string{}, end: true},
	{name: "day-of-week: wrap-around FRI-MON", expr: "0 0 0 ? * FRI-MON", zone: "UTC", start: "2026-01-01T00:00:00Z",
		want: []string{"2026-01-02T00:00:00Z", "2026-01-03T00:00:00Z", "2026-01-04T00:00:00Z", "2026-01-05T00:00:00Z", "2026-01-09T00:00:00Z"}},
	{name: "day-of-week: wrap-around 7-1", expr: "0 0 0 ? * 7-1", zone: "UTC", start: "2026-01-01T00:00:00Z",
		want: []string{"2026-01-03T00:00:00Z", "2026-01-04T00:00:00Z", "2026-01-10T00:00:00Z", "2026-01-11T00:00:00Z"}},
	{name: "day-of-week: 2-6/2 (MON,WED,FRI)", expr: "0 0 0 ? * 2-6/2", zone: "UTC", start: "2026-01-01T00:00:00Z",
		want: []string{"2026-01-02T00:00:00Z", "2026-01-05T00:00:00Z", "2026-01-07T00:00:00Z", "2026-01-09T00:00:00Z"}},
	{name: "day-of-week: bare L means Saturday", expr: "0 0 0 ? * L", zone: "UTC", start: "2026-01-01T00:00:00Z",
		want: []string{"2026-01-03T00:00:00Z", "2026-01-10T00:00:00Z", "2026-01-17T00:00:00Z"}},
	{name: "day-of-week: 7L last Saturday", expr: "0 0 0 ? * 7L", zone: "UTC", start: "2026-01-01T00:00:00Z",
		want: []string{"2026-01-31T00:00:00Z", "2026-02-28T00:00:00Z", "2026-03-28T00:00:00Z"}},
	{name: "day-of-week: SUNL last Sunday", expr: "0 0 0 ? * sunl", zone: "UTC", start: "2026-01-01T00:00:00Z",
		want: []string{"2026-01-25T00:00:00Z", "2026-02-22T00:00:00Z", "2026-03-29T00:00:00Z"}},
	{name: "day-of-week: FRI#5 only in months with five Fridays", expr: "0 0 0 ? * FRI#5", zone: "UTC", start: "2026-01-01T00:00:00Z",
		want: []string{"2026-01-30T00:00:00Z", "2026-05-29T00:00:00Z", "2026-07-31T00:00:00Z", "2026-10-30T00:00:00Z"}},
	{name: "day-of-week: 1#1 first Sunday", expr: "0 0 0 ? * 1#1", zone: "UTC", start: "2026-02-01T00:00:00Z",
		want: []string{"2026-03-01T00:00:00Z", "2026-04-05T00:00:00Z", "2026-05-03T00:00:00Z"}},
	{name: "L: last day through a leap February", expr: "0 0 0 L * ?", zone: "UTC", start: "2024-01-15T00:00:00Z",
		want: []string{"2024-01-31T00:00:00Z", "2024-02-29T00:00:00Z", "2024-03-31T00:00:00Z", "2024-04-30T00:00:00Z"}},
	{name: "L: February across leap years", expr: "0 0 0 L 2 ?", zone: "UTC", start: "2025-01-01T00:00:00Z",
		want: []string{"2025-02-28T00:00:00Z", "2026-02-28T00:00:00Z", "2027-02-28T00:00:00Z", "2028-02-29T00:00:00Z"}},
	{name: "L-3: third-to-last day", expr: "0 0 0 L-3 * ?", zone: "UTC", start: "2026-01-01T00:00:00Z",
		want: []string{"2026-01-28T00:00:00Z", "2026-02-25T00:00:00Z", "2026-03-28T00:00:00Z", "2026-04-27T00:00:00Z"}},
	{name: "L-30: only the 1st of 31-day months", expr: "0 0 0 L-30 * ?", zone: "UTC", start: "2026-01-01T00:00:00Z",
		want: []string{"2026-03-01T00:00:00Z", "2026-05-01T00:00:00Z", "2026-07-01T00:00:00Z", "2026-08-01T00:00:00Z", "2026-10-01T00:00:00Z", "2026-12-01T00:00:00Z"}},
	{name: "L-0 is L", expr: "0 0 0 L-0 * ?", zone: "UTC", start: "2026-01-01T00:00:00Z",
		want: []string{"2026-01-31T00:00:00Z", "2026-02-28T00:00:00Z"}},
	{name: "LW: last weekday of the month", expr: "0 0 0 LW * ?", zone: "UTC", start: "2026-01-01T00:00:00Z",
		want: []string{"2026-01-30T00:00:00Z", "2026-02-27T00:00:00Z", "2026-03-31T00:00:00Z", "2026-04-30T00:00:00Z", "2026-05-29T00:00:00Z", "2026-06-30T00:00:00Z"}},
	{name: "L-3W: weekday nearest the third-to-last day", expr: "0 0 0 L-3W * ?", zone: "UTC", start: "2026-01-01T00:00:00Z",
		want: []string{"2026-01-28T00:00:00Z", "2026-02-25T00:00:00Z", "2026-03-27T00:00:00Z", "2026-04-27T00:00:00Z", "2026-05-28T00:00:00Z", "2026-06-26T00:00:00Z"}},
	{name: "L-1W", expr: "0 0 0 L-1W * ?", zone: "UTC", start: "2026-01-01T00:00:00Z",
		want: []string{"2026-01-30T00:00:00Z", "2026-02-27T00:00:00Z", "2026-03-30T00:00:00Z", "2026-04-29T00:00:00Z", "2026-05-29T00:00:00Z", "2026-06-29T00:00:00Z"}},
	{name: "15W: nearest weekday to the 15th", expr: "0 0 0 15W * ?", zone: "UTC", start: "2026-01-01T00:00:00Z",
		want: []string{"2026-01-15T00:00:00Z", "2026-02-16T00:00:00Z", "2026-03-16T00:00:00Z", "2026-04-15T00:00:00Z", "2026-05-15T00:00:00Z", "2026-06-15T00:00:00Z"}},
	{name: "15W: Saturday 15th fires Friday 14th", expr: "0 0 12 15W * ?", zone: "UTC", start: "2026-08-14T11:59:59Z",
		want: []string{"2026-08-14T12:00:00Z", "2026-09-15T12:00:00Z"}},
	{name: "1W: Saturday 1st fires Monday 3rd, Sunday 1st fires Monday 2nd", expr: "0 0 0 1W * ?", zone: "UTC", start: "2026-07-15T00:00:00Z",
		want: []string{"2026-08-03T00:00:00Z", "2026-09-01T00:00:00Z", "2026-10-01T00:00:00Z", "2026-11-02T00:00:00Z", "2026-12-01T00:00:00Z"}},
	{name: "31W: Sunday 31st fires Friday 29th", expr: "0 0 0 31W * ?", zone: "UTC", start: "2026-05-01T00:00:00Z",
		want: []string{"2026-05-29T00:00:00Z", "2026-07-31T00:00:00Z", "2026-08-31T00:00:00Z"}},
	{name: "31W: no 31st, but Saturday 1st of next month fires the 30th (Quartz)", expr: "0 0 0 31W * ?", zone: "UTC", start: "2027-03-31T00:00:00Z",
		want: []string{"2027-04-30T00:00:00Z", "2027-05-31T00:00:00Z", "2027-07-30T00:00:00Z"}},
	{name: "30W", expr: "0 0 0 30W * ?", zone: "UTC", start: "2026-01-01T00:00:00Z",
		want: []string{"2026-01-30T00:00:00Z", "2026-03-30T00:00:00Z", "2026-04-30T00:00:00Z", "2026-05-29T00:00:00Z", "2026-06-30T00:00:00Z", "2026-07-30T00:00:00Z"}},
	{name: "29W in February", expr: "0 0 0 29W 2 ?", zone: "UTC", start: "2020-01-01T00:00:00Z",
		want: []string{"2020-02-28T00:00:00Z", "2024-02-29T00:00:00Z", "2025-02-28T00:00:00Z", "2028-02-29T00:00:00Z", "2031-02-28T00:00:00Z", "2032-02-27T00:00:00Z"}},
	{name: "leap day: Feb 29 only in leap years", expr: "0 0 0 29 2 ?", zone: "UTC", start: "2026-01-01T00:00:00Z",
		want: []string{"2028-02-29T00:00:00Z", "2032-02-29T00:00:00Z", "2036-02-29T00:00:00Z"}},
	{name: "leap day: 2000 is a leap year, 2100 would not be", expr: "0 0 0 29 2 ?", zone: "UTC", start: "1999-01-01T00:00:00Z",
		want: []string{"2000-02-29T00:00:00Z", "2004-02-29T00:00:00Z"}},
	{name: "year: range 2030-2032 then none", expr: "0 0 0 1 1 ? 2030-2032", zone: "UTC", start: "2026-01-01T00:00:00Z",
		want: []string{"2030-01-01T00:00:00Z", "2031-01-01T00:00:00Z", "2032-01-01T00:00:00Z"}, end: true},
	{name: "year: 2026/2", expr: "0 0 0 1 1 ? 2026/2", zone: "UTC", start: "2026-06-01T00:00:00Z",
		want: []string{"2028-01-01T00:00:00Z", "2030-01-01T00:00:00Z", "2032-01-01T00:00:00Z"}},
	{name: "year: unordered list", expr: "0 0 0 1 1 ? 2031,2027,2029", zone: "UTC", start: "2026-06-01T00:00:00Z",
		want: []string{"2027-01-01T00:00:00Z", "2029-01-01T00:00:00Z", "2031-01-01T00:00:00Z"}, end: true},
	{name: "year: last possible fire time", expr: "0 0 0 31 12 ? 2099", zone: "UTC", start: "2099-06-01T00:00:00Z",
		want: []string{"2099-12-31T00:00:00Z"}, end: true},
	{name: "year: start before 1970", expr: "0 0 0 1 1 ?", zone: "UTC", start: "1960-06-01T00:00:00Z",
		want: []string{"1970-01-01T00:00:00Z", "1971-01-01T00:00:00Z"}},
	{name: "strictly after: start at a fire time", expr: "0 0 0 * * ?", zone: "UTC", start: "2026-01-01T00:00:00Z",
		want: []string{"2026-01-02T00:00:00Z", "2026-01-03T00:00:00Z"}},
	{name: "sub-second start is truncated to the second", expr: "* * * * * ?", zone: "UTC", start: "2026-01-01T00:00:00.999Z",
		want: []string{"2026-01-01T00:00:01Z", "2026-01-01T00:00:02Z"}},
	{name: "every second crosses a year", expr: "* * * * * ?", zone: "UTC", start: "2026-12-31T23:59:58Z",
		want: []string{"2026-12-31T23:59:59Z", "2027-01-01T00:00:00Z", "2027-01-01T00:00:01Z"}},
	{name: "New York: every 15 min through spring-forward", expr: "0 0/15 * * * ?", zone: "America/New_York", start: "2026-03-08T01:30:00-05:00",
		want: []string{"2026-03-08T01:45:00-05:00", "2026-03-08T03:00:00-04:00", "2026-03-08T03:15:00-04:00", "2026-03-08T03:30:00-04:00"}},
	{name: "New York: every 15 min through fall-back (second 01:xx only)", expr: "0 0/15 * * * ?", zone: "America/New_York", start: "2026-11-01T00:30:00-04:00",
		want: []string{"2026-11-01T00:45:00-04:00", "2026-11-01T01:00:00-05:00", "2026-11-01T01:15:00-05:00", "2026-11-01T01:30:00-05:00", "2026-11-01T01:45:00-05:00", "2026-11-01T02:00:00-05:00", "2026-11-01T02:15:00-05:00"}},
	{name: "New York: 02:30 daily does not fire on the spring-forward day", expr: "0 30 2 * * ?", zone: "America/New_York", start: "2026-03-07T00:00:00-05:00",
		want: []string{"2026-03-07T02:30:00-05:00", "2026-03-09T02:30:00-04:00", "2026-03-10T02:30:00-04:00"}},
	{name: "New York: 02:00 daily does not fire on the spring-forward day", expr: "0 0 2 * * ?", zone: "America/New_York", start: "2026-03-07T12:00:00-05:00",
		want: []string{"2026-03-09T02:00:00-04:00", "2026-03-10T02:00:00-04:00"}},
	{name: "New York: 03:00 daily fires on the spring-forward day", expr: "0 0 3 * * ?", zone: "America/New_York", start: "2026-03-07T12:00:00-05:00",
		want: []string{"2026-03-08T03:00:00-04:00", "2026-03-09T03:00:00-04:00"}},
	{name: "New York: 01:30 daily fires once on the fall-back day, in EST", expr: "0 30 1 * * ?", zone: "America/New_York", start: "2026-10-31T00:00:00-04:00",
		want: []string{"2026-10-31T01:30:00-04:00", "2026-11-01T01:30:00-05:00", "2026-11-02T01:30:00-05:00"}},
	{name: "New York: after 01:40 EDT the wall clock is past 01:30", expr: "0 30 1 * * ?", zone: "America/New_York", start: "2026-11-01T01:40:00-04:00",
		want: []string{"2026-11-02T01:30:00-05:00", "2026-11-03T01:30:00-05:00"}},
	{name: "New York: every second from the first 01:59:58", expr: "* * * * * ?", zone: "America/New_York", start: "2026-11-01T01:59:58-04:00",
		want: []string{"2026-11-01T01:59:59-05:00", "2026-11-01T02:00:00-05:00", "2026-11-01T02:00:01-05:00"}},
	{name: "New York: hourly on the fall-back day", expr: "0 0 * * * ?", zone: "America/New_York", start: "2026-11-01T00:00:00-04:00",
		want: []string{"2026-11-01T01:00:00-05:00", "2026-11-01T02:00:00-05:00", "2026-11-01T03:00:00-05:00"}},
	{name: "New York: 02:30 on the second Sunday of March never exists", expr: "0 30 2 ? 3 1#2", zone: "America/New_York", start: "2026-01-01T00:00:00-05:00",
		want: []string{}, end: true},
	{name: "London: every 15 min through spring-forward", expr: "0 0/15 * * * ?", zone: "Europe/London", start: "2026-03-29T00:30:00Z",
		want: []string{"2026-03-29T00:45:00Z", "2026-03-29T02:00:00+01:00", "2026-03-29T02:15:00+01:00", "2026-03-29T02:30:00+01:00"}},
	{name: "London: every 15 min through fall-back", expr: "0 0/15 * * * ?", zone: "Europe/London", start: "2026-10-25T00:30:00+01:00",
		want: []string{"2026-10-25T00:45:00+01:00", "2026-10-25T01:00:00Z", "2026-10-25T01:15:00Z", "2026-10-25T01:30:00Z", "2026-10-25T01:45:00Z", "2026-10-25T02:00:00Z"}},
	{name: "London: 01:30 daily skips the spring-forward day", expr: "0 30 1 * * ?", zone: "Europe/London", start: "2026-03-28T00:00:00Z",
		want: []string{"2026-03-28T01:30:00Z", "2026-03-30T01:30:00+01:00", "2026-03-31T01:30:00+01:00"}},
	{name: "Berlin: every 15 min through spring-forward", expr: "0 0/15 * * * ?", zone: "Europe/Berlin", start: "2026-03-29T01:30:00+01:00",
		want: []string{"2026-03-29T01:45:00+01:00", "2026-03-29T03:00:00+02:00", "2026-03-29T03:15:00+02:00", "2026-03-29T03:30:00+02:00"}},
	{name: "Berlin: every 15 min through fall-back", expr: "0 0/15 * * * ?", zone: "Europe/Berlin", start: "2026-10-25T01:30:00+02:00",
		want: []string{"2026-10-25T01:45:00+02:00", "2026-10-25T02:00:00+01:00", "2026-10-25T02:15:00+01:00", "2026-10-25T02:30:00+01:00", "2026-10-25T02:45:00+01:00", "2026-10-25T03:00:00+01:00"}},
	{name: "Berlin: 02:30 daily fires once on the fall-back day, in CET", expr: "0 30 2 * * ?", zone: "Europe/Berlin", start: "2026-10-24T12:00:00+02:00",
		want: []string{"2026-10-25T02:30:00+01:00", "2026-10-26T02:30:00+01:00", "2026-10-27T02:30:00+01:00"}},
	{name: "Sydney: every 15 min through spring-forward (October)", expr: "0 0/15 * * * ?", zone: "Australia/Sydney", start: "2026-10-04T01:30:00+10:00",
		want: []string{"2026-10-04T01:45:00+10:00", "2026-10-04T03:00:00+11:00", "2026-10-04T03:15:00+11:00", "2026-10-04T03:30:00+11:00"}},
	{name: "Sydney: every 15 min through fall-back (April)", expr: "0 0/15 * * * ?", zone: "Australia/Sydney", start: "2026-04-05T01:30:00+11:00",
		want: []string{"2026-04-05T01:45:00+11:00", "2026-04-05T02:00:00+10:00", "2026-04-05T02:15:00+10:00", "2026-04-05T02:30:00+10:00", "2026-04-05T02:45:00+10:00", "2026-04-05T03:00:00+10:00", "2026-04-05T03:15:00+10:00"}},
	{name: "Sydney: 02:00 daily skips the spring-forward day", expr: "0 0 2 * * ?", zone: "Australia/Sydney", start: "2026-10-03T12:00:00+10:00",
		want: []string{"2026-10-05T02:00:00+11:00", "2026-10-06T02:00:00+11:00"}},
	{name: "Kolkata: every 15 min, no DST", expr: "0 0/15 * * * ?", zone: "Asia/Kolkata", start: "2026-03-08T01:30:00+05:30",
		want: []string{"2026-03-08T01:45:00+05:30", "2026-03-08T02:00:00+05:30", "2026-03-08T02:15:00+05:30"}},
	{name: "Kolkata: last day of month at midnight", expr: "0 0 0 L * ?", zone: "Asia/Kolkata", start: "2026-01-01T00:00:00+05:30",
		want: []string{"2026-01-31T00:00:00+05:30", "2026-02-28T00:00:00+05:30", "2026-03-31T00:00:00+05:30"}},
	{name: "Santiago: midnight daily skips the day DST starts at midnight", expr: "0 0 0 * * ?", zone: "America/Santiago", start: "2026-09-04T00:00:00-04:00",
		want: []string{"2026-09-05T00:00:00-04:00", "2026-09-07T00:00:00-03:00", "2026-09-08T00:00:00-03:00", "2026-09-09T00:00:00-03:00"}},
	{name: "Santiago: every 30 min through spring-forward at midnight", expr: "0 0/30 * * * ?", zone: "America/Santiago", start: "2026-09-05T22:00:00-04:00",
		want: []string{"2026-09-05T22:30:00-04:00", "2026-09-05T23:00:00-04:00", "2026-09-05T23:30:00-04:00", "2026-09-06T01:00:00-03:00", "2026-09-06T01:30:00-03:00", "2026-09-06T02:00:00-03:00"}},
	{name: "Santiago: every 30 min through fall-back at midnight", expr: "0 0/30 * * * ?", zone: "America/Santiago", start: "2026-04-04T22:00:00-03:00",
		want: []string{"2026-04-04T22:30:00-03:00", "2026-04-04T23:00:00-04:00", "2026-04-04T23:30:00-04:00", "2026-04-05T00:00:00-04:00", "2026-04-05T00:30:00-04:00", "2026-04-05T01:00:00-04:00"}},
	{name: "Santiago: Sundays at midnight skip the DST Sunday", expr: "0 0 0 ? * SUN", zone: "America/Santiago", start: "2026-08-30T12:00:00-04:00",
		want: []string{"2026-09-13T00:00:00-03:00", "2026-09-20T00:00:00-03:00"}},
	{name: "Lord Howe: every 15 min through the 30-minute spring-forward", expr: "0 0/15 * * * ?", zone: "Australia/Lord_Howe", start: "2026-10-04T01:30:00+10:30",
		want: []string{"2026-10-04T01:45:00+10:30", "2026-10-04T02:30:00+11:00", "2026-10-04T02:45:00+11:00", "2026-10-04T03:00:00+11:00"}},
	{name: "Lord Howe: every 15 min through the 30-minute fall-back", expr: "0 0/15 * * * ?", zone: "Australia/Lord_Howe", start: "2026-04-05T01:30:00+11:00",
		want: []string{"2026-04-05T01:45:00+10:30", "2026-04-05T02:00:00+10:30", "2026-04-05T02:15:00+10:30", "2026-04-05T02:30:00+10:30", "2026-04-05T02:45:00+10:30", "2026-04-05T03:00:00+10:30"}},
	{name: "Samoa: the skipped 30 December 2011", expr: "0 0 12 * * ?", zone: "Pacific/Apia", start: "2011-12-28T13:00:00-10:00",
		want: []string{"2011-12-29T12:00:00-10:00", "2011-12-31T12:00:00+14:00", "2012-01-01T12:00:00+14:00"}},

	// Deliberate differences from Quartz 2.3.2 (its answer is in quartzDiffers).
	{name: "29W: Quartz skips 28 Feb 2025 when coming from January's fire", expr: "0 0 0 29W * ?", zone: "UTC", start: "2025-01-28T00:00:00Z",
		want:          []string{"2025-01-29T00:00:00Z", "2025-02-28T00:00:00Z", "2025-03-28T00:00:00Z"},
		quartzDiffers: "Quartz 2.3.2 rolls \"29 February\" over to 1 March from here and misses the 28th; it fires on the 28th when it starts in February"},
	{name: "Lord Howe: 30-minute gap, Quartz skips 02:40", expr: "0 20,40 * * * ?", zone: "Australia/Lord_Howe", start: "2026-10-04T01:30:00+10:30",
		want:          []string{"2026-10-04T01:40:00+10:30", "2026-10-04T02:40:00+11:00", "2026-10-04T03:20:00+11:00"},
		quartzDiffers: "Quartz shifts 02:20 (in the gap) by 30 minutes to 02:50 and misses 02:40, which exists"},
	{name: "Nuuk: gap ending at midnight, Quartz skips the whole next day", expr: "0 0 4,23 * * ?", zone: "America/Nuuk", start: "2030-03-30T12:00:00-02:00",
		want:          []string{"2030-03-31T04:00:00-01:00", "2030-03-31T23:00:00-01:00"},
		quartzDiffers: "Quartz's setCalendarHour retries hour 24 on the already normalized day and skips 31 March"},
	{name: "leap day: Quartz runs \"*\" years to now+100", expr: "0 0 0 29 2 ?", zone: "UTC", start: "2095-01-01T00:00:00Z",
		want: []string{"2096-02-29T00:00:00Z"}, end: true,
		quartzDiffers: "Quartz (run in 2026) lets \"*\" years run to 2126 and fires on 2104-02-29; the documented range ends at 2099"},
}

// rejectCase is an expression Parse must refuse, naming field.
type rejectCase struct {
	expr  string
	field string
	// quartzAccepts marks text that Quartz 2.3.2 accepts but misreads
	// (checked with the oracle); we reject it on purpose.
	quartzAccepts bool
}

var rejectCases = []rejectCase{
	// The expression as a whole.
	{expr: "", field: "expression"},
	{expr: "   ", field: "expression"},
	{expr: "0 0 12 * *", field: "expression"},
	{expr: "0 0 12 * * ? 2026 extra", field: "expression", quartzAccepts: true},
	{expr: "0 0 12\n* * ?", field: "expression"},
	// "?" rules.
	{expr: "0 0 12 ? * ?", field: "day-of-week"},
	{expr: "0 0 12 * * *", field: "day-of-week"},
	{expr: "0 0 12 1 * MON", field: "day-of-week"},
	{expr: "0 0 12 L * 6L", field: "day-of-week"},
	{expr: "0 0 ? * * ?", field: "hours"},
	{expr: "? 0 0 1 * ?", field: "seconds"},
	{expr: "0 ? 0 1 * ?", field: "minutes"},
	{expr: "0 0 0 1 ? ?", field: "month"},
	{expr: "0 0 0 1 * ? ?", field: "year"},
	{expr: "0 0 0 5,? * 2", field: "day-of-month", quartzAccepts: true},
	{expr: "0 0 0 ?X * 2", field: "day-of-month", quartzAccepts: true},
	// Ranges of values.
	{expr: "60 0 0 * * ?", field: "seconds"},
	{expr: "0 60 0 * * ?", field: "minutes"},
	{expr: "0 0 24 * * ?", field: "hours"},
	{expr: "0 0 0 32 * ?", field: "day-of-month"},
	{expr: "0 0 0 0 * ?", field: "day-of-month"},
	{expr: "0 0 0 1 13 ?", field: "month"},
	{expr: "0 0 0 1 0 ?", field: "month"},
	{expr: "0 0 0 1 5-0 ?", field: "month", quartzAccepts: true},
	{expr: "0 0 0 ? * 8", field: "day-of-week"},
	{expr: "0 0 0 ? * 0", field: "day-of-week"},
	{expr: "0 0 0 ? * 1-8", field: "day-of-week"},
	{expr: "0 0 0 1 1 ? 1969", field: "year", quartzAccepts: true},
	{expr: "0 0 0 1 1 ? 2100", field: "year", quartzAccepts: true},
	{expr: "0 0 0 1 1 ? 2030-2020", field: "year"},
	{expr: "99999999999 0 0 * * ?", field: "seconds"},
	// Steps.
	{expr: "*/60 * * * * ?", field: "seconds"},
	{expr: "0 */60 * * * ?", field: "minutes"},
	{expr: "0 0 */24 * * ?", field: "hours"},
	{expr: "0 0 0 */32 * ?", field: "day-of-month"},
	{expr: "0 0 0 1 */13 ?", field: "month"},
	{expr: "0 0 0 ? * */8", field: "day-of-week"},
	{expr: "0 0 0 ? * 2/8", field: "day-of-week"},
	{expr: "*/0 * * * * ?", field: "seconds", quartzAccepts: true},
	{expr: "0 0 0 1 1 ? 2020/0", field: "year", quartzAccepts: true},
	{expr: "0 0 1-5/0 * * ?", field: "hours", quartzAccepts: true},
	{expr: "5/ * * * * ?", field: "seconds"},
	{expr: "*/ * * * * ?", field: "seconds"},
	{expr: "5/2X * * * * ?", field: "seconds"},
	{expr: "5-10/2X * * * * ?", field: "seconds", quartzAccepts: true},
	// Names.
	{expr: "0 0 0 1 FOO ?", field: "month"},
	{expr: "0 0 0 ? * FOO", field: "day-of-week"},
	{expr: "0 0 0 ? * MONDAY", field: "day-of-week", quartzAccepts: true},
	{expr: "0 0 0 1 JANUARY ?", field: "month", quartzAccepts: true},
	{expr: "0 0 0 ? * JAN", field: "day-of-week"},
	{expr: "0 0 0 1 MON ?", field: "month"},
	{expr: "MON 0 0 1 * ?", field: "seconds"},
	{expr: "0 0 0 1 JAN-3 ?", field: "month"},
	{expr: "0 0 0 1 1-MAR ?", field: "month"},
	{expr: "0 0 0 ? * MON-FRI/2", field: "day-of-week", quartzAccepts: true},
	{expr: "0 0 0 1 JAN/2 ?", field: "month", quartzAccepts: true},
	// L, W and #.
	{expr: "0 0 0 L-31 * ?", field: "day-of-month"},
	{expr: "0 0 0 L-W * ?", field: "day-of-month", quartzAccepts: true},
	{expr: "0 0 0 L- * ?", field: "day-of-month"},
	{expr: "0 0 0 L,15 * ?", field: "day-of-month"},
	{expr: "0 0 0 LW,15 * ?", field: "day-of-month"},
	{expr: "0 0 0 LX * ?", field: "day-of-month"},
	{expr: "0 0 0 32W * ?", field: "day-of-month"},
	{expr: "0 0 0 0W * ?", field: "day-of-month", quartzAccepts: true},
	{expr: "0 0 0 1-5W * ?", field: "day-of-month", quartzAccepts: true},
	{expr: "0 0 0 1W,15 * ?", field: "day-of-month", quartzAccepts: true},
	{expr: "0 0 0 15WW * ?", field: "day-of-month", quartzAccepts: true},
	{expr: "0 0 0 W * ?", field: "day-of-month"},
	{expr: "0 0 0 5L * ?", field: "day-of-month"},
	{expr: "0 0 0 5#2 * ?", field: "day-of-month"},
	{expr: "0 0 0 ? * 1W", field: "day-of-week"},
	{expr: "0 0 0 ? * 6L,2", field: "day-of-week"},
	{expr: "0 0 0 ? * L,2", field: "day-of-week"},
	{expr: "0 0 0 ? * 8L", field: "day-of-week"},
	{expr: "0 0 0 ? * 0L", field: "day-of-week"},
	{expr: "0 0 0 ? * 5LFOO", field: "day-of-week", quartzAccepts: true},
	{expr: "0 0 0 ? * L-3", field: "day-of-week", quartzAccepts: true},
	{expr: "0 0 0 ? * 6#3,2#1", field: "day-of-week"},
	{expr: "0 0 0 ? * 6#3,2", field: "day-of-week", quartzAccepts: true},
	{expr: "0 0 0 ? * 6#6", field: "day-of-week"},
	{expr: "0 0 0 ? * 6#0", field: "day-of-week"},
	{expr: "0 0 0 ? * 6#", field: "day-of-week"},
	{expr: "0 0 0 ? * 9#2", field: "day-of-week", quartzAccepts: true},
	{expr: "0 0 0 1 L ?", field: "month", quartzAccepts: true},
	{expr: "L 0 0 1 * ?", field: "seconds", quartzAccepts: true},
	{expr: "0 0 L * * ?", field: "hours", quartzAccepts: true},
	{expr: "0 0 0 1 1 ? L", field: "year", quartzAccepts: true},
	{expr: "0 0 0 1 # ?", field: "month"},
	// Stray characters.
	{expr: "5X * * * * ?", field: "seconds", quartzAccepts: true},
	{expr: "5-10X * * * * ?", field: "seconds", quartzAccepts: true},
	{expr: "** * * * * ?", field: "seconds", quartzAccepts: true},
	{expr: "*5 * * * * ?", field: "seconds", quartzAccepts: true},
	{expr: "5- * * * * ?", field: "seconds"},
	{expr: "-5 * * * * ?", field: "seconds"},
	{expr: "1.5 * * * * ?", field: "seconds", quartzAccepts: true},
	{expr: "0 0 0 1,,2 * ?", field: "day-of-month", quartzAccepts: true},
	{expr: "0 0 0 1, * ?", field: "day-of-month", quartzAccepts: true},
}

func loadZone(t testing.TB, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatalf("zone %s: %v", name, err)
	}
	return loc
}

func TestNextTable(t *testing.T) {
	if len(nextCases) < 80 {
		t.Fatalf("the table has shrunk to %d cases", len(nextCases))
	}
	for _, c := range nextCases {
		t.Run(c.name, func(t *testing.T) {
			loc := loadZone(t, c.zone)
			e, err := Parse(c.expr, loc)
			if err != nil {
				t.Fatalf("Parse(%q): %v", c.expr, err)
			}
			after, err := time.Parse(time.RFC3339Nano, c.start)
			if err != nil {
				t.Fatal(err)
			}
			for i, want := range c.want {
				got, ok := e.Next(after)
				if !ok {
					t.Fatalf("%q after %s: no fire time, want %s (fire %d)", c.expr, after, want, i+1)
				}
				if s := got.Format(time.RFC3339); s != want {
					t.Fatalf("%q after %s: got %s, want %s (fire %d)", c.expr, after.Format(time.RFC3339), s, want, i+1)
				}
				if got.Location() != loc {
					t.Errorf("result in %v, want %v", got.Location(), loc)
				}
				if !e.Matches(got) {
					t.Errorf("Matches(%s) = false for a fire time", got.Format(time.RFC3339))
				}
				after = got
			}
			got, ok := e.Next(after)
			if c.end && ok {
				t.Errorf("%q after %s: got %s, want no more fire times", c.expr, after.Format(time.RFC3339), got.Format(time.RFC3339))
			}
			if !c.end && len(c.want) > 0 && !ok {
				t.Errorf("%q after %s: no more fire times", c.expr, after.Format(time.RFC3339))
			}
		})
	}
}

func TestParseRejects(t *testing.T) {
	for _, c := range rejectCases {
		e, err := Parse(c.expr, nil)
		if err == nil {
			t.Errorf("Parse(%q) = %q, want an error in %s", c.expr, e, c.field)
			continue
		}
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Errorf("Parse(%q): error %T, want *ParseError", c.expr, err)
			continue
		}
		if pe.Field != c.field {
			t.Errorf("Parse(%q): error names %q (%v), want %q", c.expr, pe.Field, err, c.field)
		}
		if pe.quartzAccepts != c.quartzAccepts {
			t.Errorf("Parse(%q): quartzAccepts = %v, want %v", c.expr, pe.quartzAccepts, c.quartzAccepts)
		}
		if !strings.HasPrefix(err.Error(), pe.Field+": ") || len(pe.Reason) < 10 {
			t.Errorf("Parse(%q): unhelpful message %q", c.expr, err)
		}
	}
}

func TestParseErrorMessages(t *testing.T) {
	for expr, want := range map[string]string{
		"0 0 0 ? * 8":         `day-of-week: "8" is out of range 1-7 (SUN-SAT)`,
		"0 0 0 1 13 ?":        `month: "13" is out of range 1-12 (JAN-DEC)`,
		"60 0 0 * * ?":        `seconds: "60" is out of range 0-59`,
		"0 0 0 ? * ?":         `day-of-week: "?" cannot be used in both day-of-month and day-of-week; use "?" in exactly one of them`,
		"0 0 ? * * ?":         `hours: "?" is only allowed in day-of-month or day-of-week`,
		"0 0 0 L-31 * ?":      `day-of-month: "L-31": the offset from the last day must be at most 30`,
		"0 0 0 ? * 6#6":       `day-of-week: "6#6": the number after "#" must be from 1 to 5`,
		"0 0 0 1 * MON":       `day-of-week: day-of-month "1" and day-of-week "MON" cannot both be set; one of them must be "?" (Quartz does not support both)`,
		"0 0 12 * *":          `expression: expected 6 or 7 fields (seconds minutes hours day-of-month month day-of-week [year]) but found 5`,
		"*/60 * * * * ?":      `seconds: "*/60": the step after "/" must be at most 59`,
		"0 0 0 1 1 ? 2100":    `year: "2100" is out of range 1970-2099`,
		"0 0 0 ? * MONDAY":    `day-of-week: "MONDAY" is not a day name (use SUN-SAT or 1-7)`,
		"0 0 0 ? * MON-FRI/2": `day-of-week: "MON-FRI/2": a step cannot follow a name (Quartz would ignore it); use numbers, e.g. "2-6/2"`,
	} {
		_, err := Parse(expr, nil)
		if err == nil || err.Error() != want {
			t.Errorf("Parse(%q) error:\n got  %v\n want %s", expr, err, want)
		}
	}
}

func TestString(t *testing.T) {
	for in, want := range map[string]string{
		"0 15 10 ? * mon-fri":     "0 15 10 ? * MON-FRI",
		"  0\t0  12 * *  ?  ":     "0 0 12 * * ?",
		"0 0 12 * * ? 2030":       "0 0 12 * * ? 2030",
		"0 15 10 l-2 jan-mar ? *": "0 15 10 L-2 JAN-MAR ? *",
		"0 0 0 ? * fri#3":         "0 0 0 ? * FRI#3",
	} {
		e, err := Parse(in, nil)
		if err != nil {
			t.Fatalf("Parse(%q): %v", in, err)
		}
		if e.String() != want {
			t.Errorf("String() of %q = %q, want %q", in, e.String(), want)
		}
		// The normalized text parses to the same expression.
		again := MustParse(e.String(), nil)
		if *again != *e {
			t.Errorf("%q: normalized text parses differently", in)
		}
	}
}

func TestParseNilLocationIsUTC(t *testing.T) {
	e := MustParse("0 0 12 * * ?", nil)
	if e.Location() != time.UTC {
		t.Fatalf("location %v, want UTC", e.Location())
	}
	got, _ := e.Next(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	if want := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC); !got.Equal(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

// Matches(t) must hold exactly when Next(t-1s) == t (Quartz's isSatisfiedBy).
func TestMatchesAgreesWithNext(t *testing.T) {
	for _, c := range nextCases {
		loc := loadZone(t, c.zone)
		e := MustParse(c.expr, loc)
		start, _ := time.Parse(time.RFC3339Nano, c.start)
		// Every second of a few hours around the start, and around each
		// expected fire time.
		probes := []time.Time{start}
		for _, w := range c.want {
			tw, _ := time.Parse(time.RFC3339, w)
			probes = append(probes, tw)
		}
		for _, p := range probes {
			for d := -90; d <= 90; d++ {
				tt := p.Add(time.Duration(d) * time.Second).Truncate(time.Second)
				next, ok := e.Next(tt.Add(-time.Second))
				want := ok && next.Equal(tt)
				if got := e.Matches(tt); got != want {
					t.Fatalf("%s: Matches(%s) = %v, Next(t-1s) = %v", c.name, tt.In(loc).Format(time.RFC3339), got, next.Format(time.RFC3339))
				}
			}
		}
	}
}

// Every-15-minutes expressions keep firing through a year of DST changes in
// zones of all kinds: fire times are 15 minutes apart on the wall clock, and
// never more than 15 minutes plus the size of a gap apart in real time.
func TestQuarterHourThroughAYearOfDST(t *testing.T) {
	for _, zone := range []string{"America/New_York", "Europe/London", "Europe/Berlin", "Australia/Sydney",
		"Asia/Kolkata", "America/Santiago", "Australia/Lord_Howe", "America/Nuuk", "Antarctica/Troll", "Pacific/Chatham"} {
		loc := loadZone(t, zone)
		e := MustParse("0 0/15 * * * ?", loc)
		after := time.Date(2026, 1, 1, 0, 0, 0, 0, loc)
		end := after.AddDate(1, 0, 0)
		n := 0
		for after.Before(end) {
			next, ok := e.Next(after)
			if !ok {
				t.Fatalf("%s: stopped after %s", zone, after)
			}
			if gap := next.Sub(after); n > 0 && (gap < 15*time.Minute-time.Hour || gap > 15*time.Minute+2*time.Hour+time.Second) {
				t.Fatalf("%s: %s -> %s", zone, after, next)
			}
			if next.Minute()%15 != 0 || next.Second() != 0 {
				t.Fatalf("%s: fired at %s", zone, next)
			}
			if !next.After(after) {
				t.Fatalf("%s: %s is not after %s", zone, next, after)
			}
			after = next
			n++
		}
		// 365 days of 96 quarter hours, less the hour(s) lost to the
		// spring-forward gap and the repeated hour that fires only once.
		if n < 365*96-12 || n > 365*96 {
			t.Errorf("%s: %d fire times in 2026", zone, n)
		}
	}
}

func TestQuartzTrigger(t *testing.T) {
	var tr quartz.Trigger = MustParse("0 0 12 * * ?", loadZone(t, "Europe/Berlin"))
	prev := time.Date(2026, 6, 1, 12, 0, 0, 500, time.UTC).UnixNano()
	next, err := tr.NextFireTime(prev)
	if err != nil {
		t.Fatal(err)
	}
	if want := time.Date(2026, 6, 2, 10, 0, 0, 0, time.UTC).UnixNano(); next != want {
		t.Errorf("NextFireTime = %v, want %v", time.Unix(0, next).UTC(), time.Unix(0, want).UTC())
	}
	if got, want := tr.Description(), "CronTrigger::0 0 12 * * ?::Europe/Berlin"; got != want {
		t.Errorf("Description() = %q, want %q", got, want)
	}
	expired := MustParse("0 0 0 1 1 ? 2030", nil)
	if _, err := expired.NextFireTime(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()); !errors.Is(err, quartz.ErrTriggerExpired) {
		t.Errorf("after the last year: err = %v, want ErrTriggerExpired", err)
	}
}

func TestNextBeyondRange(t *testing.T) {
	e := MustParse("* * * * * ?", nil)
	for _, after := range []time.Time{
		time.Date(2099, 12, 31, 23, 59, 59, 0, time.UTC),
		time.Date(2500, 1, 1, 0, 0, 0, 0, time.UTC),
	} {
		if got, ok := e.Next(after); ok {
			t.Errorf("Next(%s) = %s, want none", after, got)
		}
	}
	got, ok := e.Next(time.Date(-5, 1, 1, 0, 0, 0, 0, time.UTC))
	if !ok || !got.Equal(time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("from year -5: got %s %v", got, ok)
	}
}

// Expression is immutable: concurrent use must be race-free (run with -race)
// and give the same answers.
func TestConcurrentUse(t *testing.T) {
	e := MustParse("0 0/15 * ? * MON-FRI", loadZone(t, "America/New_York"))
	start := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	want := make([]time.Time, 200)
	after := start
	for i := range want {
		want[i], _ = e.Next(after)
		after = want[i]
	}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			after := start
			for i := range want {
				got, _ := e.Next(after)
				if !got.Equal(want[i]) || !e.Matches(got) {
					t.Errorf("goroutine: fire %d = %s, want %s", i, got, want[i])
					return
				}
				after = got
			}
		}()
	}
	wg.Wait()
}
