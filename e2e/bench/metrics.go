package main

import (
	"fmt"
	"math"
	"net/http"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// histogram is one series of a Prometheus histogram as scraped: the
// cumulative count at or under each bucket's upper bound, and the total.
type histogram struct {
	bounds []float64 // seconds, ascending; +Inf last
	counts []uint64
	count  uint64
}

// scrapeHistogram reads the server's /metrics and returns the histogram
// name's series for app.
func scrapeHistogram(baseURL, name, app string) (histogram, error) {
	resp, err := http.Get(baseURL + "/metrics")
	if err != nil {
		return histogram{}, fmt.Errorf("scraping /metrics: %w", err)
	}
	defer resp.Body.Close()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		return histogram{}, fmt.Errorf("parsing /metrics: %w", err)
	}
	fam := families[name]
	if fam == nil {
		return histogram{}, fmt.Errorf("/metrics has no %s", name)
	}
	for _, m := range fam.GetMetric() {
		if labelOf(m, "app") != app {
			continue
		}
		h := m.GetHistogram()
		out := histogram{count: h.GetSampleCount()}
		for _, b := range h.GetBucket() {
			out.bounds = append(out.bounds, b.GetUpperBound())
			out.counts = append(out.counts, b.GetCumulativeCount())
		}
		out.bounds = append(out.bounds, math.Inf(1))
		out.counts = append(out.counts, out.count)
		return out, nil
	}
	return histogram{}, nil // no observation for the app yet
}

func labelOf(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

// since is what was observed between an earlier scrape and this one.
func (h histogram) since(before histogram) histogram {
	if len(before.counts) != len(h.counts) {
		return h
	}
	out := histogram{bounds: h.bounds, counts: make([]uint64, len(h.counts)), count: h.count - before.count}
	for i := range h.counts {
		out.counts[i] = h.counts[i] - before.counts[i]
	}
	return out
}

// bucketOf returns the upper bound, in milliseconds, of the bucket the
// q-th percentile falls in: what a dashboard's histogram_quantile can
// say at best, to set beside the bench's exact percentile.
func (h histogram) bucketOf(q float64) float64 {
	if h.count == 0 {
		return 0
	}
	rank := uint64(math.Ceil(q / 100 * float64(h.count)))
	for i, c := range h.counts {
		if c >= rank {
			return h.bounds[i] * 1000
		}
	}
	return math.Inf(1)
}
