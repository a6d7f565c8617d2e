// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

// Package suite holds the scenarios of the benchmark suite and what they report. Every scenario runs on real
// control planes from the fleet test kit (pkg/envtest) and uses only the library's public API and
// controller-runtime, so that it can measure any implementation of the same API.
package suite

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
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
	Date      time.Time `json:"date"`
	Mode      string    `json:"mode"`
	CPUs      int       `json:"cpus"`
	MemoryGiB float64   `json:"memoryGiB"`
	// Load is the machine's 1-minute load average sampled during the run: other work on the machine shows here.
	Load    LoadStats `json:"loadAverage"`
	Seconds float64   `json:"seconds"`
	Results []Result  `json:"results"`
}

// LoadStats summarises the 1-minute load averages sampled during a run.
type LoadStats struct {
	Min     float64 `json:"min"`
	Mean    float64 `json:"mean"`
	Max     float64 `json:"max"`
	Samples int     `json:"samples"`
}

// Add records a figure.
func (r *Report) Add(scenario, c, metric string, value float64, unit string) {
	r.Results = append(r.Results, Result{Scenario: scenario, Case: c, Metric: metric, Value: value, Unit: unit})
}

// AddRatio records a duration in milliseconds with its ratio to floor (none if floor is zero).
func (r *Report) AddRatio(scenario, c, metric string, d, floor time.Duration) {
	r.Add(scenario, c, metric, ms(d), "ms")
	if floor > 0 {
		r.Results[len(r.Results)-1].Ratio = float64(d) / float64(floor)
	}
}

// Get returns the value of a figure, and whether there is one.
func (r *Report) Get(scenario, c, metric string) (float64, bool) {
	for _, res := range r.Results {
		if res.Scenario == scenario && res.Case == c && res.Metric == metric {
			return res.Value, true
		}
	}
	return 0, false
}

// Table writes the results as an aligned table.
func (r *Report) Table(w io.Writer) {
	fmt.Fprintf(w, "%s run, %s, %d CPUs, %.1f GiB, %.0f s; load average (1 min) during the run: min %.2f, mean %.2f, max %.2f\n\n",
		r.Mode, r.Date.Format(time.RFC3339), r.CPUs, r.MemoryGiB, r.Seconds, r.Load.Min, r.Load.Mean, r.Load.Max)
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

// loadAverage reads the 1-minute load average from /proc/loadavg; false where there is none.
func loadAverage() (float64, bool) {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0, false
	}
	fields := strings.Fields(string(data))
	if len(fields) == 0 {
		return 0, false
	}
	v, err := strconv.ParseFloat(fields[0], 64)
	return v, err == nil
}

// watchLoad samples the load average every 10 seconds until ctx ends or the returned function is called, which
// returns the summary.
func watchLoad(ctx context.Context) func() LoadStats {
	var (
		mu    sync.Mutex
		stats LoadStats
		sum   float64
	)
	sample := func() {
		v, ok := loadAverage()
		if !ok {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if stats.Samples == 0 || v < stats.Min {
			stats.Min = v
		}
		stats.Max = max(stats.Max, v)
		sum += v
		stats.Samples++
		stats.Mean = sum / float64(stats.Samples)
	}
	sample()
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(10 * time.Second)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				sample()
			}
		}
	}()
	return func() LoadStats {
		sample()
		cancel()
		<-done
		mu.Lock()
		defer mu.Unlock()
		return stats
	}
}

// memTotalGiB reads the machine's memory from /proc/meminfo; 0 where unknown.
func memTotalGiB() float64 {
	data, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		fields := strings.Fields(line)
		if len(fields) >= 2 && fields[0] == "MemTotal:" {
			kb, _ := strconv.ParseFloat(fields[1], 64)
			return math.Round(kb/(1<<20)*10) / 10
		}
	}
	return 0
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

// Redraw reads the results.json a run wrote to dir and writes its charts to chartsDir (dir if empty), so that a
// change to the charts does not need another run.
func Redraw(dir, chartsDir string) error {
	data, err := os.ReadFile(filepath.Join(dir, "results.json"))
	if err != nil {
		return err
	}
	r := &Report{}
	if err := json.Unmarshal(data, r); err != nil {
		return fmt.Errorf("reading %s: %w", filepath.Join(dir, "results.json"), err)
	}
	if chartsDir == "" {
		chartsDir = dir
	}
	return WriteCharts(chartsDir, r.Charts(planFor(Options{Quick: r.Mode == "quick"})))
}
