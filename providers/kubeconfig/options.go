// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package kubeconfig

import (
	"os"
	"strings"
	"time"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
)

// DefaultKubeconfigSecretLabel is the default of Options.KubeconfigSecretLabel: the label that marks a Secret as
// holding the kubeconfig of a member cluster. Its value is free ("true" by convention).
const DefaultKubeconfigSecretLabel = "sigs.k8s.io/multicluster-runtime-kubeconfig"

// DefaultKubeconfigSecretKey is the default of Options.KubeconfigSecretKey: the key of a Secret's data that holds
// the kubeconfig.
const DefaultKubeconfigSecretKey = "kubeconfig"

// DefaultNamespace is the namespace watched when Options.Namespace is empty and the namespace the program runs in
// cannot be found out (see Options.Namespace).
const DefaultNamespace = "default"

// PodNamespaceEnv is the environment variable that, when Options.Namespace is empty, names the namespace to watch.
// Set it from the downward API (fieldRef: metadata.namespace) in the controller's Pod spec.
const PodNamespaceEnv = "POD_NAMESPACE"

// ServiceAccountNamespaceFile is the file that, when Options.Namespace is empty and PodNamespaceEnv is unset, names
// the namespace to watch: Kubernetes mounts it into every Pod that runs with a service account token.
const ServiceAccountNamespaceFile = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"

// Options configures a kubeconfig provider. The zero value is valid; New applies the defaults documented on each
// field.
type Options struct {
	// Namespace is the namespace of the host cluster whose Secrets are watched. When empty, it is the namespace the
	// controller runs in: the PodNamespaceEnv environment variable if set, else the content of
	// ServiceAccountNamespaceFile if present (in a Pod), else DefaultNamespace ("default"). An empty Namespace never
	// means "no namespace" nor "all namespaces".
	Namespace string

	// KubeconfigSecretLabel is the label a Secret carries to be watched; its value does not matter. A Secret that
	// loses the label is treated as deleted: its cluster is disengaged. Defaults to DefaultKubeconfigSecretLabel.
	KubeconfigSecretLabel string

	// KubeconfigSecretKey is the key of the Secret's data holding the kubeconfig. Defaults to
	// DefaultKubeconfigSecretKey ("kubeconfig").
	KubeconfigSecretKey string

	// ClusterOptions are applied, in order, to every cluster the provider builds, after the provider's own
	// defaults: the host manager's scheme, and a logger with the cluster's name. Use them to restrict a cluster's
	// cache (for example to namespaces the credentials may read), to change its client or its scheme.
	ClusterOptions []cluster.Option

	// RESTOptions are called, in order, on the rest.Config of every cluster, after it is read from the kubeconfig
	// and before the cluster is built: use them to set QPS, burst, timeouts or a user agent. An error leaves the
	// cluster out, like a malformed kubeconfig.
	RESTOptions []func(cfg *rest.Config) error

	// WaitCacheTimeout bounds how long the provider waits for a new cluster's cache to sync before giving up on
	// that attempt (and retrying with backoff). Zero means clusters.DefaultWaitCacheTimeout (two minutes). It
	// delays no other cluster: each Secret's cluster is engaged in the background.
	WaitCacheTimeout time.Duration

	// KubeconfigPolicy says what the kubeconfigs of Secrets may make the controller do. The zero value, the
	// default, refuses exec credential plugins, auth-providers, files of the controller's filesystem (tokenFile,
	// client-certificate, client-key, certificate-authority) and insecure TLS: whoever can write a labelled Secret
	// in Namespace could otherwise run programs in the controller's container or send its files to a server of
	// their choosing. A refused Secret is reported like a malformed one (ReasonInvalidKubeconfig), naming the field
	// and the option that would allow it. See clusters.KubeconfigPolicy and docs/security.md.
	KubeconfigPolicy clusters.KubeconfigPolicy

	// ControllerName names the controller SetupWithManager registers on the host manager (controller names must be
	// unique within a manager, so two kubeconfig providers on one manager need different names); it is also the
	// reporting controller of the Events the provider records on Secrets, and the name of its logger. Defaults to
	// DefaultControllerName ("kubeconfig-provider").
	ControllerName string
}

// completeWith returns a copy of o with every default applied. lookupEnv and readFile are os.LookupEnv and
// os.ReadFile outside tests.
func (o Options) completeWith(lookupEnv func(string) (string, bool), readFile func(string) ([]byte, error)) Options {
	if o.Namespace == "" {
		o.Namespace = defaultNamespace(lookupEnv, readFile)
	}
	if o.KubeconfigSecretLabel == "" {
		o.KubeconfigSecretLabel = DefaultKubeconfigSecretLabel
	}
	if o.KubeconfigSecretKey == "" {
		o.KubeconfigSecretKey = DefaultKubeconfigSecretKey
	}
	if o.ControllerName == "" {
		o.ControllerName = DefaultControllerName
	}
	if o.WaitCacheTimeout <= 0 {
		o.WaitCacheTimeout = clusters.DefaultWaitCacheTimeout
	}
	return o
}

// defaultNamespace is the namespace the program runs in, as documented on Options.Namespace.
func defaultNamespace(lookupEnv func(string) (string, bool), readFile func(string) ([]byte, error)) string {
	if ns, ok := lookupEnv(PodNamespaceEnv); ok && strings.TrimSpace(ns) != "" {
		return strings.TrimSpace(ns)
	}
	if data, err := readFile(ServiceAccountNamespaceFile); err == nil && strings.TrimSpace(string(data)) != "" {
		return strings.TrimSpace(string(data))
	}
	return DefaultNamespace
}

// complete applies the defaults with the real environment and file system.
func (o Options) complete() Options {
	return o.completeWith(os.LookupEnv, os.ReadFile)
}
