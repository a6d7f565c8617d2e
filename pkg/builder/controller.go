// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package builder

import (
	"errors"
	"fmt"
	"strings"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	mccontroller "sigs.k8s.io/multicluster-runtime/pkg/controller"
	mchandler "sigs.k8s.io/multicluster-runtime/pkg/handler"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	mcsource "sigs.k8s.io/multicluster-runtime/pkg/source"
)

// Builder builds multi-cluster controllers of multi-cluster requests.
type Builder = TypedBuilder[mcreconcile.Request]

// TypedBuilder builds a multi-cluster controller. Its methods return the builder and collect errors until Build or
// Complete reports them.
type TypedBuilder[request mcreconcile.ClusterAware[request]] struct {
	forInput               ForInput
	ownsInput              []OwnsInput
	watchesInput           []WatchesInput[request]
	rawSources             []source.TypedSource[request]
	mgr                    mcmanager.Manager
	globalPredicates       []predicate.Predicate
	ctrlOptions            controller.TypedOptions[request]
	name                   string
	logConstructor         func(*request) logr.Logger
	clusterNotFoundWrapper bool
}

// ControllerManagedBy returns a builder of a multi-cluster controller that the manager starts.
func ControllerManagedBy(m mcmanager.Manager) *Builder {
	return TypedControllerManagedBy[mcreconcile.Request](m)
}

// TypedControllerManagedBy returns a builder of a multi-cluster controller with a custom request type that the
// manager starts. For and Owns need mcreconcile.Request; with other request types use Watches.
func TypedControllerManagedBy[request mcreconcile.ClusterAware[request]](m mcmanager.Manager) *TypedBuilder[request] {
	return &TypedBuilder[request]{mgr: m, clusterNotFoundWrapper: true}
}

// For watches the object the controller reconciles, in every cluster the engage options cover, and enqueues a
// request for each changed object in its cluster. It may be called once, and needs mcreconcile.Request.
func (blder *TypedBuilder[request]) For(object client.Object, opts ...ForOption) *TypedBuilder[request] {
	if blder.forInput.object != nil {
		blder.forInput.err = errors.New("For(...) should only be called once, could not assign multiple objects for reconciliation")
		return blder
	}
	input := ForInput{object: object}
	for _, opt := range opts {
		opt.ApplyToFor(&input)
	}
	blder.forInput = input
	return blder
}

// Owns watches objects owned by the For object, in every cluster the engage options cover, and enqueues a request
// for the controlling owner (or every owner of the For type, with MatchEveryOwner) in the same cluster.
func (blder *TypedBuilder[request]) Owns(object client.Object, opts ...OwnsOption) *TypedBuilder[request] {
	input := OwnsInput{object: object}
	for _, opt := range opts {
		opt.ApplyToOwns(&input)
	}
	blder.ownsInput = append(blder.ownsInput, input)
	return blder
}

// Watches watches object in every cluster the engage options cover and hands its events to the handler built for
// each cluster.
func (blder *TypedBuilder[request]) Watches(
	object client.Object,
	eventHandler mchandler.TypedEventHandlerFunc[client.Object, request],
	opts ...WatchesOption,
) *TypedBuilder[request] {
	input := WatchesInput[request]{object: object, handler: eventHandler}
	for _, opt := range opts {
		opt.ApplyToWatches(&input)
	}
	blder.watchesInput = append(blder.watchesInput, input)
	return blder
}

// WatchesMetadata is Watches with the OnlyMetadata option: the caches hold only the objects' metadata.
func (blder *TypedBuilder[request]) WatchesMetadata(
	object client.Object,
	eventHandler mchandler.TypedEventHandlerFunc[client.Object, request],
	opts ...WatchesOption,
) *TypedBuilder[request] {
	return blder.Watches(object, eventHandler, append(opts, OnlyMetadata)...)
}

// WatchesRawSource adds a controller-runtime source of the host cluster as it is; predicates set with
// WithEventFilter do not apply to it.
func (blder *TypedBuilder[request]) WatchesRawSource(src source.TypedSource[request]) *TypedBuilder[request] {
	blder.rawSources = append(blder.rawSources, src)
	return blder
}

// WithEventFilter filters the events of every For, Owns and Watches watch with p.
func (blder *TypedBuilder[request]) WithEventFilter(p predicate.Predicate) *TypedBuilder[request] {
	blder.globalPredicates = append(blder.globalPredicates, p)
	return blder
}

// WithOptions sets the controller's options; unset fields default from the manager's controller options, as in
// controller-runtime's builder: MaxConcurrentReconciles from the manager's GroupKindConcurrency for the group and
// kind of the For object (for example "ConfigMap" or "ReplicaSet.apps"), else from its MaxConcurrentReconciles.
func (blder *TypedBuilder[request]) WithOptions(options controller.TypedOptions[request]) *TypedBuilder[request] {
	blder.ctrlOptions = options
	return blder
}

// WithLogConstructor sets how the controller builds the logger of each reconcile.
func (blder *TypedBuilder[request]) WithLogConstructor(logConstructor func(*request) logr.Logger) *TypedBuilder[request] {
	blder.logConstructor = logConstructor
	return blder
}

