// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package capi

import (
	"cmp"
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
)

const (
	// ControllerName is the default name of the controller SetupWithManager registers on the host manager, and
	// the reporting controller of the Events the provider records.
	ControllerName = "multicluster-capi-provider"

	// KubeconfigSecretSuffix is appended to a watched object's name to name the Secret holding its kubeconfig, as
	// Cluster API names it.
	KubeconfigSecretSuffix = "-kubeconfig"
	// KubeconfigSecretKey is the key of the kubeconfig in the kubeconfig Secret's data, as Cluster API writes it.
	KubeconfigSecretKey = "value"

	// DefaultWaitCacheTimeout is how long a new cluster's cache may take to sync when Options.WaitCacheTimeout is
	// unset; the cluster is retried with backoff after that.
	DefaultWaitCacheTimeout = clusters.DefaultWaitCacheTimeout
)

// Options are the options of a Cluster API provider. The zero value is valid: every field has a default, applied
// by New and listed on the field; the defaults are also exported as DefaultGetSecret, DefaultNewCluster and
// DefaultIsReady, for overrides that build on them.
type Options struct {
	// ClusterOptions are applied to every cluster.Cluster the provider builds (scheme, cache and client options),
	// also when NewCluster is set: they are passed to it. Default: none.
	ClusterOptions []cluster.Option

	// ObjectToWatch is the kind of object in the host cluster that stands for a workload cluster: one object, one
	// cluster named "<namespace>/<name>" of the object. The provider watches objects of its kind in every
	// namespace; only its type (or, for an *unstructured.Unstructured, its GroupVersionKind) matters. A kind other
	// than the default must be registered in the host manager's scheme (unstructured objects need not be).
	// Default: the Cluster API Cluster of API version cluster.x-k8s.io/v1beta2 (&clusterv1.Cluster{}), whose
	// types SetupWithManager adds to the host manager's scheme.
	ObjectToWatch client.Object

	// GetSecret returns the kubeconfig of a watched object's cluster. c is a client of the host cluster that reads
	// from its API server directly (Secrets are not cached by the provider, whatever GetSecret reads). The returned
	// bytes are parsed as a kubeconfig and its current context is used; they are never logged. Default:
	// DefaultGetSecret, which reads the Secret Cluster API writes.
	GetSecret func(ctx context.Context, c client.Client, obj client.Object) ([]byte, error)

	// NewCluster builds the cluster.Cluster of a watched object from the rest.Config of its kubeconfig, with
	// ClusterOptions followed by the library's defaults (clusters.DefaultClusterOptions: synchronous informers,
	// outage recovery, shared discovery) as opts; pass them all on. The provider starts the cluster; NewCluster must
	// not. Default: DefaultNewCluster.
	NewCluster func(ctx context.Context, obj client.Object, cfg *rest.Config, opts ...cluster.Option) (cluster.Cluster, error)

	// IsReady decides whether a watched object's cluster is ready to be engaged; a cluster engaged before is
	// disengaged once it returns false. An object being deleted is never engaged, whatever IsReady says. Default:
	// DefaultIsReady, which reads Cluster API's status.
	IsReady func(ctx context.Context, obj client.Object) bool

	// Predicates select the watched objects the provider acts on. They filter the events of watched objects before
	// they reach the provider's controller, as builder.WithPredicates does for For, and each time the provider
	// looks at an object (also when its kubeconfig Secret changes, or to retry) it asks every predicate's Generic
	// func about it: an object one of them rejects is not engaged, and disengaged if it was. As with any
	// predicate, a change that is itself filtered out (such as removing the label a label predicate selects on)
	// is noticed only with the next event that passes. Default: none.
	Predicates []predicate.Predicate

	// WaitCacheTimeout bounds how long a new cluster's cache may take to sync before the engagement fails and is
	// retried on the backoff policy of clusters.Engager. Default: DefaultWaitCacheTimeout.
	WaitCacheTimeout time.Duration

	// ControllerName names the provider's controller on the host manager and is the reporting controller of its
	// Events. Set it to run two providers on one manager. Default: ControllerName.
	ControllerName string

	// KubeconfigPolicy says what the kubeconfigs GetSecret returns may make the controller do. The zero value, the
	// default, refuses exec credential plugins, auth-providers, files of the controller's filesystem (tokenFile,
	// client-certificate, client-key, certificate-authority) and insecure TLS: whoever can write a
	// "<name>-kubeconfig" Secret could otherwise run programs in the controller's container or send its files to
	// a server of their choosing. A refused kubeconfig is reported like a malformed one (a Warning Event on the
	// watched object and an error naming the cluster, the field and the option that would allow it). The
	// kubeconfigs Cluster API writes need no option. See clusters.KubeconfigPolicy and docs/security.md.
	KubeconfigPolicy clusters.KubeconfigPolicy
}

