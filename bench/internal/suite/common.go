package suite

import (
	"context"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// Options choose the size of a run.
type Options struct {
	// Quick runs every scenario small, to prove the suite works; it measures nothing worth reading.
	Quick bool
	// Out is the directory for results.json and the charts.
	Out string
}

// firsts records the first time each key is seen.
type firsts struct {
	mu   sync.Mutex
	seen map[string]time.Time
}

func newFirsts() *firsts { return &firsts{seen: map[string]time.Time{}} }

func (f *firsts) mark(key string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.seen[key]; !ok {
		f.seen[key] = time.Now()
	}
}

func (f *firsts) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.seen)
}

func (f *firsts) since(t0 time.Time) []time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]time.Duration, 0, len(f.seen))
	for _, t := range f.seen {
		out = append(out, t.Sub(t0))
	}
	return out
}

// waitUntil polls cond every 10ms until it holds or timeout passes.
func waitUntil(ctx context.Context, timeout time.Duration, what string, cond func() bool) error {
	deadline := time.Now().Add(timeout)
	ticker := time.NewTicker(10 * time.Millisecond)
	defer ticker.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			return fmt.Errorf("timed out after %s waiting for %s", timeout, what)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-ticker.C:
		}
	}
	return nil
}

// newManager returns a manager of cfg with the provider, without metrics or probe servers.
func newManager(cfg *rest.Config, provider multicluster.Provider) (mcmanager.Manager, error) {
	return mcmanager.New(cfg, provider, mcmanager.Options{
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
	})
}

// run starts mgr and returns a function that stops it and waits for it.
func run(ctx context.Context, mgr mcmanager.Manager) (stop func() error) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	return func() error {
		cancel()
		return <-done
	}
}

// seed creates namespace ns with count ConfigMaps in it, with up to 8 writers at once.
func seed(ctx context.Context, c client.Client, ns string, count int) error {
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); client.IgnoreAlreadyExists(err) != nil {
		return err
	}
	return parallel(8, count, func(i int) error {
		return c.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("obj-%05d", i)}})
	})
}

// parallel runs f(0..n-1) on workers goroutines and returns the first error.
func parallel(workers, n int, f func(i int) error) error {
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
		next     int
	)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				stop := i >= n || firstErr != nil
				mu.Unlock()
				if stop {
					return
				}
				if err := f(i); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	return firstErr
}