// WithClusterNotFoundWrapper sets whether the reconciler is wrapped with mcreconcile.NewClusterNotFoundWrapper
// (default true).
func (blder *TypedBuilder[request]) WithClusterNotFoundWrapper(enabled bool) *TypedBuilder[request] {
	blder.clusterNotFoundWrapper = enabled
	return blder
}

// Named sets the controller's name, used in logs and metrics; it must be unique among the manager's controllers
// unless the SkipNameValidation option is set. By default it is the lowercased kind of the For object.
func (blder *TypedBuilder[request]) Named(name string) *TypedBuilder[request] {
	blder.name = name
	return blder
}

// Complete builds the controller and registers it with the manager. Like controller-runtime's builder, it fails
// when no watch is set up (with For, Owns, Watches or WatchesRawSource), since nothing could trigger the
// controller. It checks this before it makes the controller, so such a failure registers nothing.
func (blder *TypedBuilder[request]) Complete(r reconcile.TypedReconciler[request]) error {
	_, err := blder.Build(r)
	return err
}

// Build builds the controller, registers it with the manager and returns it. It fails as Complete does.
func (blder *TypedBuilder[request]) Build(r reconcile.TypedReconciler[request]) (mccontroller.TypedController[request], error) {
	if r == nil {
		return nil, errors.New("must provide a non-nil Reconciler")
	}
	if blder.mgr == nil {
		return nil, errors.New("must provide a non-nil Manager")
	}
	if blder.forInput.err != nil {
		return nil, blder.forInput.err
	}
	ctrl, err := blder.doController(r)
	if err != nil {
		return nil, err
	}
	if err := blder.doWatch(ctrl); err != nil {
		return nil, err
	}
	return ctrl, nil
}

func (blder *TypedBuilder[request]) doController(r reconcile.TypedReconciler[request]) (mccontroller.TypedController[request], error) {
	var (
		gvk    schema.GroupVersionKind
		hasGVK bool
	)
	if blder.forInput.object != nil {
		var err error
		gvk, err = apiutil.GVKForObject(blder.forInput.object, blder.mgr.GetLocalManager().GetScheme())
		if err != nil {
			return nil, err
		}
		hasGVK = true
	}

	name := blder.name
	if name == "" {
		if !hasGVK {
			return nil, errors.New("one of For() or Named() must be called")
		}
		name = strings.ToLower(gvk.Kind)
	}

	if err := blder.checkWatches(); err != nil {
		return nil, err
	}

	options := blder.ctrlOptions
	if options.Reconciler != nil {
		return nil, errors.New("reconciler was set via WithOptions() and via Build() or Complete()")
	}
	// As in controller-runtime's builder, the manager's concurrency for the For object's group and kind comes
	// before its MaxConcurrentReconciles, and options set with WithOptions before both.
	if options.MaxConcurrentReconciles == 0 && hasGVK {
		if n := blder.mgr.GetControllerOptions().GroupKindConcurrency[gvk.GroupKind().String()]; n > 0 {
			options.MaxConcurrentReconciles = n
		}
	}
	if blder.clusterNotFoundWrapper {
		r = mcreconcile.NewClusterNotFoundWrapper(r)
	}
	options.Reconciler = r

	if blder.logConstructor != nil {
		options.LogConstructor = blder.logConstructor
	} else if hasGVK && options.LogConstructor == nil {
		options.LogConstructor = kindLogConstructor[request](blder.logger(options), name, gvk)
	}
	return mccontroller.NewTyped(name, blder.mgr, options)
}

// logger is the base logger of the controller: the options' logger, or the manager's.
func (blder *TypedBuilder[request]) logger(options controller.TypedOptions[request]) logr.Logger {
	if options.Logger.GetSink() != nil {
		return options.Logger
	}
	return blder.mgr.GetLogger()
}

// kindLogConstructor logs like controller-runtime's builder does, plus the request's cluster.
func kindLogConstructor[request mcreconcile.ClusterAware[request]](base logr.Logger, name string, gvk schema.GroupVersionKind) func(*request) logr.Logger {
	log := base.WithValues("controller", name, "controllerGroup", gvk.Group, "controllerKind", gvk.Kind)
	lowerKind := strings.ToLower(gvk.Kind)
	return func(req *request) logr.Logger {
		if req == nil {
			return log
		}
		// One WithValues per request: each call copies the logger's values.
		if r, ok := any(*req).(mcreconcile.Request); ok {
			return log.WithValues("cluster", r.ClusterName, lowerKind, klog.KRef(r.Namespace, r.Name), "namespace", r.Namespace, "name", r.Name)
		}
		return log.WithValues("cluster", (*req).Cluster(), "request", (*req).String())
	}
}

