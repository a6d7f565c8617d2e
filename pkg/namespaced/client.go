// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package namespaced

import (
	"context"
	"fmt"
	"reflect"
	"slices"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Client is the client of a virtual cluster: the shared cluster's client with every request scoped to the
// virtual cluster's namespace.
//
// For objects of namespaced kinds, the namespace "default" (or none, or the real namespace) in keys, objects and
// options means the virtual cluster's namespace; objects are rewritten to the real namespace for the request and
// come back presented with namespace "default", also when the request fails. A request that names any other
// namespace fails with an error naming the virtual cluster and that namespace, and reaches no API server. Objects
// of cluster-scoped kinds (as the shared cluster's REST mapper says) pass through unchanged to the shared cluster:
// a virtual cluster sees, and may write, the shared cluster's cluster-scoped objects.
//
// Only metadata.namespace is rewritten: references to namespaces inside an object's spec (for example the subjects
// of a RoleBinding) are passed as they are.
type Client struct {
	client.Client
	scope *scope
}

var _ client.Client = &Client{}

// Get reads the object with the key's name from the virtual cluster's namespace; see Client.
func (n *Client) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	return scopedGet(ctx, n.scope, n.Client, key, obj, opts...)
}

// List lists the objects of the virtual cluster's namespace, whatever namespace the options name ("default", none
// or the real one; others are an error). Every item comes back with namespace "default". Field selectors backed by
// an index registered with Host.IndexField work as on a real cluster.
func (n *Client) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	return scopedList(ctx, n.scope, n.Client, list, opts...)
}

// Create creates obj in the virtual cluster's namespace; see Client.
func (n *Client) Create(ctx context.Context, obj client.Object, opts ...client.CreateOption) error {
	return n.scope.scoped(obj, func() error { return n.Client.Create(ctx, obj, opts...) })
}

// Delete deletes obj from the virtual cluster's namespace; see Client.
func (n *Client) Delete(ctx context.Context, obj client.Object, opts ...client.DeleteOption) error {
	return n.scope.scoped(obj, func() error { return n.Client.Delete(ctx, obj, opts...) })
}

// Update updates obj in the virtual cluster's namespace; see Client.
func (n *Client) Update(ctx context.Context, obj client.Object, opts ...client.UpdateOption) error {
	return n.scope.scoped(obj, func() error { return n.Client.Update(ctx, obj, opts...) })
}

// Patch patches obj in the virtual cluster's namespace, with any patch type, server-side apply (client.Apply)
// included; see Client. The patch is computed from obj while it carries the real namespace, so a merge
// patch against an original read through the virtual cluster sets metadata.namespace to the value the object
// already has.
func (n *Client) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
	return n.scope.scoped(obj, func() error { return n.Client.Patch(ctx, obj, patch, opts...) })
}

// Apply applies an apply configuration (server-side apply) in the virtual cluster's namespace: the configuration's
// namespace ("default", none or the real one) is set to the real one for the request and to "default" afterwards.
// Typed apply configurations (k8s.io/client-go/applyconfigurations) and client.ApplyConfigurationFromUnstructured
// are supported; a configuration whose namespace cannot be set is refused rather than applied elsewhere.
func (n *Client) Apply(ctx context.Context, obj runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
	return n.scope.applyScoped(obj, func() error { return n.Client.Apply(ctx, obj, opts...) })
}

// DeleteAllOf deletes the objects of obj's kind matching the options in the virtual cluster's namespace only,
// whatever namespace the options name ("default", none or the real one; others are an error).
func (n *Client) DeleteAllOf(ctx context.Context, obj client.Object, opts ...client.DeleteAllOfOption) error {
	namespaced, err := n.scope.isNamespaced(obj)
	if err != nil {
		return err
	}
	if !namespaced {
		return n.Client.DeleteAllOf(ctx, obj, opts...)
	}
	deleteOpts := &client.DeleteAllOfOptions{}
	deleteOpts.ApplyOptions(opts)
	target, err := n.scope.toReal(deleteOpts.Namespace)
	if err != nil {
		return err
	}
	return n.Client.DeleteAllOf(ctx, obj, append(slices.Clip(opts), client.InNamespace(target))...)
}

// Status returns a client for the status sub-resource, scoped like the client itself.
func (n *Client) Status() client.SubResourceWriter {
	return SubResourceClient{
		reader: n.Client.SubResource("status"),
		writer: n.Client.Status(),
		scope:  n.scope,
	}
}

// SubResource returns a client for the named sub-resource (for example "status", "scale", "token" of a
// ServiceAccount, "eviction" of a Pod), scoped like the client itself.
func (n *Client) SubResource(subResource string) client.SubResourceClient {
	c := n.Client.SubResource(subResource)
	return SubResourceClient{reader: c, writer: c, scope: n.scope}
}

// SubResourceClient is a sub-resource client of a virtual cluster. The parent object is scoped like the
// objects of Client; a sub-resource object or body (client.WithSubResourceBody) that names a namespace
// must name the virtual cluster's ("default" or the real one) and is rewritten the same way. Objects come back
// presented with namespace "default".
type SubResourceClient struct {
	reader client.SubResourceReader
	writer client.SubResourceWriter
	scope  *scope
}

var _ client.SubResourceClient = SubResourceClient{}

