// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package rig

import (
	"context"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// ActualState reads the values of a member's objects from its API server, by kind and name.
func (r *Rig) ActualState(ctx context.Context, member string) (map[string]map[string]int64, error) {
	c, err := r.Client(member)
	if err != nil {
		return nil, err
	}
	ctx = Quiet(ctx)
	state := map[string]map[string]int64{KindConfigMap: {}, KindSecret: {}}
	var cms corev1.ConfigMapList
	if err := c.List(ctx, &cms, client.InNamespace(Namespace)); err != nil {
		return nil, fmt.Errorf("listing the ConfigMaps of %s: %w", member, err)
	}
	for _, cm := range cms.Items {
		if _, ok := cm.Data["v"]; ok {
			state[KindConfigMap][cm.Name] = parseValue(cm.Data["v"])
		}
	}
	var secrets corev1.SecretList
	if err := c.List(ctx, &secrets, client.InNamespace(Namespace)); err != nil {
		return nil, fmt.Errorf("listing the Secrets of %s: %w", member, err)
	}
	for _, s := range secrets.Items {
		if _, ok := s.Data["v"]; ok {
			state[KindSecret][s.Name] = parseValue(string(s.Data["v"]))
		}
	}
	return state, nil
}

// Mismatches compares what an observer last saw of a cluster's objects with actual (ActualState of the member the
// cluster reaches) and describes every difference: an object whose last value seen is not its value, an object
// never seen, and an object seen but gone whose deletion was not seen.
func Mismatches(obs *Observer, cluster multicluster.ClusterName, actual map[string]map[string]int64) []string {
	var out []string
	for _, kind := range Kinds {
		for name, v := range actual[kind] {
			seen, ok := obs.Last(ObjectKey{Cluster: cluster, Kind: kind, Name: name})
			switch {
			case !ok:
				out = append(out, fmt.Sprintf("%s %s/%s: value %d never seen", cluster, kind, name, v))
			case seen.Deleted:
				out = append(out, fmt.Sprintf("%s %s/%s: value %d, last seen deleted", cluster, kind, name, v))
			case seen.Value != v:
				out = append(out, fmt.Sprintf("%s %s/%s: value %d, last seen %d", cluster, kind, name, v, seen.Value))
			}
		}
	}
	for _, k := range obs.Keys(cluster) {
		if _, exists := actual[k.Kind][k.Name]; exists {
			continue
		}
		if seen, _ := obs.Last(k); !seen.Deleted {
			out = append(out, fmt.Sprintf("%s %s/%s: deleted, last seen %d", cluster, k.Kind, k.Name, seen.Value))
		}
	}
	slices.Sort(out)
	return out
}

// WaitConverged waits until, for every pair of a member and a manager, the manager's observer has seen the final
// state of the member's objects, or timeout passes; it returns the mismatches left (none when converged) and how
// long it waited. It reads the final state once, at the start: call it when nothing writes any more.
func (r *Rig) WaitConverged(ctx context.Context, timeout time.Duration, members []string, managers ...*Manager) ([]string, time.Duration, error) {
	actual := map[string]map[string]map[string]int64{}
	for _, m := range members {
		state, err := r.ActualState(ctx, m)
		if err != nil {
			return nil, 0, err
		}
		actual[m] = state
	}
	began := time.Now()
	var left []string
	err := wait.PollUntilContextTimeout(ctx, pollInterval, timeout, true, func(context.Context) (bool, error) {
		left = left[:0]
		for _, member := range members {
			for _, mgr := range managers {
				left = append(left, Mismatches(mgr.Observer, mgr.ClusterName(member), actual[member])...)
			}
		}
		return len(left) == 0, nil
	})
	if err != nil && len(left) == 0 {
		return nil, time.Since(began), err
	}
	return left, time.Since(began), nil
}
