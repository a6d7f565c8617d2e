// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package capi_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	capi "sigs.k8s.io/multicluster-runtime/providers/cluster-api"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// fleet is shared by the tests of this package: a host (the management cluster, with the Cluster API CRDs) and two
// members (workload clusters). Tests never share a namespace.
var fleet *mcenvtest.Fleet

func TestMain(m *testing.M) {
	crd, err := clusterCRD()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	harness.RunWithFleet(m, &fleet, mcenvtest.Options{Members: 2, CRDDirectoryPaths: []string{crd}, ErrorIfCRDPathMissing: true})
}

// clusterCRD returns the path of Cluster API's Cluster CRD, from the Cluster API module of the release of the API
// types this module requires. The provider depends on the API types module only, which ships no CRDs, so the
// release's main module is fetched with "go mod download" (from the module cache when it is there).
func clusterCRD() (string, error) {
	version, err := exec.Command("go", "list", "-m", "-f", "{{.Version}}", "sigs.k8s.io/cluster-api/api").Output()
	if err != nil {
		return "", fmt.Errorf("finding the version of the Cluster API types: %w", err)
	}
	module := "sigs.k8s.io/cluster-api@" + strings.TrimSpace(string(version))
	out, err := exec.Command("go", "mod", "download", "-json", module).Output()
	if err != nil {
		return "", fmt.Errorf("downloading %s for its CRDs: %w", module, err)
	}
	var downloaded struct{ Dir, Error string }
	if err := json.Unmarshal(out, &downloaded); err != nil || downloaded.Error != "" {
		return "", fmt.Errorf("downloading %s for its CRDs: %w %s", module, err, downloaded.Error)
	}
	return filepath.Join(downloaded.Dir, "core", "config", "crd", "bases", "cluster.x-k8s.io_clusters.yaml"), nil
}

// scheme knows the built-in types and Cluster API's.
var scheme = harness.NewScheme(clusterv1.AddToScheme)

// hostClient is a client of the host that knows the Cluster API types.
func hostClient(t testing.TB) client.Client {
	t.Helper()
	return harness.ClientFor(t, fleet.Host(), scheme)
}

// createCluster creates a Cluster object in the host; with provisioned, its control plane is marked initialized.
func createCluster(t testing.TB, ns, name string, provisioned bool, finalizers ...string) *clusterv1.Cluster {
	t.Helper()
	c := hostClient(t)
	ccl := &clusterv1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Finalizers: finalizers},
		Spec:       clusterv1.ClusterSpec{Paused: ptr.To(true)}, // no Cluster API controller here; the test plays it
	}
	if err := c.Create(t.Context(), ccl); err != nil {
		t.Fatal(err)
	}
	if provisioned {
		setProvisioned(t, ccl)
	}
	return ccl
}

// setProvisioned marks the Cluster's control plane initialized, through the status subresource.
func setProvisioned(t testing.TB, ccl *clusterv1.Cluster) {
	t.Helper()
	ccl.Status.Initialization.ControlPlaneInitialized = ptr.To(true)
	ccl.Status.Phase = string(clusterv1.ClusterPhaseProvisioned)
	if err := hostClient(t).Status().Update(t.Context(), ccl); err != nil {
		t.Fatal(err)
	}
}

// setKubeconfig creates or updates the kubeconfig Secret of Cluster ns/name: the kubeconfig of member, or raw data.
func setKubeconfig(t testing.TB, ns, name, member string, raw ...byte) {
	t.Helper()
	data := raw
	if member != "" {
		data = harness.Kubeconfig(t, fleet, member)
	}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name + capi.KubeconfigSecretSuffix}}
	if _, err := controllerutil.CreateOrUpdate(t.Context(), hostClient(t), secret, func() error {
		secret.Data = map[string][]byte{capi.KubeconfigSecretKey: data}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// start builds a multi-cluster manager of the host with a provider built from opts and set up on it, and a
// ConfigMap controller recording harness.Seen(cluster, name, member); it starts the manager until the test ends or stop is
// called. With logs, the manager's log (the provider's included) goes there.
func start(t testing.TB, opts capi.Options, logs ...*harness.LogBuffer) (*capi.Provider, mcmanager.Manager, *harness.Recorder, func()) {
	t.Helper()
	return startAs(t, fleet.Host(), opts, logs...)
}

// startAs is start with the manager reaching the host with hostConfig.
func startAs(t testing.TB, hostConfig *rest.Config, opts capi.Options, logs ...*harness.LogBuffer) (*capi.Provider, mcmanager.Manager, *harness.Recorder, func()) {
	t.Helper()
	p := capi.New(opts)
	mgr, rec, stop := harness.StartRecordingManager(t, hostConfig, p, func(o *mcmanager.Options) {
		o.Scheme = harness.NewScheme() // the provider adds Cluster API's types to it
		o.Controller.SkipNameValidation = ptr.To(true)
		if len(logs) > 0 {
			o.Logger = logs[0].Logger()
		}
	}, func(mgr mcmanager.Manager) error { return p.SetupWithManager(mgr) })
	return p, mgr, rec, stop
}

// mcHost is the host's name in the fleet, for newNamespace.
const mcHost = mcenvtest.HostName

// namesIn returns the provider's clusters of objects in namespace ns: tests share the host, and a provider sees
// every namespace.
func namesIn(p *capi.Provider, ns string) []multicluster.ClusterName {
	return slices.DeleteFunc(p.ListClusters(), func(name multicluster.ClusterName) bool {
		return !strings.HasPrefix(name.String(), ns+"/")
	})
}

// warnedAbout returns the names of the objects in namespace ns with a Warning Event whose message names the
// cluster "<ns>/<object name>"; it fails the test if any Event shows secret.
func warnedAbout(t testing.TB, ns, secret string) map[string]bool {
	t.Helper()
	var events corev1.EventList
	if err := hostClient(t).List(t.Context(), &events, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	warned := map[string]bool{}
	for _, e := range events.Items {
		if secret != "" && strings.Contains(e.Message, secret) {
			t.Errorf("event %q shows a credential", e.Message)
		}
		if e.Type == corev1.EventTypeWarning && strings.Contains(e.Message, ns+"/"+e.InvolvedObject.Name) {
			warned[e.InvolvedObject.Name] = true
		}
	}
	return warned
}
