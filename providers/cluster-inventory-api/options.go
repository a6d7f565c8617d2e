// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package clusterinventoryapi

import (
	"cmp"
	"context"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	clusterinventoryv1alpha1 "sigs.k8s.io/cluster-inventory-api/apis/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	aboutv1alpha1 "sigs.k8s.io/multicluster-runtime/providers/cluster-inventory-api/apis/about/v1alpha1"
	"sigs.k8s.io/multicluster-runtime/providers/cluster-inventory-api/kubeconfigstrategy"
)

// DefaultControllerName is the default name of the provider's controller on the hub, also the reporting controller
// of its events.
const DefaultControllerName = "multicluster-clusterprofile-provider"

// DefaultProbeTimeout bounds the version request that checks a profile's rest.Config before it is engaged.
const DefaultProbeTimeout = 15 * time.Second

// Options are the options of a cluster-inventory-api provider.
type Options struct {
	// ClusterOptions are applied to every cluster.Cluster the provider builds, also when NewCluster is set.
	ClusterOptions []cluster.Option

	// KubeconfigStrategyOption selects how a profile's rest.Config is obtained. Required: set exactly one
	// strategy, normally AccessProvider (KEP-5339 access providers and credential plugins).
	KubeconfigStrategyOption kubeconfigstrategy.Option

	// NewCluster builds a profile's cluster.Cluster with opts: ClusterOptions followed by the provider's own
	// (informers that resume as soon as the cluster answers after an outage); pass them all on. Default:
	// cluster.New(cfg, opts...).
	NewCluster func(ctx context.Context, clp *clusterinventoryv1alpha1.ClusterProfile, cfg *rest.Config, opts ...cluster.Option) (cluster.Cluster, error)

	// IsReady decides whether a profile's cluster is engaged. Default: IsReady (ControlPlaneHealthy is True, as in
	// the reference implementation); IsReadyAndJoined also requires the condition Joined.
	IsReady func(ctx context.Context, clp *clusterinventoryv1alpha1.ClusterProfile) bool

	// ClusterName names a profile's cluster. Default: ProfileName ("<namespace>/<name>").
	ClusterName func(clp *clusterinventoryv1alpha1.ClusterProfile) multicluster.ClusterName

	// WaitCacheTimeout bounds how long a new cluster's cache may take to sync. Default:
	// clusters.DefaultWaitCacheTimeout.
	WaitCacheTimeout time.Duration

	// ProbeTimeout bounds the version request that checks a profile's rest.Config (credentials, plugin, endpoint)
	// before the cluster is engaged. Default: DefaultProbeTimeout.
	ProbeTimeout time.Duration

	// ControllerName names the provider's controller on the hub manager and is the reporting controller of the
	// events it records. Default: DefaultControllerName.
	ControllerName string
}

func (o Options) complete() Options {
	if o.NewCluster == nil {
		o.NewCluster = defaultNewCluster
	}
	o.ProbeTimeout = cmp.Or(max(o.ProbeTimeout, 0), DefaultProbeTimeout)
	if o.IsReady == nil {
		o.IsReady = IsReady
	}
	o.ControllerName = cmp.Or(o.ControllerName, DefaultControllerName)
	if o.ClusterName == nil {
		o.ClusterName = ProfileName
	}
	return o
}

// defaultNewCluster is the default of Options.NewCluster: cluster.New(cfg, opts...).
func defaultNewCluster(_ context.Context, _ *clusterinventoryv1alpha1.ClusterProfile, cfg *rest.Config, opts ...cluster.Option) (cluster.Cluster, error) {
	return cluster.New(cfg, opts...)
}

// ClusterConditionJoined is the condition type a cluster manager (Open Cluster Management, for one) sets on a
// profile when the cluster has joined the inventory; IsReadyAndJoined requires it. The published API names no such
// condition.
const ClusterConditionJoined = "Joined"

// IsReady reports whether a profile's cluster can be engaged: it is not being deleted and its condition
// ControlPlaneHealthy is True. It is the default of Options.IsReady, the reference implementation's readiness
// (which also keeps a profile being deleted engaged until it is gone).
func IsReady(_ context.Context, clp *clusterinventoryv1alpha1.ClusterProfile) bool {
	return clp.DeletionTimestamp.IsZero() &&
		meta.IsStatusConditionPresentAndEqual(clp.Status.Conditions, clusterinventoryv1alpha1.ClusterConditionControlPlaneHealthy, metav1.ConditionTrue)
}

// IsReadyAndJoined is IsReady and also requires the condition Joined (ClusterConditionJoined) to be True: the
// default of Options.IsReady before this provider followed the reference's.
func IsReadyAndJoined(ctx context.Context, clp *clusterinventoryv1alpha1.ClusterProfile) bool {
	return IsReady(ctx, clp) &&
		meta.IsStatusConditionPresentAndEqual(clp.Status.Conditions, ClusterConditionJoined, metav1.ConditionTrue)
}

// ProfileName names a profile's cluster "<namespace>/<name>" of the profile.
func ProfileName(clp *clusterinventoryv1alpha1.ClusterProfile) multicluster.ClusterName {
	return multicluster.ClusterName(clp.Namespace + "/" + clp.Name)
}

// ClusterIDName names a profile's cluster by its KEP-2149 cluster ID: the value of the property
// cluster.clusterset.k8s.io (or, from earlier drafts, id.k8s.io) in status.properties; without one it falls back to
// ProfileName.
func ClusterIDName(clp *clusterinventoryv1alpha1.ClusterProfile) multicluster.ClusterName {
	for _, name := range []string{aboutv1alpha1.ClusterIDPropertyName, aboutv1alpha1.LegacyClusterIDPropertyName} {
		for _, p := range clp.Status.Properties {
			if p.Name == name && p.Value != "" {
				return multicluster.ClusterName(p.Value)
			}
		}
	}
	return ProfileName(clp)
}
