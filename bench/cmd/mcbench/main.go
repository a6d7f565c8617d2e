// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

// Command mcbench runs the benchmark suite of multicluster-runtime on real control planes and prints a table of the
// results; with -out it also writes results.json (and, in full mode, heap profiles) there, and SVG charts to
// -charts (or -out). `make bench` runs it in full; -quick runs every scenario small, to prove that the suite works;
// -redraw only redraws the charts of the results.json in -out.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"

	"github.com/go-logr/logr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"sigs.k8s.io/multicluster-runtime/bench/internal/suite"
)

func main() {
	var o suite.Options
	flag.BoolVar(&o.Quick, "quick", false, "run every scenario small (proves the suite runs; measures nothing)")
	flag.StringVar(&o.Out, "out", "", "directory for results.json and heap profiles")
	flag.StringVar(&o.Charts, "charts", "", "directory for the SVG charts (default: -out)")
	only := flag.String("only", "", "comma-separated scenarios to run (engage, steady, memory, namespaces, noisy, churn); the floor always runs")
	arms := flag.String("arms", "", "comma-separated arms of the engage and memory scenarios to run, by name (default: all)")
	memorySizes := flag.String("memory-sizes", "", "comma-separated numbers of separate clusters for the memory scenario (default 100,1000)")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
	flag.BoolVar(&o.ArmCPUProfiles, "arm-cpuprofiles", false, "write a CPU profile of each memory arm's timed window to -out (not with -cpuprofile)")
	flag.IntVar(&o.Members, "members", 0, "number of member control planes (default 3; 2 with -quick)")
	flag.IntVar(&o.MemoryRounds, "memory-rounds", 0, "interleaved rounds of the memory arms at the largest size (default 3; 1 with -quick)")
	redraw := flag.Bool("redraw", false, "run nothing: redraw the charts of the results.json in -out")
	flag.Parse()
	if *redraw {
		if err := suite.Redraw(o.Out, o.Charts); err != nil {
			fmt.Fprintln(os.Stderr, "mcbench:", err)
			os.Exit(1)
		}
		return
	}
	if *only != "" {
		o.Only = strings.Split(*only, ",")
	}
	if *arms != "" {
		o.Arms = strings.Split(*arms, ",")
	}
	for _, f := range strings.Split(*memorySizes, ",") {
		if f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n <= 0 {
			fmt.Fprintln(os.Stderr, "mcbench: -memory-sizes:", f, "is not a positive number")
			os.Exit(2)
		}
		o.MemorySizes = append(o.MemorySizes, n)
	}
	log.SetLogger(logr.Discard())
	if !o.Quick {
		// Finer heap profiles than the default (one sample per 512 KiB), so that the profiles written with the
		// results attribute the few KiB a cluster costs; the figures themselves come from runtime.MemStats.
		runtime.MemProfileRate = 32 * 1024
	}

	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "mcbench: -cpuprofile:", err)
			os.Exit(2)
		}
		defer func() {
			pprof.StopCPUProfile()
			_ = f.Close()
		}()
	}

	if _, err := suite.Run(ctrl.SetupSignalHandler(), os.Stdout, o); err != nil {
		fmt.Fprintln(os.Stderr, "mcbench:", err)
		pprof.StopCPUProfile()
		os.Exit(1) //nolint:gocritic // the profile is stopped above
	}
}
