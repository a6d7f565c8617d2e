// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package suite

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"time"

	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
)

// Options choose the size of a run and where it writes.
type Options struct {
	// Quick runs every scenario small, to prove the suite works; it measures nothing worth reading.
	Quick bool
	// Out is the directory for results.json, results.txt (the table) and, in full mode, heap profiles; nothing is
	// written if empty.
	Out string
	// Charts is the directory for the SVG charts; Out if empty.
	Charts string
	// Only, if not empty, runs only the named scenarios (floor always runs): engage, steady, memory, namespaces,
	// noisy, churn.
	Only []string
	// MemorySizes, if not empty, replaces the numbers of separate clusters the memory scenario measures.
	MemorySizes []int
	// Arms, if not empty, runs only the arms of the engage and memory scenarios with these names.
	Arms []string
	// ArmCPUProfiles writes a CPU profile of each arm of the memory scenario to Out (cpu-<arm>.pprof), covering the
	// arm from building its clusters until every object is reconciled. It cannot be combined with a CPU profile of
	// the whole run. It also writes a CPU profile of the first member's API server for the first five seconds of
	// each arm (cpu-member-<arm>.pprof).
	ArmCPUProfiles bool
	// MemoryRounds, if positive, is how many interleaved rounds the arms of the memory scenario's largest size run,
	// instead of the plan's (3 in full mode, 1 in quick mode).
	MemoryRounds int
	// Members, if positive, is the number of member control planes of the fleet instead of the plan's (3 in full
	// mode, 2 in quick mode). More members hold fewer clusters each (see namespacePaths).
	Members int
}

// runsArm tells whether the arm of the engage or memory scenario named name is part of the run.
func (o Options) runsArm(name string) bool {
	return len(o.Arms) == 0 || slices.Contains(o.Arms, name)
}

// runs tells whether the scenario is part of the run.
func (o Options) runs(scenario string) bool {
	return len(o.Only) == 0 || slices.Contains(o.Only, scenario)
}

// plan is the size of every scenario of a run.
type plan struct {
	members        int
	engageVirtual  []int
	engageSeparate []int
	steadyVirtual  FleetSize
	steadySeparate FleetSize
	// memorySizes are the numbers of separate clusters the memory scenario engages, each with memoryObjects
	// ConfigMaps.
	memorySizes   []int
	memoryObjects int
	// memoryRounds is how many interleaved rounds the memory arms of the largest size run.
	memoryRounds int
	// engageRounds is how many interleaved rounds the engage arms of the largest size run.
	engageRounds int
	// namespaces is the number of namespaces the namespaces scenario compares with the floor, in rounds of updates.
	namespaces, namespaceRounds int
	// goroutines is how many goroutines run at once before the scenarios, more than any scenario runs at once (see
	// goroutineDescriptors).
	goroutines int
}

func planFor(o Options) plan {
	if o.Quick {
		return plan{
			members:         2,
			engageVirtual:   []int{10},
			engageSeparate:  []int{10},
			steadyVirtual:   FleetSize{Clusters: 5, Objects: 20, Ticks: 20},
			steadySeparate:  FleetSize{Clusters: 5, Objects: 20, Ticks: 20},
			memorySizes:     []int{5},
			memoryObjects:   20,
			memoryRounds:    1,
			engageRounds:    1,
			namespaces:      20,
			namespaceRounds: 1,
			goroutines:      2000,
		}
	}
	return plan{
		members:         3,
		engageVirtual:   []int{10, 100, 1000},
		engageSeparate:  []int{10, 100, 1000},
		steadyVirtual:   FleetSize{Clusters: 200, Objects: 100, Ticks: 500},
		steadySeparate:  FleetSize{Clusters: 100, Objects: 100, Ticks: 500},
		memorySizes:     []int{100, 1000},
		memoryObjects:   100,
		memoryRounds:    3,
		engageRounds:    5,
		namespaces:      1000,
		namespaceRounds: 5,
		goroutines:      40000,
	}
}

