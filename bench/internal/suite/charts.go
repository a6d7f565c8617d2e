// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package suite

import (
	"fmt"
	"strings"
)

// Charts returns the charts of the report: engage latency, steady latency, noisy neighbour, memory per separate
// cluster, namespaces against the floor, and churn.
func (r *Report) Charts(p plan) []Chart {
	get := func(scenario, c, metric string) float64 {
		v, _ := r.Get(scenario, c, metric)
		return v
	}

	engage := Chart{File: "perf-engage.svg", Title: "Engage latency: clusters handed over → first reconcile in each", Unit: "ms", Log: true}
	var p50, p99, all []float64
	for _, kind := range []struct {
		name  string
		sizes []int
	}{{"virtual", p.engageVirtual}, {armSeparate, p.engageSeparate}, {armOwnMapper, p.engageSeparate}, {armAddConfig, p.engageSeparate}, {armOutOfTree, p.engageSeparate}, {armPlain, p.engageSeparate}} {
		for _, n := range kind.sizes {
			c := fmt.Sprintf("%s N=%d", kind.name, n)
			engage.Groups = append(engage.Groups, strings.Replace(c, "separate, ", "", 1))
			p50 = append(p50, get("engage", c, "p50"))
			p99 = append(p99, get("engage", c, "p99"))
			all = append(all, get("engage", c, "all"))
		}
	}
	engage.Series = []Series{{"p50", p50}, {"p99", p99}, {"all reconciled", all}}

	steady := Chart{File: "perf-steady.svg", Title: "Steady latency: write → reconcile with N clusters engaged", Unit: "ms", Log: true}
	steady.Groups = []string{"floor (bare informer)"}
	sp50 := []float64{get("floor", "informer", "write→event p50"), 0, 0}
	sp99 := []float64{get("floor", "informer", "write→event p99"), 0, 0}
	for i, c := range []string{fmt.Sprintf("virtual N=%d", p.steadyVirtual.Clusters), fmt.Sprintf("separate N=%d", p.steadySeparate.Clusters)} {
		steady.Groups = append(steady.Groups, c)
		sp50[i+1] = get("steady", c, "write→reconcile p50")
		sp99[i+1] = get("steady", c, "write→reconcile p99")
	}
	steady.Series = []Series{{"p50", sp50}, {"p99", sp99}}

	noisy := Chart{File: "perf-noisy-neighbour.svg", Title: "Noisy neighbour: quiet clusters' write → reconcile", Unit: "ms", Log: true}
	for _, c := range noisyCases {
		noisy.Groups = append(noisy.Groups, c.name)
	}
	np50, np99 := make([]float64, len(noisy.Groups)), make([]float64, len(noisy.Groups))
	for i, c := range noisy.Groups {
		np50[i] = get("noisy-neighbour", c, "quiet write→reconcile p50")
		np99[i] = get("noisy-neighbour", c, "quiet write→reconcile p99")
	}
	noisy.Series = []Series{{"quiet p50", np50}, {"quiet p99", np99}}

	memory := Chart{File: "perf-memory.svg", Title: "Memory per separately connected cluster (100 ConfigMaps, one watched type)", Unit: "KiB"}
	var heap, rss []float64
	for i, n := range p.memorySizes {
		for _, arm := range memoryArms {
			if arm.options && i > 0 {
				continue
			}
			c := fmt.Sprintf("%s N=%d", arm.name, n)
			memory.Groups = append(memory.Groups, strings.Replace(c, "separate, ", "", 1))
			heap = append(heap, get("memory", c, "heap per cluster (incl. its objects)"))
			rss = append(rss, get("memory", c, "RSS per cluster (incl. its objects)"))
		}
	}
	memory.Series = []Series{{"Go heap", heap}, {"RSS", rss}}

	namespaces := Chart{File: "perf-namespaces.svg", Title: fmt.Sprintf("%d namespaces: memory per namespace, one object each", p.namespaces), Unit: "KiB"}
	nsArms := []string{"floor (one Manager)", "virtual clusters"}
	nsHeap, nsRSS := make([]float64, 0, len(nsArms)), make([]float64, 0, len(nsArms))
	for _, arm := range nsArms {
		c := fmt.Sprintf("%s N=%d", arm, p.namespaces)
		namespaces.Groups = append(namespaces.Groups, arm)
		nsHeap = append(nsHeap, get("namespaces", c, "heap per namespace (incl. its objects)"))
		nsRSS = append(nsRSS, get("namespaces", c, "RSS per namespace (incl. its objects)"))
	}
	namespaces.Series = []Series{{"Go heap", nsHeap}, {"RSS", nsRSS}}

	churn := Chart{File: "perf-churn.svg", Title: "Churn: engage/disengage cycles, before vs after", Unit: "goroutines / MiB"}
	for _, res := range r.Results {
		if res.Scenario == "churn" && res.Metric == "goroutines before" {
			churn.Title = fmt.Sprintf("Churn: %s of engage → reconcile → disengage", res.Case)
			churn.Groups = []string{"goroutines", "heap (MiB)"}
			churn.Series = []Series{
				{"before", []float64{res.Value, get("churn", res.Case, "heap before")}},
				{"after", []float64{get("churn", res.Case, "goroutines after"), get("churn", res.Case, "heap after")}},
			}
		}
	}
	return []Chart{engage, steady, noisy, memory, namespaces, churn}
}
