package jobs

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/jobwheel/jobwheel/server/platform/fault"
)

// FuzzJobInput (issue 19, item 2): a job definition as the API hands it
// over — schedule expressions, params, an HTTP processor's JSON, filters,
// alarms — is either refused with a BAD_INPUT naming a field, or accepted
// as a job that, saved again as it is, is accepted unchanged (what was
// stored is what validation meant). `go test -fuzz FuzzJobInput
// ./server/api/jobs/` explores.
func FuzzJobInput(f *testing.F) {
	for _, seed := range []string{
		`{"Name":"a","ScheduleType":"API","ProcessorType":"SHELL","Processor":"echo hi"}`,
		`{"Name":"c","ScheduleType":"CRON","ScheduleExpression":"0 0/5 * * * ?","TimeZone":"Europe/Berlin","ProcessorType":"GO","Processor":"sync"}`,
		`{"Name":"r","ScheduleType":"FIXED_RATE","ScheduleExpression":"1.5s","ProcessorType":"PYTHON","Processor":"print(1)","Params":"{\"a\":[1,2]}"}`,
		`{"Name":"h","ScheduleType":"API","ProcessorType":"HTTP","Processor":"{\"url\":\"https://example.com/x\",\"method\":\"post\",\"headers\":{\"X-A\":\"b\"},\"expectStatus\":201,\"timeoutMs\":5}"}`,
		`{"Name":"h","ScheduleType":"API","ProcessorType":"HTTP","Processor":"{\"url\":\"https://example.com\"} trailing"}`,
		`{"Name":"h","ScheduleType":"API","ProcessorType":"HTTP","Processor":"{\"url\":\"ftp://x\",\"extra\":1}"}`,
		`{"Name":"m","ScheduleType":"API","ExecutionMode":"MAP_REDUCE","ProcessorType":"SHELL","Processor":"x"}`,
		`{"Name":"w","ScheduleType":"FIXED_DELAY","ScheduleExpression":"10s","ProcessorType":"GO","Processor":"p",
		  "LifecycleStart":"2030-01-01T00:00:00.0005Z","LifecycleEnd":"2030-01-02T00:00:00Z"}`,
		`{"Name":"f","ScheduleType":"API","ProcessorType":"GO","Processor":"p","WorkerFilter":{"Tags":["gpu"," "],"MaxWorkers":-1}}`,
		`{"Name":"al","ScheduleType":"API","ProcessorType":"GO","Processor":"p","Alarm":{"Webhooks":["http://10.0.0.1/"],"Emails":["Ops <ops@example.com>"]}}`,
		`{"Name":"","ScheduleType":"WEEKLY","ProcessorType":"COBOL","Processor":""}`,
		`{"Name":"\u0000","ScheduleType":"API","ProcessorType":"GO","Processor":"a b"}`,
		`{"Name":"q","ScheduleType":"API","ProcessorType":"SHELL","Processor":"x","OverlapPolicy":"QUEUE","MaxQueued":3,"Priority":-2,
		  "RetryDelayMs":2000,"RetryBackoff":2.5,"RetryDelayMaxMs":60000}`,
		`{"Name":"q","ScheduleType":"API","ProcessorType":"SHELL","Processor":"x","OverlapPolicy":"REPLACE","RetryBackoff":0.99,"RetryDelayMaxMs":1}`,
	} {
		f.Add([]byte(seed))
	}
	s := New(Deps{})
	f.Fuzz(func(t *testing.T, data []byte) {
		var in Input
		if json.Unmarshal(data, &in) != nil {
			return
		}
		j, _, err := s.build(in, 1, nil)
		if err != nil {
			var bad *fault.Input
			if !errors.As(err, &bad) || bad.Field == "" || bad.Reason == "" {
				t.Fatalf("refused with %v (%T); want a BAD_INPUT naming a field", err, err)
			}
			return
		}
		if len(j.Params) > MaxParamsBytes || j.Name == "" {
			t.Fatalf("accepted %+v", j)
		}
		again, _, err := s.build(inputOf("a", j.Definition("")), 1, nil)
		if err != nil {
			t.Fatalf("the accepted job %+v, saved again, is refused: %v", j, err)
		}
		if !reflect.DeepEqual(again, j) {
			t.Fatalf("the accepted job changes when saved again:\n%+v\n%+v", j, again)
		}
	})
}