// Get reads the sub-resource of obj into subResource.
func (s SubResourceClient) Get(ctx context.Context, obj client.Object, subResource client.Object, opts ...client.SubResourceGetOption) error {
	return s.scope.scopedWithBody(obj, subResource, func() error { return s.reader.Get(ctx, obj, subResource, opts...) })
}

// Create creates the sub-resource of obj (for example a TokenRequest for a ServiceAccount, or an Eviction for a Pod).
func (s SubResourceClient) Create(ctx context.Context, obj client.Object, subResource client.Object, opts ...client.SubResourceCreateOption) error {
	return s.scope.scopedWithBody(obj, subResource, func() error { return s.writer.Create(ctx, obj, subResource, opts...) })
}

// Update updates the sub-resource of obj.
func (s SubResourceClient) Update(ctx context.Context, obj client.Object, opts ...client.SubResourceUpdateOption) error {
	updateOpts := &client.SubResourceUpdateOptions{}
	updateOpts.ApplyOptions(opts)
	return s.scope.scopedWithBody(obj, updateOpts.SubResourceBody, func() error { return s.writer.Update(ctx, obj, opts...) })
}

// Patch patches the sub-resource of obj.
func (s SubResourceClient) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
	patchOpts := &client.SubResourcePatchOptions{}
	patchOpts.ApplyOptions(opts)
	return s.scope.scopedWithBody(obj, patchOpts.SubResourceBody, func() error { return s.writer.Patch(ctx, obj, patch, opts...) })
}

// Apply applies the apply configuration of obj's sub-resource (for example its status), scoped like the client's
// Apply: a namespaced object is applied in the virtual cluster's namespace and comes back presented with namespace
// "default".
func (s SubResourceClient) Apply(ctx context.Context, obj runtime.ApplyConfiguration, opts ...client.SubResourceApplyOption) error {
	return s.scope.applyScoped(obj, func() error { return s.writer.Apply(ctx, obj, opts...) })
}

// applyScoped runs apply with obj's namespace rewritten to the real namespace when obj is of a namespaced kind,
// and presents obj with namespace "default" afterwards, also when apply fails.
func (s *scope) applyScoped(obj runtime.ApplyConfiguration, apply func() error) error {
	ac, err := applyConfigurationAccessor(obj)
	if err != nil {
		return fmt.Errorf("virtual cluster %q: %w", s.namespace, err)
	}
	gvk, err := ac.groupVersionKind()
	if err != nil {
		return fmt.Errorf("virtual cluster %q: %w", s.namespace, err)
	}
	namespaced, err := s.isGVKNamespaced(gvk)
	if err != nil {
		return err
	}
	if !namespaced {
		return apply()
	}
	target, err := s.toReal(ac.namespace())
	if err != nil {
		return err
	}
	ac.setNamespace(target)
	defer ac.setNamespace(presentedNamespace)
	return apply()
}

// applyConfiguration reads and sets the namespace of an apply configuration.
type applyConfiguration interface {
	namespace() string
	setNamespace(string)
	groupVersionKind() (schema.GroupVersionKind, error)
}

// applyConfigurationAccessor returns the accessor for an apply configuration: an unstructured one (which has the
// object accessors of unstructured.Unstructured) or a typed one (with GetNamespace() *string and a WithNamespace
// builder method, as generated by applyconfiguration-gen).
func applyConfigurationAccessor(obj runtime.ApplyConfiguration) (applyConfiguration, error) {
	switch ac := obj.(type) {
	case unstructuredApplyConfiguration:
		return unstructuredAccessor{ac}, nil
	case typedApplyConfiguration:
		with := reflect.ValueOf(obj).MethodByName("WithNamespace")
		if !with.IsValid() || with.Type().NumIn() != 1 || with.Type().In(0).Kind() != reflect.String {
			return nil, fmt.Errorf("apply configuration %T has no WithNamespace(string) method to scope it with", obj)
		}
		return typedAccessor{ac: ac, with: with}, nil
	}
	return nil, fmt.Errorf("apply configuration %T has no namespace accessors to scope it with", obj)
}

type unstructuredApplyConfiguration interface {
	GetNamespace() string
	SetNamespace(string)
	GetObjectKind() schema.ObjectKind
}

type unstructuredAccessor struct {
	ac unstructuredApplyConfiguration
}

func (u unstructuredAccessor) namespace() string      { return u.ac.GetNamespace() }
func (u unstructuredAccessor) setNamespace(ns string) { u.ac.SetNamespace(ns) }
func (u unstructuredAccessor) groupVersionKind() (schema.GroupVersionKind, error) {
	return u.ac.GetObjectKind().GroupVersionKind(), nil
}

type typedApplyConfiguration interface {
	GetNamespace() *string
	GetKind() *string
	GetAPIVersion() *string
}

type typedAccessor struct {
	ac   typedApplyConfiguration
	with reflect.Value
}

func (t typedAccessor) namespace() string { return ptr.Deref(t.ac.GetNamespace(), "") }
func (t typedAccessor) setNamespace(ns string) {
	t.with.Call([]reflect.Value{reflect.ValueOf(ns).Convert(t.with.Type().In(0))})
}
func (t typedAccessor) groupVersionKind() (schema.GroupVersionKind, error) {
	gv, err := schema.ParseGroupVersion(ptr.Deref(t.ac.GetAPIVersion(), ""))
	if err != nil {
		return schema.GroupVersionKind{}, fmt.Errorf("apply configuration: %w", err)
	}
	return gv.WithKind(ptr.Deref(t.ac.GetKind(), "")), nil
}
