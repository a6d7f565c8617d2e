package suite

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"time"

	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
)

// Run runs every scenario on a fleet of its own, writes the table to w and results.json to o.Out, and returns the
// report.
func Run(ctx context.Context, w io.Writer, o Options) (*Report, error) {
	r := &Report{Date: time.Now().UTC(), Mode: "full", CPUs: runtime.NumCPU()}
	if o.Quick {
		r.Mode = "quick"
	}
	members := 3
	if o.Quick {
		members = 2
	}
	fmt.Fprintf(w, "starting a fleet: a host and %d members\n", members)
	fleet := mcenvtest.NewFleet(mcenvtest.Options{Members: members})
	if err := fleet.Start(ctx); err != nil {
		return nil, err
	}
	defer func() { _ = fleet.Stop() }()

	floor, err := Floor(ctx, fleet, r, o)
	if err != nil {
		return nil, fmt.Errorf("floor: %w", err)
	}
	sizes := []int{10, 100, 1000}
	separate := []int{10, 100}
	if o.Quick {
		sizes, separate = []int{10}, []int{10}
	}
	for _, n := range sizes {
		fmt.Fprintf(w, "engage latency, %d virtual clusters\n", n)
		if err := EngageVirtual(ctx, fleet, r, n, floor); err != nil {
			return nil, fmt.Errorf("engage virtual %d: %w", n, err)
		}
	}
	for _, n := range separate {
		fmt.Fprintf(w, "engage latency, %d separate clusters\n", n)
		if err := EngageSeparate(ctx, fleet, r, n, floor); err != nil {
			return nil, fmt.Errorf("engage separate %d: %w", n, err)
		}
	}
	fmt.Fprintln(w, "noisy neighbour")
	if err := NoisyNeighbour(ctx, fleet, r, o); err != nil {
		return nil, err
	}
	fmt.Fprintln(w, "churn")
	if err := Churn(ctx, fleet, r, o); err != nil {
		return nil, fmt.Errorf("churn: %w", err)
	}
	r.Load = loadAverage()

	fmt.Fprintln(w)
	r.Table(w)
	if o.Out != "" {
		if err := os.MkdirAll(o.Out, 0o755); err != nil {
			return nil, err
		}
		if err := r.WriteJSON(o.Out); err != nil {
			return nil, err
		}
	}
	return r, nil
}
