// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"
)

// narrator prints what happens, one line per event, with the time since the demo started, and keeps the figures
// for the summary. It is safe for concurrent use.
type narrator struct {
	out   io.Writer
	start time.Time

	mu         sync.Mutex
	added      map[string]time.Time     // when each cluster's kubeconfig was written
	engaged    map[string]time.Duration // how long each cluster took from kubeconfig to engaged
	reconciles map[string]int
	gone       map[string]bool
	silent     bool // set once the demo shuts down: engagements ending then are not news
}

func newNarrator(out io.Writer) *narrator {
	return &narrator{
		out: out, start: time.Now(),
		added: map[string]time.Time{}, engaged: map[string]time.Duration{}, reconciles: map[string]int{}, gone: map[string]bool{},
	}
}

// say prints one line: elapsed time, a fixed-width tag and the message.
func (n *narrator) sayf(tag, format string, args ...any) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.sayLockedf(tag, format, args...)
}

func (n *narrator) sayLockedf(tag, format string, args ...any) {
	fmt.Fprintf(n.out, "[%7.2fs] %-10s %s\n", time.Since(n.start).Seconds(), tag, fmt.Sprintf(format, args...))
}

func (n *narrator) clusterAdded(cluster string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.added[cluster] = time.Now()
}

func (n *narrator) clusterEngaged(cluster string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	latency := ""
	if at, ok := n.added[cluster]; ok {
		n.engaged[cluster] = time.Since(at)
		latency = fmt.Sprintf(" (%s after its kubeconfig was written)", n.engaged[cluster].Round(time.Millisecond))
	}
	n.sayLockedf("ENGAGED", "cluster %s%s", cluster, latency)
}

// quiet stops the narration of engagements and reconciles; the summary and plain lines still print.
func (n *narrator) quiet() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.silent = true
}

func (n *narrator) clusterDisengaged(cluster string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.silent {
		return
	}
	n.gone[cluster] = true
	n.sayLockedf("DISENGAGED", "cluster %s", cluster)
}

func (n *narrator) reconciled(cluster, key, value string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.silent {
		return
	}
	n.reconciles[cluster]++
	n.sayLockedf("RECONCILE", "cluster %-9s ConfigMap %s (greeting=%q)", cluster, key, value)
}

func (n *narrator) reconcileCount(cluster string) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.reconciles[cluster]
}

func (n *narrator) isEngaged(cluster string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	_, ok := n.engaged[cluster]
	return ok && !n.gone[cluster]
}

func (n *narrator) isGone(cluster string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.gone[cluster]
}

// summary prints a table of the clusters seen, their engage latency and reconciles.
func (n *narrator) summary() {
	n.mu.Lock()
	defer n.mu.Unlock()
	names := make([]string, 0, len(n.added))
	for name := range n.added {
		names = append(names, name)
	}
	sort.Strings(names)
	total := 0
	fmt.Fprintf(n.out, "\nSummary after %s\n", time.Since(n.start).Round(100*time.Millisecond))
	fmt.Fprintf(n.out, "  %-10s %-12s %-16s %s\n", "cluster", "state", "engage latency", "reconciles")
	fmt.Fprintf(n.out, "  %s\n", strings.Repeat("-", 52))
	for _, name := range names {
		state, latency := "engaged", "-"
		if d, ok := n.engaged[name]; ok {
			latency = d.Round(time.Millisecond).String()
		} else {
			state = "never"
		}
		if n.gone[name] {
			state = "removed"
		}
		total += n.reconciles[name]
		fmt.Fprintf(n.out, "  %-10s %-12s %-16s %d\n", name, state, latency, n.reconciles[name])
	}
	fmt.Fprintf(n.out, "  %d clusters seen, %d reconciles in total\n", len(names), total)
}
