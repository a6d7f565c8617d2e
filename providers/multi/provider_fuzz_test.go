// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package multi_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	"sigs.k8s.io/multicluster-runtime/providers/multi"
)

// The fuzz target of the composed provider's parser of user input: cluster names split into a provider name
// prefix and an inner name, at the first separator. Its seed corpus is in testdata/fuzz; run it for longer with
//
//	go test -run '^$' -fuzz '^FuzzClusterName$' -fuzztime 5m .

// askedProvider answers every Get with a cluster and records the names it was asked for.
type askedProvider struct {
	asked []multicluster.ClusterName
}

func (p *askedProvider) Get(_ context.Context, name multicluster.ClusterName) (cluster.Cluster, error) {
	p.asked = append(p.asked, name)
	return &fakeCluster{name: name.String()}, nil
}

func (p *askedProvider) IndexField(context.Context, client.Object, string, client.IndexerFunc) error {
	return nil
}

// Whatever the separator, provider name and cluster name: AddProvider accepts exactly the non-empty names after
// which the separator's first occurrence is the appended one (no separator inside, none straddling the end); "<provider><separator><cluster>" reaches that provider with exactly <cluster>; and any other name
// is either routed by its first separator or not found, never a panic.
func FuzzClusterName(f *testing.F) {
	f.Fuzz(func(t *testing.T, separator, providerName, clusterName, other string) {
		p := multi.New(multi.Options{Separator: separator})
		if separator == "" {
			separator = multi.DefaultSeparator
		}
		inner := &askedProvider{}
		err := p.AddProvider(providerName, inner)
		valid := providerName != "" && strings.Index(providerName+separator, separator) == len(providerName)
		if (err == nil) != valid {
			t.Fatalf("AddProvider(%q) with separator %q returned %v", providerName, separator, err)
		}
		if !valid {
			return
		}

		name := multicluster.ClusterName(providerName + separator + clusterName)
		cl, err := p.Get(t.Context(), name)
		if err != nil || cl == nil {
			t.Fatalf("Get(%q) returned %v, %v", name, cl, err)
		}
		if len(inner.asked) != 1 || inner.asked[0] != multicluster.ClusterName(clusterName) {
			t.Fatalf("Get(%q) asked the inner provider for %q, want [%q]", name, inner.asked, clusterName)
		}

		inner.asked = nil
		_, err = p.Get(t.Context(), multicluster.ClusterName(other))
		prefix, rest, found := strings.Cut(other, separator)
		switch {
		case found && prefix == providerName:
			if err != nil || len(inner.asked) != 1 || inner.asked[0] != multicluster.ClusterName(rest) {
				t.Fatalf("Get(%q): %v, asked %q, want %q", other, err, inner.asked, rest)
			}
		default:
			if !errors.Is(err, multicluster.ErrClusterNotFound) || len(inner.asked) != 0 {
				t.Fatalf("Get(%q): %v, asked %q; want not found", other, err, inner.asked)
			}
			if !strings.Contains(err.Error(), strconv.Quote(other)) {
				t.Fatalf("Get(%q): the error %q does not name the cluster", other, err)
			}
		}
	})
}
