package worker

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
)

// DeclareFromFile sets cfg.JobSet, cfg.JobsDryRun and cfg.Jobs from a JSON
// file of jobs declared in code — the agent's JOBWHEEL_JOBS_FILE format,
// {"set": "…", "dryRun": false, "jobs": [{"name", "scheduleType", …}]}.
// Unknown fields are refused (a misspelt field would otherwise be dropped
// silently), and the set must be named.
func (c *Config) DeclareFromFile(path string) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var file struct {
		Set    string           `json:"set"`
		DryRun bool             `json:"dryRun"`
		Jobs   []JobDeclaration `json:"jobs"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&file); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if file.Set == "" {
		return fmt.Errorf("%s: \"set\" must name the set of jobs", path)
	}
	c.JobSet, c.JobsDryRun, c.Jobs = file.Set, file.DryRun, file.Jobs
	return nil
}
