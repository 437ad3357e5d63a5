package metrics

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// TestDashboardNamesExist: every jobwheel series the Grafana dashboard in
// deploy/grafana queries is one the server exports, so a renamed series
// cannot leave a panel silently empty.
func TestDashboardNamesExist(t *testing.T) {
	m := New()
	ch := make(chan *prometheus.Desc, 256)
	go func() {
		m.Registry().Describe(ch)
		close(ch)
	}()
	names := map[string]bool{}
	fq := regexp.MustCompile(`fqName: "([a-z_]+)"`)
	for d := range ch {
		if s := fq.FindStringSubmatch(d.String()); s != nil {
			names[s[1]] = true
			for _, suffix := range []string{"_bucket", "_count", "_sum"} {
				names[s[1]+suffix] = true
			}
		}
	}
	b, err := os.ReadFile("../../../deploy/grafana/jobwheel-dashboard.json")
	if err != nil {
		t.Fatal(err)
	}
	used := regexp.MustCompile(`jobwheel_[a-z_]+`).FindAllString(string(b), -1)
	if len(used) == 0 {
		t.Fatal("the dashboard queries no jobwheel series")
	}
	for _, u := range used {
		if !names[u] {
			t.Errorf("the dashboard queries %s, which the server does not export (it has %s)", u, strings.Join(keys(names), ", "))
		}
	}
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		if strings.HasPrefix(k, Namespace) && !strings.HasSuffix(k, "_bucket") && !strings.HasSuffix(k, "_sum") && !strings.HasSuffix(k, "_count") {
			out = append(out, k)
		}
	}
	return out
}