// complete returns the options with every default applied.
func (o Options) complete() Options {
	if o.ObjectToWatch == nil {
		o.ObjectToWatch = &clusterv1.Cluster{}
	} else {
		o.ObjectToWatch = o.ObjectToWatch.DeepCopyObject().(client.Object)
	}
	if o.GetSecret == nil {
		o.GetSecret = DefaultGetSecret
	}
	if o.NewCluster == nil {
		o.NewCluster = DefaultNewCluster
	}
	if o.IsReady == nil {
		o.IsReady = DefaultIsReady
	}
	o.WaitCacheTimeout = cmp.Or(max(o.WaitCacheTimeout, 0), DefaultWaitCacheTimeout)
	o.ControllerName = cmp.Or(o.ControllerName, ControllerName)
	o.ClusterOptions = append([]cluster.Option(nil), o.ClusterOptions...)
	o.Predicates = append([]predicate.Predicate(nil), o.Predicates...)
	return o
}

// DefaultGetSecret is the default Options.GetSecret: it reads the Secret "<name>-kubeconfig" in obj's namespace
// with c and returns its data under the key "value", the Secret Cluster API writes for every Cluster once its
// control plane is initialized. Errors name the Secret, never its content.
func DefaultGetSecret(ctx context.Context, c client.Client, obj client.Object) ([]byte, error) {
	key := client.ObjectKey{Namespace: obj.GetNamespace(), Name: obj.GetName() + KubeconfigSecretSuffix}
	secret := &corev1.Secret{}
	if err := c.Get(ctx, key, secret); err != nil {
		return nil, fmt.Errorf("reading kubeconfig Secret %s: %w", key, err)
	}
	data := secret.Data[KubeconfigSecretKey]
	if len(data) == 0 {
		return nil, fmt.Errorf("kubeconfig Secret %s has no key %q", key, KubeconfigSecretKey)
	}
	return data, nil
}

// DefaultNewCluster is the default Options.NewCluster: cluster.New(cfg, opts...).
func DefaultNewCluster(_ context.Context, _ client.Object, cfg *rest.Config, opts ...cluster.Option) (cluster.Cluster, error) {
	return cluster.New(cfg, opts...)
}

// DefaultIsReady is the default Options.IsReady. It reports whether the control plane of the object's cluster is
// up, which is when Cluster API has written the kubeconfig Secret, by the status Cluster API's Cluster has in API
// version v1beta2: status.initialization.controlPlaneInitialized is true, or the condition ControlPlaneAvailable is
// True, or status.phase is Provisioned. For objects of other types it reads the same fields from the object's
// unstructured form (and, for Clusters of API version v1beta1, status.controlPlaneReady); an object without any of
// them is never ready, so a kind of another shape needs its own IsReady.
func DefaultIsReady(_ context.Context, obj client.Object) bool {
	if ccl, ok := obj.(*clusterv1.Cluster); ok {
		if init := ccl.Status.Initialization.ControlPlaneInitialized; init != nil && *init {
			return true
		}
		return meta.IsStatusConditionTrue(ccl.Status.Conditions, clusterv1.ClusterControlPlaneAvailableCondition) ||
			clusterv1.ClusterPhase(ccl.Status.Phase) == clusterv1.ClusterPhaseProvisioned
	}

	var content map[string]any
	if u, ok := obj.(*unstructured.Unstructured); ok {
		content = u.Object
	} else {
		var err error
		if content, err = runtime.DefaultUnstructuredConverter.ToUnstructured(obj); err != nil {
			return false
		}
	}
	for _, path := range [][]string{
		{"status", "initialization", "controlPlaneInitialized"},
		{"status", "controlPlaneReady"}, // v1beta1
	} {
		if ready, found, _ := unstructured.NestedBool(content, path...); found && ready {
			return true
		}
	}
	if phase, _, _ := unstructured.NestedString(content, "status", "phase"); phase == string(clusterv1.ClusterPhaseProvisioned) {
		return true
	}
	conditions, _, _ := unstructured.NestedSlice(content, "status", "conditions")
	for _, c := range conditions {
		cond, ok := c.(map[string]any)
		if ok && cond["type"] == clusterv1.ClusterControlPlaneAvailableCondition && cond["status"] == string(metav1.ConditionTrue) {
			return true
		}
	}
	return false
}
