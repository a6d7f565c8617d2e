// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

// Command demo runs the quickstart controller of multicluster-runtime against a local fleet of real Kubernetes
// control planes (etcd and kube-apiserver processes, no Docker, no existing clusters), and narrates what happens:
// clusters engaged, reconciles with their cluster names, a cluster added and one removed while the controller runs,
// and a summary.
//
// The controller finds its clusters through the file provider (providers/file): the demo writes one kubeconfig file
// per control plane into a temporary directory that the provider watches, and adds or deletes files as clusters
// join or leave. Ctrl-C stops everything at any moment; no process or temporary file is left behind.
//
// Run it with `make demo` (which builds the control-plane binaries first if needed), or, with KUBEBUILDER_ASSETS
// set, `go run . -clusters 3 -duration 1m`.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	var opts options
	flag.IntVar(&opts.clusters, "clusters", 3, "number of member clusters to start with (1 to 10)")
	flag.DurationVar(&opts.duration, "duration", time.Minute, "how long to run before the summary, at least 10s")
	flag.BoolVar(&opts.keep, "keep", false, "keep running after the scenario, until Ctrl-C")
	flag.BoolVar(&opts.verbose, "v", false, "show the library's own logs")
	flag.Parse()
	if err := opts.validate(); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		flag.Usage()
		os.Exit(2)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, opts, newNarrator(os.Stdout))
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

// options are the demo's flags.
type options struct {
	clusters int
	duration time.Duration
	keep     bool
	verbose  bool
}

func (o options) validate() error {
	if o.clusters < 1 || o.clusters > 10 {
		return fmt.Errorf("-clusters must be between 1 and 10, not %d", o.clusters)
	}
	if o.duration < 10*time.Second {
		return fmt.Errorf("-duration must be at least 10s, not %s", o.duration)
	}
	return nil
}
