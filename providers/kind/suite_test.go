// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package kind_test

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// fleet is shared by the tests of this package: a host and three members, standing in for kind clusters. Tests
// never share a namespace.
var fleet *mcenvtest.Fleet

func TestMain(m *testing.M) {
	harness.RunWithFleet(m, &fleet, mcenvtest.Options{Members: 3})
}

// fakeLister is a kind.ClusterLister whose clusters are fleet members: each kind cluster name maps to the
// kubeconfig of a member (or to any text, for broken clusters).
type fakeLister struct {
	mu          sync.Mutex
	kubeconfigs map[string]string
	listErr     error
	lists       int
}

func newFakeLister() *fakeLister { return &fakeLister{kubeconfigs: map[string]string{}} }

func (l *fakeLister) List() ([]string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lists++
	if l.listErr != nil {
		return nil, l.listErr
	}
	names := make([]string, 0, len(l.kubeconfigs))
	for name := range l.kubeconfigs {
		names = append(names, name)
	}
	slices.Sort(names)
	return names, nil
}

func (l *fakeLister) KubeConfig(name string, internal bool) (string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if internal {
		return "", fmt.Errorf("internal kubeconfig of %q asked for: the provider runs on the host", name)
	}
	kc, ok := l.kubeconfigs[name]
	if !ok {
		return "", fmt.Errorf("no kind cluster %q", name)
	}
	return kc, nil
}

// set makes name a kind cluster reaching member (a fleet member's name) or, if member is not one, with member as
// its raw kubeconfig.
func (l *fakeLister) set(t testing.TB, name, member string) {
	t.Helper()
	kc := member
	if strings.HasPrefix(member, mcenvtest.DefaultMemberNamePrefix) {
		kc = string(harness.Kubeconfig(t, fleet, member))
	}
	l.with(func() { l.kubeconfigs[name] = kc })
}

// with runs f with the lister locked.
func (l *fakeLister) with(f func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	f()
}

func (l *fakeLister) remove(name string) { l.with(func() { delete(l.kubeconfigs, name) }) }

func (l *fakeLister) setListErr(err error) { l.with(func() { l.listErr = err }) }

func (l *fakeLister) listCount() (n int) {
	l.with(func() { n = l.lists })
	return n
}
