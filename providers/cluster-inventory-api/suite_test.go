// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package clusterinventoryapi_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.uber.org/zap/zapcore"
	clusterinventoryv1alpha1 "sigs.k8s.io/cluster-inventory-api/apis/v1alpha1"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	"sigs.k8s.io/multicluster-runtime/pkg/envtest/program"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	clusterinventoryapi "sigs.k8s.io/multicluster-runtime/providers/cluster-inventory-api"
	aboutv1alpha1 "sigs.k8s.io/multicluster-runtime/providers/cluster-inventory-api/apis/about/v1alpha1"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

const (
	// pluginToken is the static token every control plane of the fleet accepts, for user plugin-user in
	// system:masters.
	pluginToken = "fleet-plugin-token-0123456789"
	// providerToken is the static token of user provider-user, who has no rights but those TestRBAC grants.
	providerToken = "fleet-provider-token-9876543210"
	// providerUser is the user of providerToken.
	providerUser = "provider-user"
)

var (
	// fleet is shared by the tests of this package: the hub (host, with the CRDs) and two members. Tests never
	// share a namespace.
	fleet *mcenvtest.Fleet
	// plugin is the path of the test's credential plugin (testdata/plugin), built by TestMain.
	plugin string
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "clusterinventoryapi-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	tokens := filepath.Join(dir, "tokens.csv")
	plugin = filepath.Join(dir, "plugin")
	if err = os.WriteFile(tokens, []byte(pluginToken+`,plugin-user,1001,"system:masters"`+"\n"+providerToken+","+providerUser+",1002\n"), 0o600); err == nil {
		if out, buildErr := exec.Command("go", "build", "-o", plugin, "./testdata/plugin").CombinedOutput(); buildErr != nil {
			err = fmt.Errorf("building the plugin: %w\n%s", buildErr, out)
		}
	}
	if err != nil {
		_ = os.RemoveAll(dir)
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := mcenvtest.RunFleetTests(m, &fleet, mcenvtest.Options{
		Members:               2,
		CRDDirectoryPaths:     []string{"config/crd"},
		ErrorIfCRDPathMissing: true,
		APIServerFlags:        map[string][]string{"token-auth-file": {tokens}},
	})
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// hub is the hub's name in the fleet, for newNamespace.
const hub = mcenvtest.HostName

// scheme knows the built-in types and the inventory types.
var scheme = harness.NewScheme(clusterinventoryv1alpha1.AddToScheme, aboutv1alpha1.AddToScheme)

func hubClient(t testing.TB) client.Client {
	t.Helper()
	return harness.ClientFor(t, fleet.Host(), scheme)
}

// createProfile creates a ClusterProfile in the hub and sets its status: ready or not, and whatever the status
// functions set (access providers, properties).
func createProfile(t testing.TB, ns, name string, ready bool, status ...func(*clusterinventoryv1alpha1.ClusterProfileStatus)) *clusterinventoryv1alpha1.ClusterProfile {
	t.Helper()
	clp := &clusterinventoryv1alpha1.ClusterProfile{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       clusterinventoryv1alpha1.ClusterProfileSpec{ClusterManager: clusterinventoryv1alpha1.ClusterManager{Name: "test"}},
	}
	if err := hubClient(t).Create(t.Context(), clp); err != nil {
		t.Fatal(err)
	}
	for _, set := range status {
		set(&clp.Status)
	}
	setReady(t, clp, ready)
	return clp
}

// accessProviders sets a profile's status.accessProviders.
func accessProviders(entries ...clusterinventoryv1alpha1.CredentialProvider) func(*clusterinventoryv1alpha1.ClusterProfileStatus) {
	return func(s *clusterinventoryv1alpha1.ClusterProfileStatus) { s.AccessProviders = entries }
}

// credentialProviders sets a profile's status.credentialProviders, the older name of accessProviders.
func credentialProviders(entries ...clusterinventoryv1alpha1.CredentialProvider) func(*clusterinventoryv1alpha1.ClusterProfileStatus) {
	return func(s *clusterinventoryv1alpha1.ClusterProfileStatus) { s.CredentialProviders = entries }
}

// properties sets a profile's status.properties.
func properties(props ...clusterinventoryv1alpha1.Property) func(*clusterinventoryv1alpha1.ClusterProfileStatus) {
	return func(s *clusterinventoryv1alpha1.ClusterProfileStatus) { s.Properties = props }
}

// setReady sets the profile's ControlPlaneHealthy and Joined conditions, through the status subresource.
func setReady(t testing.TB, clp *clusterinventoryv1alpha1.ClusterProfile, ready bool) {
	t.Helper()
	status := metav1.ConditionFalse
	if ready {
		status = metav1.ConditionTrue
	}
	for _, cond := range []string{clusterinventoryv1alpha1.ClusterConditionControlPlaneHealthy, clusterinventoryapi.ClusterConditionJoined} {
		meta.SetStatusCondition(&clp.Status.Conditions, metav1.Condition{Type: cond, Status: status, Reason: "Test"})
	}
	if err := hubClient(t).Status().Update(t.Context(), clp); err != nil {
		t.Fatal(err)
	}
}

// logBuffer collects a manager's log lines; it is safe for concurrent use.
type logBuffer struct{ program.Output }

// Find returns the first line logged that contains every one of substrings, or "" if none does.
func (b *logBuffer) Find(substrings ...string) string {
	return harness.FindLine(strings.Split(b.String(), "\n"), substrings...)
}

// start builds a multi-cluster manager of the hub with the provider set up on it and the ConfigMap controller of
// harness.StartRecordingManager, and runs it until the test ends or stop is called. With logs, the manager's log
// (the provider's included, at debug level) goes there.
func start(t testing.TB, opts clusterinventoryapi.Options, logs ...*logBuffer) (*clusterinventoryapi.Provider, mcmanager.Manager, *harness.Recorder, func()) {
	t.Helper()
	return startWith(t, fleet.Host(), opts, logs...)
}

// startWith is start with the manager reaching the hub with hubConfig.
func startWith(t testing.TB, hubConfig *rest.Config, opts clusterinventoryapi.Options, logs ...*logBuffer) (*clusterinventoryapi.Provider, mcmanager.Manager, *harness.Recorder, func()) {
	t.Helper()
	p, err := clusterinventoryapi.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	mgr, rec, stop := harness.StartRecordingManager(t, hubConfig, p, func(o *mcmanager.Options) {
		o.Scheme = harness.NewScheme()
		o.Controller.SkipNameValidation = ptr.To(true)
		if len(logs) > 0 {
			o.Logger = zap.New(zap.WriteTo(logs[0]), zap.Level(zapcore.DebugLevel))
		}
	}, func(mgr mcmanager.Manager) error { return p.SetupWithManager(mgr) })
	return p, mgr, rec, stop
}

// expectReadyThenDeleted takes the engaged profile clp through the end of its life: not ready → its cluster name is
// disengaged (the manager no longer finds it); ready again → engaged; deleted → disengaged.
func expectReadyThenDeleted(t *testing.T, p *clusterinventoryapi.Provider, mgr mcmanager.Manager,
	clp *clusterinventoryv1alpha1.ClusterProfile, name multicluster.ClusterName) {
	t.Helper()
	setReady(t, clp, false)
	harness.Eventually(t, 0, string(name)+" disengaged when not ready", func() bool {
		_, err := mgr.GetCluster(t.Context(), name)
		return errors.Is(err, multicluster.ErrClusterNotFound)
	})
	setReady(t, clp, true)
	harness.Eventually(t, 0, string(name)+" engaged again", func() bool { return slices.Contains(p.ClusterNames(), name) })
	if err := hubClient(t).Delete(t.Context(), clp); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, 0, string(name)+" disengaged when deleted", func() bool { return !slices.Contains(p.ClusterNames(), name) })
}

// namesIn returns the provider's clusters whose name starts with prefix: tests share the hub, and a provider sees
// every namespace.
func namesIn(p *clusterinventoryapi.Provider, prefix string) []multicluster.ClusterName {
	return slices.DeleteFunc(p.ClusterNames(), func(name multicluster.ClusterName) bool { return !strings.HasPrefix(name.String(), prefix) })
}

// warnings returns the notes of the Warning events (events.k8s.io/v1) the provider recorded on the profile ns/name:
// those whose reporting controller is the provider's and which carry an action, which only the events API sets.
func warnings(t testing.TB, ns, name string) []string {
	t.Helper()
	var list eventsv1.EventList
	if err := hubClient(t).List(t.Context(), &list, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range list.Items {
		if e.Type == corev1.EventTypeWarning && e.Regarding.Kind == "ClusterProfile" && e.Regarding.Name == name &&
			e.ReportingController == clusterinventoryapi.DefaultControllerName && e.Action != "" {
			out = append(out, e.Note)
		}
	}
	return out
}

// hasWarning returns a condition that holds once the profile ns/name has a Warning event whose note names the
// profile and contains every one of what.
func hasWarning(t testing.TB, ns, name string, what ...string) func() bool {
	return func() bool {
		for _, note := range warnings(t, ns, name) {
			if strings.Contains(note, ns+"/"+name) && harness.ContainsAll(note, what...) {
				return true
			}
		}
		return false
	}
}
