// Package suite holds the scenarios of the benchmark suite and what they report. Every scenario runs on real
// control planes from the fleet test kit (pkg/envtest) and uses only the library's public API and
// controller-runtime, so that it can measure any implementation of the same API.
package suite

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// Result is one measured figure of a scenario.
type Result struct {
	Scenario string  `json:"scenario"`
	Case     string  `json:"case"`
	Metric   string  `json:"metric"`
	Value    float64 `json:"value"`
	Unit     string  `json:"unit"`
	// Ratio is Value divided by the scenario's floor, where one exists (0 otherwise).
	Ratio float64 `json:"ratio,omitempty"`
}

// Report is everything one run measured.
type Report struct {
	Date    time.Time `json:"date"`
	Mode    string    `json:"mode"`
	CPUs    int       `json:"cpus"`
	Load    string    `json:"loadAverage"`
	Results []Result  `json:"results"`
}

// Add records a figure.
func (r *Report) Add(scenario, c, metric string, value float64, unit string) {
	r.Results = append(r.Results, Result{Scenario: scenario, Case: c, Metric: metric, Value: value, Unit: unit})
}

// Table writes the results as an aligned table.
func (r *Report) Table(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "SCENARIO\tCASE\tMETRIC\tVALUE\tUNIT\tx FLOOR\n")
	for _, res := range r.Results {
		ratio := ""
		if res.Ratio > 0 {
			ratio = fmt.Sprintf("%.1f", res.Ratio)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.3f\t%s\t%s\n", res.Scenario, res.Case, res.Metric, res.Value, res.Unit, ratio)
	}
	_ = tw.Flush()
}

// WriteJSON writes the report to dir/results.json.
func (r *Report) WriteJSON(dir string) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "results.json"), append(data, '\n'), 0o644)
}

// loadAverage reads /proc/loadavg where there is one.
func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Join(strings.Fields(string(data))[:3], " ")
}

// percentile returns the p-th percentile (0..100) of ds, by nearest rank.
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(float64(len(s))*p/100+0.5) - 1
	i = max(0, min(i, len(s)-1))
	return s[i]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
