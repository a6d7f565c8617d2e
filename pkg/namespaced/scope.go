// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package namespaced

import (
	"fmt"
	"maps"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
)

// presentedNamespace is the namespace a virtual cluster presents its own namespace as.
const presentedNamespace = metav1.NamespaceDefault

// scope translates between a virtual cluster's view (its namespace presented as "default") and the shared
// cluster's view (the real namespace). One scope is shared by the client, cache, API reader and event recorder of a
// virtual cluster.
type scope struct {
	// namespace is the real namespace, which is also the virtual cluster's name.
	namespace string
	scheme    *runtime.Scheme
	mapper    meta.RESTMapper
}

// toReal maps a namespace named inside the virtual cluster to the real one: the empty namespace, "default" and the
// real namespace itself all mean the virtual cluster's namespace; any other namespace is an error naming both the
// virtual cluster and the namespace.
func (s *scope) toReal(ns string) (string, error) {
	switch ns {
	case "", presentedNamespace, s.namespace:
		return s.namespace, nil
	}
	return "", s.outside(ns)
}

// outside is the error for a request that names a namespace other than the virtual cluster's.
func (s *scope) outside(ns string) error {
	return fmt.Errorf("virtual cluster %q: namespace %q is outside the virtual cluster, which only has namespace %q (namespace %q of the shared cluster)",
		s.namespace, ns, presentedNamespace, s.namespace)
}

// isNamespaced reports whether obj's kind is namespaced, according to the shared cluster's REST mapper.
func (s *scope) isNamespaced(obj runtime.Object) (bool, error) {
	namespaced, err := apiutil.IsObjectNamespaced(obj, s.scheme, s.mapper)
	if err != nil {
		return false, fmt.Errorf("virtual cluster %q: %w", s.namespace, err)
	}
	return namespaced, nil
}

// isGVKNamespaced reports whether gvk is namespaced, according to the shared cluster's REST mapper.
func (s *scope) isGVKNamespaced(gvk schema.GroupVersionKind) (bool, error) {
	namespaced, err := apiutil.IsGVKNamespaced(gvk, s.mapper)
	if err != nil {
		return false, fmt.Errorf("virtual cluster %q: %w", s.namespace, err)
	}
	return namespaced, nil
}

// isListNamespaced reports whether the items of list are of a namespaced kind.
func (s *scope) isListNamespaced(list client.ObjectList) (bool, error) {
	gvk, err := apiutil.GVKForObject(list, s.scheme)
	if err != nil {
		return false, fmt.Errorf("virtual cluster %q: %w", s.namespace, err)
	}
	gvk.Kind = strings.TrimSuffix(gvk.Kind, "List")
	return s.isGVKNamespaced(gvk)
}

// enter prepares obj for a write to the shared cluster: for a namespaced kind it checks obj's namespace and sets
// the real one. The returned function presents obj again (namespace "default"); call it when the write returns,
// whatever its outcome. Objects of cluster-scoped kinds are left as they are.
func (s *scope) enter(obj client.Object) (restore func(), err error) {
	namespaced, err := s.isNamespaced(obj)
	if err != nil || !namespaced {
		return func() {}, err
	}
	target, err := s.toReal(obj.GetNamespace())
	if err != nil {
		return func() {}, err
	}
	setNamespace(obj, target)
	return func() { setNamespace(obj, presentedNamespace) }, nil
}

// scoped runs request, a write of obj, with obj in the real namespace (see enter), and presents obj again when it
// returns, whatever its outcome.
func (s *scope) scoped(obj client.Object, request func() error) error {
	restore, err := s.enter(obj)
	if err != nil {
		return err
	}
	defer restore()
	return request()
}

// scopedWithBody runs request, a sub-resource request of obj with body, like scoped, with body in the real
// namespace too (see enterBody).
func (s *scope) scopedWithBody(obj, body client.Object, request func() error) error {
	return s.scoped(obj, func() error {
		restoreBody, err := s.enterBody(body)
		if err != nil {
			return err
		}
		defer restoreBody()
		return request()
	})
}

// enterBody prepares the body of a sub-resource request (a TokenRequest, an Eviction, a Scale, ...), whose kind
// may have no REST mapping of its own: a namespace it names is checked and replaced by the real one; an empty one
// is left for the client to fill in. The returned function presents the body again.
func (s *scope) enterBody(body client.Object) (restore func(), err error) {
	if body == nil || body.GetNamespace() == "" {
		return func() { s.present(body) }, nil
	}
	target, err := s.toReal(body.GetNamespace())
	if err != nil {
		return func() {}, err
	}
	setNamespace(body, target)
	return func() { s.present(body) }, nil
}

// present rewrites an object read from the shared cluster to the virtual cluster's view: the real namespace
// becomes "default". Other namespaces (and the empty one of cluster-scoped objects) are left as they are.
func (s *scope) present(obj client.Object) {
	if obj != nil && obj.GetNamespace() == s.namespace {
		setNamespace(obj, presentedNamespace)
	}
}

// presentList presents every item of list.
func (s *scope) presentList(list client.ObjectList) {
	_ = meta.EachListItem(list, func(item runtime.Object) error {
		if o, ok := item.(client.Object); ok {
			s.present(o)
		}
		return nil
	})
}

// setNamespace sets obj's namespace. An unstructured object gets fresh top-level and metadata maps first, so that
// an object sharing its maps with a cache (a cache with UnsafeDisableDeepCopy) is never changed in that cache.
func setNamespace(obj client.Object, ns string) {
	if u, ok := obj.(*unstructured.Unstructured); ok && u.Object != nil {
		u.Object = maps.Clone(u.Object)
		if md, ok := u.Object["metadata"].(map[string]any); ok {
			u.Object["metadata"] = maps.Clone(md)
		}
	}
	obj.SetNamespace(ns)
}
