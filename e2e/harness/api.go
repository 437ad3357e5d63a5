package harness

import (
	"fmt"
	"slices"
	"time"

	"github.com/jobwheel/jobwheel/internal/testkit"
)

// Job is what tests read back about a job.
type Job struct {
	ID              string
	Name            string
	NextTriggerTime *time.Time
}

// CreateJob creates a job from a JobInput given as a map and returns its id.
func (c *Client) CreateJob(input map[string]any) (string, error) {
	var out struct{ CreateJob Job }
	err := c.Do(`mutation($in: JobInput!) { createJob(input: $in) { id name nextTriggerTime } }`, map[string]any{"in": input}, &out)
	return out.CreateJob.ID, err
}

// RunJob runs a job now and returns the instance id.
func (c *Client) RunJob(jobID, params string) (string, error) {
	var out struct{ RunJob struct{ ID string } }
	err := c.Do(`mutation($id: ID!, $p: String) { runJob(id: $id, params: $p) { id } }`, map[string]any{"id": jobID, "p": params}, &out)
	return out.RunJob.ID, err
}

// Instance is an instance as tests read it.
type Instance struct {
	ID                  string
	Status              string
	TriggerType         string
	ExpectedTriggerTime *time.Time
	ActualTriggerTime   *time.Time
	StartedTime         *time.Time
	FinishedTime        *time.Time
	Attempt             int
	Result              string
	Reason              string
	Worker              *struct{ ID, Host string }
	Attempts            []struct {
		Attempt int
		Status  string
		Worker  *string
		Result  string
		Reason  string
	}
	Tasks struct{ Total, Waiting, Running, Succeeded, Failed int }
	Logs  struct {
		Lines []LogLine
	}
}

// LogLine is one log line.
type LogLine struct {
	Seq    int64
	Level  string
	Worker *string
	Text   string
}

const instanceFields = `id status triggerType expectedTriggerTime actualTriggerTime startedTime finishedTime attempt result reason
	worker { id host } attempts { attempt status worker result reason } tasks { total waiting running succeeded failed }`

// Instance reads an instance with its attempts, tasks and first 1000 log lines.
func (c *Client) Instance(id string) (*Instance, error) {
	var out struct{ Instance *Instance }
	err := c.Do(`query($id: ID!) { instance(id: $id) { `+instanceFields+` logs(first: 1000) { lines { seq level worker text } } } }`,
		map[string]any{"id": id}, &out)
	if err == nil && out.Instance == nil {
		err = fmt.Errorf("instance %s not found", id)
	}
	return out.Instance, err
}

// WaitInstance polls an instance until its status is one of want.
func (c *Client) WaitInstance(id string, timeout time.Duration, want ...string) (*Instance, error) {
	var last *Instance
	var lastErr error
	ok := testkit.Poll(timeout, func() bool {
		last, lastErr = c.Instance(id)
		return lastErr == nil && slices.Contains(want, last.Status)
	})
	if !ok {
		if lastErr != nil {
			return last, lastErr
		}
		return last, fmt.Errorf("instance %s is %s after %s; want %v (result %q)", id, last.Status, timeout, want, last.Result)
	}
	return last, nil
}

// Instances lists an app's instances of a job (newest first, up to 500).
func (c *Client) Instances(app, jobID string) ([]Instance, error) {
	var out struct {
		Instances struct {
			Edges []struct{ Node Instance }
		}
	}
	err := c.Do(`query($app: String!, $job: ID) { instances(app: $app, jobId: $job, first: 500) { edges { node { `+instanceFields+` } } } }`,
		map[string]any{"app": app, "job": jobID}, &out)
	list := make([]Instance, len(out.Instances.Edges))
	for i, e := range out.Instances.Edges {
		list[i] = e.Node
	}
	return list, err
}

// Worker is a worker as tests read it.
type Worker struct {
	ID, Host string
	Tags     []string
	Alive    bool
}

// Workers lists an app's workers.
func (c *Client) Workers(app string) ([]Worker, error) {
	var out struct{ Workers []Worker }
	err := c.Do(`query($app: String!) { workers(app: $app) { id host tags alive } }`, map[string]any{"app": app}, &out)
	return out.Workers, err
}

// WaitWorkers waits until the app has n live workers.
func (c *Client) WaitWorkers(app string, n int, timeout time.Duration) ([]Worker, error) {
	var list []Worker
	ok := testkit.Poll(timeout, func() bool {
		all, err := c.Workers(app)
		if err != nil {
			return false
		}
		list = list[:0]
		for _, w := range all {
			if w.Alive {
				list = append(list, w)
			}
		}
		return len(list) == n
	})
	if !ok {
		return list, fmt.Errorf("app %s has %d live workers after %s; want %d", app, len(list), timeout, n)
	}
	return list, nil
}
