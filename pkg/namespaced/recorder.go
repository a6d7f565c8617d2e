// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package namespaced

import (
	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/tools/reference"
	"sigs.k8s.io/controller-runtime/pkg/recorder"
)

// namespacedEventsRecorder records the events of a virtual cluster through the events.k8s.io/v1 API, with the
// shared cluster's recorder: both the regarding and the related object are referred to as the real objects, so an
// Event about an object presented with namespace "default" (or none, for a namespaced kind) is created in the real
// namespace. Events about cluster-scoped objects are recorded as on the shared cluster. An event about an object of
// another namespace (regarding or related) is dropped and logged.
type namespacedEventsRecorder struct {
	recorder recorder.EventRecorder
	refs     *namespacedRecorder
}

var _ recorder.EventRecorder = &namespacedEventsRecorder{}

func (r *namespacedEventsRecorder) Eventf(regarding, related runtime.Object, eventtype, reason, action, note string, args ...any) {
	regardingRef, relatedRef, ok := r.references(regarding, related)
	if ok {
		r.recorder.Eventf(regardingRef, relatedRef, eventtype, reason, action, note, args...)
	}
}

func (r *namespacedEventsRecorder) AnnotatedEventf(regarding, related runtime.Object, annotations map[string]string, eventtype, reason, action, note string, args ...any) {
	regardingRef, relatedRef, ok := r.references(regarding, related)
	if ok {
		r.recorder.AnnotatedEventf(regardingRef, relatedRef, annotations, eventtype, reason, action, note, args...)
	}
}

// references returns the real objects to record an event about; a nil related object stays nil.
func (r *namespacedEventsRecorder) references(regarding, related runtime.Object) (runtime.Object, runtime.Object, bool) {
	regardingRef, ok := r.refs.reference(regarding)
	if !ok {
		return nil, nil, false
	}
	if related == nil {
		return regardingRef, nil, true
	}
	relatedRef, ok := r.refs.reference(related)
	if !ok {
		return nil, nil, false
	}
	return regardingRef, relatedRef, true
}

// namespacedRecorder records the events of a virtual cluster with the shared cluster's recorder, about the real
// objects: an object presented with namespace "default" (or none, for a namespaced kind) is referred to in the real
// namespace, so the Event is created there. Events about cluster-scoped objects are recorded as on the shared
// cluster (in its namespace "default"). An event about an object of another namespace is dropped and logged.
type namespacedRecorder struct {
	recorder record.EventRecorder
	scope    *scope
	log      logr.Logger
}

var _ record.EventRecorder = &namespacedRecorder{}

func (r *namespacedRecorder) Event(object runtime.Object, eventtype, reason, message string) {
	if ref, ok := r.reference(object); ok {
		r.recorder.Event(ref, eventtype, reason, message)
	}
}

func (r *namespacedRecorder) Eventf(object runtime.Object, eventtype, reason, messageFmt string, args ...any) {
	if ref, ok := r.reference(object); ok {
		r.recorder.Eventf(ref, eventtype, reason, messageFmt, args...)
	}
}

func (r *namespacedRecorder) AnnotatedEventf(object runtime.Object, annotations map[string]string, eventtype, reason, messageFmt string, args ...any) {
	if ref, ok := r.reference(object); ok {
		r.recorder.AnnotatedEventf(ref, annotations, eventtype, reason, messageFmt, args...)
	}
}

// reference returns what to record the event about: a reference to the real object. The caller's object is never
// changed. If no reference can be made, the object is passed on, and the shared recorder reports the error as it
// would on a real cluster.
func (r *namespacedRecorder) reference(object runtime.Object) (runtime.Object, bool) {
	ref, err := reference.GetReference(r.scope.scheme, object)
	if err != nil {
		return object, true
	}
	ref = ref.DeepCopy()
	namespaced := ref.Namespace != ""
	if !namespaced {
		gvk := schema.FromAPIVersionAndKind(ref.APIVersion, ref.Kind)
		if namespaced, err = r.scope.isGVKNamespaced(gvk); err != nil {
			// Unknown kind without a namespace: record it as the shared cluster would.
			return ref, true
		}
	}
	if !namespaced {
		return ref, true
	}
	target, err := r.scope.toReal(ref.Namespace)
	if err != nil {
		r.log.Error(err, "Dropping an event about an object outside the virtual cluster",
			"cluster", r.scope.namespace, "kind", ref.Kind, "name", ref.Name)
		return nil, false
	}
	ref.Namespace = target
	return ref, true
}
