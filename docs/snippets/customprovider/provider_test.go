package customprovider_test

import (
	"context"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"sigs.k8s.io/multicluster-runtime/docs/snippets/customprovider"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// A discovery failure is retried and Start returns when its context ends. (Engaging real clusters is what
// pkg/clusters and the providers' integration tests cover.)
func TestStartRetriesAndStops(t *testing.T) {
	calls := make(chan struct{}, 10)
	p := customprovider.New(func(context.Context) (map[multicluster.ClusterName]*rest.Config, error) {
		calls <- struct{}{}
		return nil, context.DeadlineExceeded
	}, 10*time.Millisecond)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- p.Start(ctx, multicluster.Aware(nil)) }()
	for range 2 {
		select {
		case <-calls:
		case <-time.After(time.Minute):
			t.Fatal("discovery was not retried")
		}
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Start() = %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Start did not return")
	}
}
