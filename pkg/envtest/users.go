// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package envtest

import (
	"context"
	"fmt"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// serviceAccountTokenSeconds is the lifetime of the tokens ServiceAccountConfig requests: longer than any test.
const serviceAccountTokenSeconds = 24 * 60 * 60

// AddUser provisions a user of the named control plane (a member, or the host for HostName) and returns a new config
// that authenticates as that user, with user.Name as user name and user.Groups as groups, by a client certificate
// signed by the control plane's client CA. The user has no permissions beyond those every authenticated user has
// until RBAC grants it more, which makes it suited to RBAC tests; the group "system:masters" makes it an
// administrator. The config keeps working across API server restarts. It returns an error matching
// ErrMemberNotFound for unknown names.
func (f *Fleet) AddUser(name string, user envtest.User) (*rest.Config, error) {
	cp, err := f.controlPlane(name)
	if err != nil {
		return nil, err
	}
	return cp.addUser(user, nil)
}

// ServiceAccountConfig returns a new config that authenticates to the named control plane (a member, or the host
// for HostName) with a bearer token of the service account namespace/serviceAccount, as a workload in that cluster
// or a remote cluster's credentials would. The namespace and the service account are created if they do not exist.
// The token comes from the TokenRequest API, is valid for 24 hours and across API server restarts; the config
// carries no client certificate. As with AddUser, the service account has no permissions until RBAC grants them.
// It returns an error matching ErrMemberNotFound for unknown names.
func (f *Fleet) ServiceAccountConfig(ctx context.Context, name, namespace, serviceAccount string) (*rest.Config, error) {
	admin, err := f.Config(name)
	if err != nil {
		return nil, err
	}
	httpClient, err := privateHTTPClient(admin)
	if err != nil {
		return nil, err
	}
	cs, err := kubernetes.NewForConfigAndClient(admin, httpClient)
	if err != nil {
		return nil, fmt.Errorf("unable to build a client for control plane %q: %w", name, err)
	}

	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}
	if _, err := cs.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil &&
		!apierrors.IsAlreadyExists(err) {
		return nil, fmt.Errorf("unable to create namespace %q in control plane %q: %w", namespace, name, err)
	}
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: serviceAccount}}
	if _, err := cs.CoreV1().ServiceAccounts(namespace).Create(ctx, sa, metav1.CreateOptions{}); err != nil &&
		!apierrors.IsAlreadyExists(err) {
		return nil, fmt.Errorf("unable to create service account %s/%s in control plane %q: %w", namespace,
			serviceAccount, name, err)
	}
	expiration := int64(serviceAccountTokenSeconds)
	token, err := cs.CoreV1().ServiceAccounts(namespace).CreateToken(ctx, serviceAccount,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &expiration}},
		metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("unable to request a token for service account %s/%s in control plane %q: %w",
			namespace, serviceAccount, name, err)
	}

	return &rest.Config{
		Host:            admin.Host,
		BearerToken:     token.Status.Token,
		TLSClientConfig: rest.TLSClientConfig{CAData: admin.CAData},
		QPS:             admin.QPS,
		Burst:           admin.Burst,
	}, nil
}
