package worker

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDeclareFromFile(t *testing.T) {
	write := func(body string) string {
		p := filepath.Join(t.TempDir(), "jobs.json")
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var cfg Config
	err := cfg.DeclareFromFile(write(`{"set": "billing", "dryRun": true, "jobs": [{"name": "invoices", "scheduleType": "CRON", "scheduleExpression": "0 0 3 * * ?", "processor": "billing.invoices"}]}`))
	if err != nil || cfg.JobSet != "billing" || !cfg.JobsDryRun || len(cfg.Jobs) != 1 || cfg.Jobs[0].Name != "invoices" {
		t.Fatalf("declared %+v, err %v", cfg, err)
	}
	for body, want := range map[string]string{
		`{"set": "billing", "jobz": []}`: `unknown field "jobz"`,
		`{"jobs": []}`:                   `"set" must name the set of jobs`,
		`not json`:                       `invalid character`,
	} {
		if err := new(Config).DeclareFromFile(write(body)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want an error saying %s", body, err, want)
		}
	}
}
