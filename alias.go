// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package multiclusterruntime

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client/config"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/manager/signals"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/scheme"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
)

// Builder builds a multi-cluster controller: its watches cover every cluster of the fleet (see
// sigs.k8s.io/multicluster-runtime/pkg/builder). Create one with NewControllerManagedBy.
type Builder = mcbuilder.Builder

// Request is the request of a multi-cluster reconciler: controller-runtime's reconcile.Request (namespace and
// name of the object) plus the name of the cluster the object lives in. The empty cluster name is the host
// cluster.
type Request = mcreconcile.Request

// Result is the result of a reconcile, as in controller-runtime.
type Result = reconcile.Result

// Manager is the multi-cluster manager: a controller-runtime manager of the host cluster that also knows the
// fleet handed to it by a provider. Create one with NewManager.
type Manager = mcmanager.Manager

// Options are the options of the host manager, as in controller-runtime.
type Options = mcmanager.Options

// SchemeBuilder builds a new Scheme for mapping Go types to Kubernetes GroupVersionKinds.
//
// Deprecated: as in controller-runtime, API packages should depend on k8s.io/apimachinery only; use
// runtime.NewSchemeBuilder there.
type SchemeBuilder = scheme.Builder //nolint:staticcheck // the alias of controller-runtime's deprecated alias

// GroupVersion contains the group and the version, which uniquely identify an API.
type GroupVersion = schema.GroupVersion

// GroupResource specifies a group and a resource, without a version.
type GroupResource = schema.GroupResource

// TypeMeta describes an individual object in an API response or request with strings representing the type of
// the object and its API schema version.
//
// +k8s:deepcopy-gen=false
type TypeMeta = metav1.TypeMeta

// ObjectMeta is the metadata all persisted resources must have.
type ObjectMeta = metav1.ObjectMeta

var (
	// RegisterFlags registers the --kubeconfig flag in the given FlagSet (the default command-line FlagSet if nil),
	// if it is not registered yet.
	RegisterFlags = config.RegisterFlags

	// GetConfigOrDie returns the rest.Config of the host cluster, found as GetConfig finds it, or logs the error and
	// exits the program.
	GetConfigOrDie = config.GetConfigOrDie

	// GetConfig returns the rest.Config of the host cluster, from (in order of precedence) the --kubeconfig flag,
	// the KUBECONFIG environment variable, the in-cluster configuration, or $HOME/.kube/config. Client-side rate
	// limiting is disabled (API priority and fairness applies); set QPS to re-enable it.
	GetConfig = config.GetConfig

	// NewControllerManagedBy returns a builder of a multi-cluster controller registered with the manager on Build or
	// Complete. Its For, Owns and Watches watch every cluster of the fleet by default.
	NewControllerManagedBy = mcbuilder.ControllerManagedBy

	// NewManager returns a multi-cluster manager of the host cluster at config, whose fleet comes from provider. A
	// nil provider means single-cluster mode: controllers then watch the host cluster only.
	NewManager = mcmanager.New

	// CreateOrPatch creates or patches obj in a cluster so that the mutate function's changes are applied, and
	// reports which it did. Use it with the client of the request's cluster.
	CreateOrPatch = controllerutil.CreateOrPatch

	// CreateOrUpdate creates or updates obj in a cluster so that the mutate function's changes are applied, and
	// reports which it did. Use it with the client of the request's cluster.
	CreateOrUpdate = controllerutil.CreateOrUpdate

	// SetControllerReference sets owner as the controller owner reference of owned. Owner references cannot cross
	// clusters: owner and owned must live in the same cluster.
	SetControllerReference = controllerutil.SetControllerReference

	// SetupSignalHandler returns a context that is cancelled on SIGTERM or SIGINT; a second signal exits the
	// program with code 1. It may be called once per program.
	SetupSignalHandler = signals.SetupSignalHandler

	// Log is the base logger of controller-runtime and multicluster-runtime. It delegates to the logger given to
	// SetLogger; nothing is logged until SetLogger is called.
	Log = log.Log

	// LoggerFrom returns the logger in ctx (Log if none). In a multi-cluster reconciler it carries the controller's
	// name, the object's namespace and name, and the cluster's name.
	LoggerFrom = log.FromContext

	// LoggerInto returns a copy of ctx that carries the logger.
	LoggerInto = log.IntoContext

	// SetLogger sets the logger every deferred logger (Log and those derived from it) delegates to.
	SetLogger = log.SetLogger
)

// NewWebhookManagedBy returns a builder of admission webhooks (and conversion, if T is convertible) for objects of
// obj's type. Webhooks are served by the host manager, which receives the admission requests of the host
// cluster's API server: pass mgr.GetLocalManager() of a multi-cluster manager.
func NewWebhookManagedBy[T runtime.Object](mgr manager.Manager, obj T) *mcbuilder.WebhookBuilder[T] {
	return mcbuilder.WebhookManagedBy(mgr, obj)
}
