// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package namespaced

import (
	"context"
	"slices"

	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The read path is shared by Client, Cache and the API reader of a virtual cluster.

// scopedGet reads one object through r: for a namespaced kind the key's namespace ("", "default" or the real one)
// becomes the real namespace, and the object comes back presented with namespace "default".
func scopedGet(ctx context.Context, s *scope, r client.Reader, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	namespaced, err := s.isNamespaced(obj)
	if err != nil {
		return err
	}
	if !namespaced {
		return r.Get(ctx, key, obj, opts...)
	}
	if key.Namespace, err = s.toReal(key.Namespace); err != nil {
		return err
	}
	err = r.Get(ctx, key, obj, opts...)
	s.present(obj)
	return err
}

// scopedList lists through r: for a namespaced kind the list is restricted to the real namespace (no namespace,
// "default" or the real one may be asked for; other namespaces are an error) and every item comes back presented
// with namespace "default". Field selectors served by an index work: the cache's index keys include the namespace.
func scopedList(ctx context.Context, s *scope, r client.Reader, list client.ObjectList, opts ...client.ListOption) error {
	namespaced, err := s.isListNamespaced(list)
	if err != nil {
		return err
	}
	if !namespaced {
		return r.List(ctx, list, opts...)
	}
	listOpts := &client.ListOptions{}
	listOpts.ApplyOptions(opts)
	target, err := s.toReal(listOpts.Namespace)
	if err != nil {
		return err
	}
	// Later options win: the real namespace is applied last.
	err = r.List(ctx, list, append(slices.Clip(opts), client.InNamespace(target))...)
	s.presentList(list)
	return err
}

// namespacedReader is a client.Reader scoped to a virtual cluster; it is the virtual cluster's API reader.
type namespacedReader struct {
	reader client.Reader
	scope  *scope
}

var _ client.Reader = &namespacedReader{}

// List lists the objects of the virtual cluster's namespace; see Client.List.
func (r *namespacedReader) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	return scopedList(ctx, r.scope, r.reader, list, opts...)
}

// Get reads the object from the virtual cluster's namespace; see Client.Get.
func (r *namespacedReader) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	return scopedGet(ctx, r.scope, r.reader, key, obj, opts...)
}
