// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package kubeconfig_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	"sigs.k8s.io/multicluster-runtime/providers/kubeconfig"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// script is the script under test, relative to this package.
var script = filepath.Join("..", "..", "examples", "kubeconfig", "scripts", "create-kubeconfig-secret.sh")

// requireTools skips the test when bash or kubectl is missing, unless it runs in CI (CI is set), where it fails.
func requireTools(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s is required in CI: %v", tool, err)
			}
			t.Skipf("%s is not on PATH (and CI is unset): the script test needs it", tool)
		}
	}
}

// runScript runs the script with args and returns its exit code, stdout and stderr.
func runScript(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", append([]string{script}, args...)...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	// kubectl reads and writes its cache under HOME; keep it inside the test.
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "KUBECONFIG=")
	err := cmd.Run()
	var exitErr *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exitErr):
		code = exitErr.ExitCode()
	default:
		t.Fatalf("running the script: %v", err)
	}
	return code, out.String(), errOut.String()
}

func TestScriptUsage(t *testing.T) {
	requireTools(t, "bash")
	code, stdout, _ := runScript(t, "--help")
	if code != 0 || !strings.Contains(stdout, "Usage:") || !strings.Contains(stdout, "--member-kubeconfig") {
		t.Errorf("--help: exit %d, output %q", code, stdout)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--bogus"}, "unknown argument: --bogus"},
		{[]string{"--member-context", "x"}, "--name is required"},
		{[]string{"--name"}, "--name needs a value"},
		{[]string{"--name", "x"}, "--member-context or --member-kubeconfig is required"},
		{[]string{"--name", "Not_A_Name", "--member-context", "x"}, `"Not_A_Name" is not a valid name`},
		{[]string{"--name", "x", "--member-context", "x", "--token-duration", "soon"}, `"soon" is not a duration`},
		{[]string{"--name", "x", "--member-context", "x", "--rules", "/does/not/exist"}, "cannot read"},
		{[]string{"--name", "x", "--member-kubeconfig", "/does/not/exist"}, "cannot read"},
		{[]string{"--name=x", "--member-context=x", "--cluster-scoped=yes"}, "--cluster-scoped takes no value"},
	} {
		code, stdout, stderr := runScript(t, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) || stdout != "" {
			t.Errorf("%v: exit %d, stderr %q, stdout %q; want exit 2 and %q", tc.args, code, stderr, stdout, tc.want)
		}
	}
	notAList := filepath.Join(t.TempDir(), "rules.yaml")
	if err := os.WriteFile(notAList, []byte("# comment\nrules:\n- apiGroups: [\"\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runScript(t, "--name", "x", "--member-context", "x", "--rules", notAList); code != 2 ||
		!strings.Contains(stderr, "must be a YAML list") {
		t.Errorf("rules not a list: exit %d, stderr %q", code, stderr)
	}
}

// The script, run with kubeconfig files of two real control planes, gives the kubeconfig provider a member it can
// read exactly what the rules allow: ConfigMaps, and no Secrets. Cluster-wide (ClusterRole) and namespaced (Role)
// grants both work; re-running is idempotent (one Secret, the same rules, a new token the provider switches to).
func TestScriptGrantsExactlyTheRules(t *testing.T) {
	requireTools(t, "bash", "kubectl")
	var (
		hubNS    = harness.UniqueName("kc-script")      // the Secrets, in the hub
		memberNS = harness.UniqueName("kc-script-data") // the objects, in the member
		saNS     = harness.UniqueName("kc-script-sa")   // the namespaced grant's service account, in the member
		otherNS  = harness.UniqueName("kc-script-other")
	)
	dumpOnFailure(t, hubNS, `"m0`)
	harness.CreateNamespace(t, fleet, memberNS, "member-0")
	harness.CreateNamespace(t, fleet, otherNS, "member-0")
	harness.CreateConfigMap(t, fleet, "member-0", memberNS, "obj")
	dir := t.TempDir()
	hubKubeconfig, memberKubeconfig := filepath.Join(dir, "hub.kubeconfig"), filepath.Join(dir, "member.kubeconfig")
	if err := fleet.WriteKubeconfig(hubKubeconfig, mcenvtest.HostName); err != nil {
		t.Fatal(err)
	}
	if err := fleet.WriteKubeconfig(memberKubeconfig, "member-0"); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) {
		t.Helper()
		args = append([]string{"--member-kubeconfig", memberKubeconfig, "--hub-kubeconfig", hubKubeconfig,
			"--namespace", hubNS, "--token-duration", "1h"}, args...)
		began := time.Now()
		code, stdout, stderr := runScript(t, args...)
		if code != 0 {
			t.Fatalf("script %v: exit %d\nstdout: %s\nstderr: %s", args, code, stdout, stderr)
		}
		t.Logf("script %v took %s: %s", args[8:], time.Since(began).Round(time.Millisecond), strings.TrimSpace(stdout))

		// The new token is a credential: it must not be in the script's output, nor in any log (see TestMain).
		name := args[slices.Index(args, "--name")+1]
		secret := &corev1.Secret{}
		if err := hostClient(t).Get(quietContext(t), client.ObjectKey{Namespace: hubNS, Name: name}, secret); err != nil {
			t.Fatal(err)
		}
		cfg, err := clientcmd.RESTConfigFromKubeConfig(secret.Data[kubeconfig.DefaultKubeconfigSecretKey])
		if err != nil || cfg.BearerToken == "" {
			t.Fatalf("the Secret %s does not hold a kubeconfig with a token: %v", name, err)
		}
		forbidden.add(credentialFragments([]byte(cfg.BearerToken))...)
		if leaks := forbidden.leaks([]string{stdout, stderr}); len(leaks) > 0 {
			t.Errorf("the script printed a credential: %s", leaks[0])
		}
	}

	// Cluster-wide grant, and a namespaced one whose service account lives in another namespace than its Role.
	run("--name", "m0", "--cluster-scoped")
	run("--name", "m0-ns", "--serviceaccount", "ns-reader", "--sa-namespace", saNS, "--role-namespace", memberNS)

	// The clusters' caches hold ConfigMaps of memberNS only: that is all the namespaced grant allows to list.
	f := startFleetController(t, kubeconfig.Options{
		Namespace: hubNS,
		ClusterOptions: []cluster.Option{func(o *cluster.Options) {
			o.Cache.DefaultNamespaces = map[string]cache.Config{memberNS: {}}
		}},
	}, memberNS)
	f.waitClusters(t, "m0", "m0-ns")
	f.waitReconciled(t, "m0/obj=member-0", "m0-ns/obj=member-0")

	for _, tc := range []struct {
		cluster        string
		listAllAllowed bool
		serviceAccount string
	}{
		{cluster: "m0", listAllAllowed: true, serviceAccount: "system:serviceaccount:default:multicluster-runtime-m0"},
		{cluster: "m0-ns", listAllAllowed: false, serviceAccount: "system:serviceaccount:" + saNS + ":ns-reader"},
	} {
		cl, err := f.mgr.GetCluster(t.Context(), multicluster.ClusterName(tc.cluster))
		if err != nil {
			t.Fatal(err)
		}
		reader := cl.GetAPIReader()
		if err := reader.Get(t.Context(), client.ObjectKey{Namespace: memberNS, Name: "obj"}, &corev1.ConfigMap{}); err != nil {
			t.Errorf("%s: reading a ConfigMap, which the rules allow: %v", tc.cluster, err)
		}
		err = reader.List(t.Context(), &corev1.SecretList{}, client.InNamespace(memberNS))
		if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), tc.serviceAccount) {
			t.Errorf("%s: listing Secrets, which the rules do not allow: got %v, want Forbidden for %s", tc.cluster, err, tc.serviceAccount)
		}
		err = reader.List(t.Context(), &corev1.ConfigMapList{}, client.InNamespace(otherNS))
		if tc.listAllAllowed && err != nil {
			t.Errorf("%s: listing ConfigMaps in another namespace with a cluster-wide grant: %v", tc.cluster, err)
		}
		if !tc.listAllAllowed && !apierrors.IsForbidden(err) {
			t.Errorf("%s: listing ConfigMaps outside the Role's namespace: got %v, want Forbidden", tc.cluster, err)
		}
	}

	// Re-running changes nothing but the token, which the provider picks up.
	before, err := f.provider.Get(t.Context(), "m0")
	if err != nil {
		t.Fatal(err)
	}
	run("--name", "m0", "--cluster-scoped")
	harness.Eventually(t, shortTimeout, "m0 replaced with the new token", func() bool {
		after, err := f.provider.Get(t.Context(), "m0")
		return err == nil && after != before && after.GetConfig().BearerToken != before.GetConfig().BearerToken &&
			slices.Equal(f.provider.ListClusters(), []multicluster.ClusterName{"m0", "m0-ns"})
	})
	harness.CreateConfigMap(t, fleet, "member-0", memberNS, "after-rerun")
	f.waitReconciled(t, "m0/after-rerun=member-0")

	secrets := &corev1.SecretList{}
	if err := hostClient(t).List(quietContext(t), secrets, client.InNamespace(hubNS)); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range secrets.Items {
		if _, ok := s.Labels[kubeconfig.DefaultKubeconfigSecretLabel]; ok {
			names = append(names, s.Name)
		}
	}
	if slices.Sort(names); !slices.Equal(names, []string{"m0", "m0-ns"}) {
		t.Errorf("labelled Secrets in the hub: %v, want [m0 m0-ns]", names)
	}
	role := &rbacv1.ClusterRole{}
	if err := harness.Client(t, fleet, "member-0").Get(t.Context(), client.ObjectKey{Name: "default:multicluster-runtime-m0"}, role); err != nil {
		t.Fatal(err)
	}
	want := []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "list", "watch"}}}
	if !slices.EqualFunc(role.Rules, want, func(a, b rbacv1.PolicyRule) bool {
		return slices.Equal(a.APIGroups, b.APIGroups) && slices.Equal(a.Resources, b.Resources) && slices.Equal(a.Verbs, b.Verbs)
	}) {
		t.Errorf("ClusterRole rules %+v, want exactly %+v", role.Rules, want)
	}

	// Switching the namespaced grant to cluster-wide removes the Role: the service account has one grant.
	run("--name", "m0-ns", "--serviceaccount", "ns-reader", "--sa-namespace", saNS, "--role-namespace", memberNS, "--cluster-scoped")
	err = harness.Client(t, fleet, "member-0").Get(t.Context(), client.ObjectKey{Namespace: memberNS, Name: "ns-reader"}, &rbacv1.Role{})
	if !apierrors.IsNotFound(err) {
		t.Errorf("the Role of the namespaced grant after switching to --cluster-scoped: got %v, want NotFound", err)
	}
}