// checkWatches fails for watches that can never trigger the controller, with controller-runtime's errors. Unlike
// controller-runtime's builder, it runs before the controller is made, so a failed Build leaves nothing registered
// with the manager.
func (blder *TypedBuilder[request]) checkWatches() error {
	if len(blder.ownsInput) > 0 && blder.forInput.object == nil {
		return errors.New("Owns() can only be used together with For()")
	}
	if blder.forInput.object == nil && len(blder.watchesInput) == 0 && len(blder.rawSources) == 0 {
		return errors.New("there are no watches configured, controller will never get triggered. " +
			"Use For(), Owns(), Watches() or WatchesRawSource() to set them up")
	}
	return nil
}

func (blder *TypedBuilder[request]) doWatch(ctrl mccontroller.TypedController[request]) error {
	if blder.forInput.object != nil {
		handlerFunc, err := plainRequestHandler[request]("For()", mchandler.TypedEnqueueRequestForObject[client.Object]())
		if err != nil {
			return err
		}
		preds := append(append([]predicate.Predicate(nil), blder.globalPredicates...), blder.forInput.predicates...)
		if err := blder.watch(ctrl, blder.forInput.object, blder.forInput.objectProjection, handlerFunc, preds, blder.forInput.EngageOptions); err != nil {
			return err
		}
	}

	for _, own := range blder.ownsInput {
		var opts []handler.OwnerOption
		if !own.matchEveryOwner {
			opts = append(opts, handler.OnlyControllerOwner())
		}
		handlerFunc, err := plainRequestHandler[request]("Owns()", mchandler.TypedEnqueueRequestForOwner[client.Object](blder.forInput.object, opts...))
		if err != nil {
			return err
		}
		preds := append(append([]predicate.Predicate(nil), blder.globalPredicates...), own.predicates...)
		if err := blder.watch(ctrl, own.object, own.objectProjection, handlerFunc, preds, own.EngageOptions); err != nil {
			return err
		}
	}

	for _, w := range blder.watchesInput {
		if w.handler == nil {
			return fmt.Errorf("Watches() of %T needs a non-nil event handler", w.object)
		}
		preds := append(append([]predicate.Predicate(nil), blder.globalPredicates...), w.predicates...)
		if err := blder.watch(ctrl, w.object, w.objectProjection, w.handler, preds, w.EngageOptions); err != nil {
			return err
		}
	}

	for _, src := range blder.rawSources {
		if err := ctrl.Watch(src); err != nil {
			return err
		}
	}
	return nil
}

// plainRequestHandler turns a handler of mcreconcile.Request into one of the builder's request type, which For and
// Owns require to be mcreconcile.Request.
func plainRequestHandler[request mcreconcile.ClusterAware[request]](what string, h mchandler.TypedEventHandlerFunc[client.Object, mcreconcile.Request]) (mchandler.TypedEventHandlerFunc[client.Object, request], error) {
	typed, ok := any(h).(mchandler.TypedEventHandlerFunc[client.Object, request])
	if !ok {
		var want request
		return nil, fmt.Errorf("%s can only be used with mcreconcile.Request, got %T", what, want)
	}
	return typed, nil
}

// watch registers a watch of object with the controller: a source of the host cluster if the engage options cover
// it, and a multi-cluster source for the fleet, restricted by the options' cluster filter. As in the reference
// implementation, the filter is not asked about the host: WithEngageWithLocalCluster alone decides that.
func (blder *TypedBuilder[request]) watch(
	ctrl mccontroller.TypedController[request],
	object client.Object,
	projection objectProjection,
	handlerFunc mchandler.TypedEventHandlerFunc[client.Object, request],
	preds []predicate.Predicate,
	engage EngageOptions,
) error {
	if object == nil {
		return errors.New("cannot watch a nil object")
	}
	src := mcsource.TypedKind[client.Object, request](object, handlerFunc, preds...)
	if projection == projectAsMetadata {
		src.WithProjection(asMetadata)
	}

	// The host's source is built before the fleet's filter is set: the filter applies to the fleet only.
	if deref(engage.engageWithLocalCluster, multicluster.IsHostOnly(blder.mgr.GetProvider())) {
		local, _, err := src.ForCluster(mcmanager.LocalCluster, blder.mgr.GetLocalManager())
		if err != nil {
			return fmt.Errorf("watching %T on the host cluster: %w", object, err)
		}
		if err := ctrl.Watch(local); err != nil {
			return err
		}
	}
	if deref(engage.engageWithProviderClusters, true) {
		src.WithClusterFilter(func(name multicluster.ClusterName, cl cluster.Cluster) bool {
			return name != mcmanager.LocalCluster && engage.accepts(name, cl)
		})
		return ctrl.MultiClusterWatch(src)
	}
	return nil
}

// asMetadata projects an object to its metadata-only form, with the kind the cluster's scheme gives it.
func asMetadata(cl cluster.Cluster, obj client.Object) (client.Object, error) {
	if _, isMeta := obj.(*metav1.PartialObjectMetadata); isMeta {
		return obj, nil
	}
	gvk, err := apiutil.GVKForObject(obj, cl.GetScheme())
	if err != nil {
		return nil, err
	}
	metaObj := &metav1.PartialObjectMetadata{}
	metaObj.SetGroupVersionKind(gvk)
	return metaObj, nil
}

func deref(b *bool, def bool) bool {
	if b == nil {
		return def
	}
	return *b
}
