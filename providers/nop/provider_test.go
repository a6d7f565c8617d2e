package nop_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	"sigs.k8s.io/multicluster-runtime/providers/nop"
)

func TestGet(t *testing.T) {
	for _, name := range []multicluster.ClusterName{"a", "", "cluster-1"} {
		cl, err := nop.New().Get(t.Context(), name)
		if !errors.Is(err, multicluster.ErrClusterNotFound) {
			t.Errorf("Get(%q) error = %v, want ErrClusterNotFound", name, err)
		}
		if err != nil && !strings.Contains(err.Error(), `"`+name.String()+`"`) {
			t.Errorf("Get(%q) error %q does not name the cluster", name, err)
		}
		if cl != nil {
			t.Errorf("Get(%q) = %v, want nil", name, cl)
		}
	}
}

func TestIndexField(t *testing.T) {
	if err := nop.New().IndexField(t.Context(), nil, "spec.field", func(client.Object) []string { return nil }); err != nil {
		t.Errorf("IndexField() error = %v", err)
	}
}

func TestClusterNames(t *testing.T) {
	if names := nop.New().ClusterNames(); len(names) != 0 {
		t.Errorf("ClusterNames() = %v, want none", names)
	}
}

func TestHostOnly(t *testing.T) {
	if !nop.New().HostOnly() {
		t.Error("HostOnly() = false")
	}
	if !multicluster.IsHostOnly(nop.New()) {
		t.Error("IsHostOnly(nop) = false")
	}
	if !multicluster.IsHostOnly(nil) {
		t.Error("IsHostOnly(nil) = false")
	}
	if multicluster.IsHostOnly(otherProvider{}) {
		t.Error("IsHostOnly(other provider) = true")
	}
}

// otherProvider is a provider that does not declare itself host-only.
type otherProvider struct{ multicluster.Provider }

// recordingAware reports every engagement on its channel.
type recordingAware struct{ engaged chan string }

func (a recordingAware) Engage(_ context.Context, name multicluster.ClusterName, _ cluster.Cluster) error {
	a.engaged <- name.String()
	return nil
}

func TestStartReturnsWhenContextEnds(t *testing.T) {
	aware := recordingAware{engaged: make(chan string, 1)}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- nop.New().Start(ctx, aware) }()

	select {
	case err := <-done:
		t.Fatalf("Start() returned %v before its context ended", err)
	default:
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Start() error = %v, want nil", err)
		}
	case <-time.After(wait.ForeverTestTimeout):
		t.Fatal("Start() did not return after its context ended")
	}
	select {
	case name := <-aware.engaged:
		t.Errorf("nop provider engaged cluster %q", name)
	default:
	}
}