// Run runs every scenario on a fleet of its own, writes the table to w, results.json to o.Out and the charts to
// o.Charts, and returns the report.
func Run(ctx context.Context, w io.Writer, o Options) (*Report, error) {
	p := planFor(o)
	if len(o.MemorySizes) > 0 {
		p.memorySizes = o.MemorySizes
	}
	r := &Report{Date: time.Now().UTC(), Mode: "full", CPUs: runtime.NumCPU(), MemoryGiB: memTotalGiB()}
	if o.Quick {
		r.Mode = "quick"
	}
	began := time.Now()
	step := func(format string, args ...any) {
		fmt.Fprintf(w, "[%6.1fs] %s\n", time.Since(began).Seconds(), fmt.Sprintf(format, args...))
	}
	load := watchLoad(ctx)
	for _, dir := range []string{o.Out, o.Charts} {
		if dir != "" {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return nil, err
			}
		}
	}

	if o.Members > 0 {
		p.members = o.Members
	}
	if o.MemoryRounds > 0 {
		p.memoryRounds = o.MemoryRounds
	}
	step("starting a fleet: a host and %d members", p.members)
	fleet := mcenvtest.NewFleet(mcenvtest.Options{Members: p.members})
	if err := fleet.Start(ctx); err != nil {
		return nil, err
	}
	defer func() { _ = fleet.Stop() }()

	step("goroutine descriptors: %d goroutines at once", p.goroutines)
	r.Add("process", "runtime", descriptorMetric, goroutineDescriptors(ctx, p.goroutines), "B")

	step("floor")
	floor, err := Floor(ctx, fleet, r, o)
	if err != nil {
		return nil, fmt.Errorf("floor: %w", err)
	}
	if err := scenarios(ctx, fleet, r, p, floor, o, step); err != nil {
		return nil, err
	}
	r.Load = load()
	r.Seconds = time.Since(began).Seconds()
	step("done")

	fmt.Fprintln(w)
	r.Table(w)
	if o.Out != "" {
		if err := r.WriteJSON(o.Out); err != nil {
			return nil, err
		}
		var table bytes.Buffer
		r.Table(&table)
		if err := os.WriteFile(filepath.Join(o.Out, "results.txt"), table.Bytes(), 0o644); err != nil {
			return nil, err
		}
	}
	if dir := o.Charts; dir != "" || o.Out != "" {
		if dir == "" {
			dir = o.Out
		}
		if err := WriteCharts(dir, r.Charts(p)); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// scenarios runs every scenario of the plan that o selects, after the floor, and adds their results to r.
func scenarios(ctx context.Context, fleet *mcenvtest.Fleet, r *Report, p plan, floor Floors, o Options, step func(string, ...any)) error {
	// Namespaces run first, on a process that has run nothing else yet.
	if o.runs("namespaces") {
		step("namespaces as virtual clusters vs the floor: %d namespaces", p.namespaces)
		if err := Namespaces(ctx, fleet, r, p.namespaces, p.namespaceRounds, o); err != nil {
			return fmt.Errorf("namespaces: %w", err)
		}
	}
	if !o.runs("engage") {
		p.engageVirtual, p.engageSeparate = nil, nil
	}
	for _, n := range p.engageVirtual {
		step("engage latency, %d virtual clusters", n)
		if err := EngageVirtual(ctx, fleet, r, n, floor); err != nil {
			return fmt.Errorf("engage virtual %d: %w", n, err)
		}
	}
	for i, n := range p.engageSeparate {
		// The arms of the largest size run in interleaved rounds, and the median round counts: under other load on
		// the machine, one run of a few seconds can be twice as slow as the next.
		rounds := 1
		if i == len(p.engageSeparate)-1 {
			rounds = p.engageRounds
		}
		lat := map[string][][]time.Duration{}
		for round := range rounds {
			for _, arm := range engageArms {
				if !o.runsArm(arm) {
					continue
				}
				step("engage latency, %d clusters: %s (round %d of %d)", n, arm, round+1, rounds)
				l, err := EngageSeparate(ctx, fleet, n, round, arm)
				if err != nil {
					return fmt.Errorf("engage %d clusters (%s): %w", n, arm, err)
				}
				lat[arm] = append(lat[arm], l)
			}
		}
		for _, arm := range engageArms {
			if !o.runsArm(arm) {
				continue
			}
			reportRounds(r, "engage", fmt.Sprintf("%s N=%d", arm, n), lat[arm], floor)
		}
		plain, _ := r.Get("engage", fmt.Sprintf("%s N=%d", armPlain, n), "all")
		for _, arm := range []string{armSeparate, armOwnMapper, armAddConfig, armOutOfTree} {
			if all, ok := r.Get("engage", fmt.Sprintf("%s N=%d", arm, n), "all"); ok && plain > 0 {
				r.Add("engage", fmt.Sprintf("%s N=%d", arm, n), "all ÷ plain Managers' all", all/plain, "×")
			}
		}
	}
	if o.runs("steady") {
		step("steady latency, %d separate clusters × %d objects", p.steadySeparate.Clusters, p.steadySeparate.Objects)
		if err := SteadySeparate(ctx, fleet, r, p.steadySeparate, floor); err != nil {
			return fmt.Errorf("steady separate: %w", err)
		}
		step("steady latency, %d virtual clusters × %d objects", p.steadyVirtual.Clusters, p.steadyVirtual.Objects)
		if err := SteadyVirtual(ctx, fleet, r, p.steadyVirtual, floor); err != nil {
			return fmt.Errorf("steady virtual: %w", err)
		}
	}
	if o.runs("memory") {
		step("memory per separate cluster: %v clusters × %d objects, %d rounds of the largest", p.memorySizes, p.memoryObjects, p.memoryRounds)
		if err := MemorySeparate(ctx, fleet, r, p.memorySizes, p.memoryObjects, p.memoryRounds, o); err != nil {
			return fmt.Errorf("memory: %w", err)
		}
	}
	if o.runs("noisy") {
		step("noisy neighbour")
		if err := NoisyNeighbour(ctx, fleet, r, o); err != nil {
			return err
		}
	}
	if o.runs("churn") {
		step("churn")
		if err := Churn(ctx, fleet, r, o); err != nil {
			return fmt.Errorf("churn: %w", err)
		}
	}
	return nil
}
