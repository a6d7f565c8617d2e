// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package restmapper_test

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// fleet is shared by the tests of this package: a host and three members. Tests that install CRDs do so on member-0
// and member-1 only, each with API groups of its own, so that the host and member-2 keep the API surface they
// started with: tests that expect clusters to share a group use those two.
var fleet *mcenvtest.Fleet

// pristine names the control planes no test installs a CRD into.
var pristine = []string{mcenvtest.HostName, "member-2"}

func TestMain(m *testing.M) {
	harness.RunWithFleet(m, &fleet, mcenvtest.Options{Members: 3})
}

// timeout bounds every wait of the package's tests.
const timeout = time.Minute

// uniqueGroup returns an API group no other test uses.
func uniqueGroup(t *testing.T) string {
	return fmt.Sprintf("%s-%d.restmapper.test.io", strings.ToLower(strings.ReplaceAll(t.Name(), "/", "-")), time.Now().UnixNano()%1e6)
}

// installCRD installs a namespaced CRD of kind Widget (plural widgets) in group, version v1, into the named control
// plane and waits until it is established. It is removed when the test ends.
func installCRD(t *testing.T, name, group string) schema.GroupVersionKind {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := apiextensionsv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	c, err := client.New(config(t, name), client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets." + group},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: group,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Singular: "widget", Kind: "Widget", ListKind: "WidgetList"},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object", XPreserveUnknownFields: new(true),
				}},
			}},
		},
	}
	if err := c.Create(t.Context(), crd); err != nil {
		t.Fatalf("installing %s into %s: %v", crd.Name, name, err)
	}
	t.Cleanup(func() {
		if err := c.Delete(context.WithoutCancel(t.Context()), crd); client.IgnoreNotFound(err) != nil {
			t.Errorf("removing %s from %s: %v", crd.Name, name, err)
		}
	})
	harness.Eventually(t, timeout, crd.Name+" established in "+name, func() bool {
		got := &apiextensionsv1.CustomResourceDefinition{}
		if err := c.Get(t.Context(), client.ObjectKeyFromObject(crd), got); err != nil {
			return false
		}
		for _, cond := range got.Status.Conditions {
			if cond.Type == apiextensionsv1.Established && cond.Status == apiextensionsv1.ConditionTrue {
				return true
			}
		}
		return false
	})
	return schema.GroupVersionKind{Group: group, Version: "v1", Kind: "Widget"}
}

// config returns a copy of the rest.Config of the named control plane (mcenvtest.HostName for the host).
func config(t *testing.T, name string) *rest.Config {
	t.Helper()
	if name == mcenvtest.HostName {
		return rest.CopyConfig(fleet.Host())
	}
	return rest.CopyConfig(harness.Config(t, fleet, name))
}

// discoveryFault makes the discovery requests (/api and /apis) of a rest.Config fail with 503 while it is on, and
// counts the discovery requests that reach the API server and those it answers 304 Not Modified.
type discoveryFault struct {
	failing     atomic.Bool
	served      atomic.Int64
	notModified atomic.Int64

	mu     sync.Mutex
	byPath map[string]int
}

// paths returns how many discovery requests reached the API server, by path.
func (f *discoveryFault) paths() map[string]int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return maps.Clone(f.byPath)
}

// wrap makes cfg's requests go through the fault.
func (f *discoveryFault) wrap(cfg *rest.Config) *rest.Config {
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
			if req.URL.Path == "/api" || req.URL.Path == "/apis" {
				if f.failing.Load() {
					return nil, apierrors.NewServiceUnavailable("discovery is failing in this test")
				}
				f.served.Add(1)
				f.mu.Lock()
				if f.byPath == nil {
					f.byPath = map[string]int{}
				}
				f.byPath[req.URL.Path]++
				f.mu.Unlock()
				resp, err := rt.RoundTrip(req)
				if err == nil && resp.StatusCode == http.StatusNotModified {
					f.notModified.Add(1)
				}
				return resp, err
			}
			return rt.RoundTrip(req)
		})
	})
	return cfg
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }
