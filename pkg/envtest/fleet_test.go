// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package envtest

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/testr"
	"go.uber.org/goleak"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// eventuallyTimeout bounds every poll of the tests.
const eventuallyTimeout = 30 * time.Second

// requireBinaries skips the test when the control plane binaries are missing, except in CI, where it fails.
func requireBinaries(t *testing.T) {
	t.Helper()
	if _, err := BinaryAssetsDirectory(); err != nil {
		if os.Getenv("CI") == "" {
			t.Skipf("skipping: %v", err)
		}
		t.Fatalf("CI is set and the control plane binaries are missing: %v", err)
	}
}

// TestMain silences controller-runtime's global logger, which envtest logs to; each test passes a logger of its
// own to the fleet.
func TestMain(m *testing.M) {
	logf.SetLogger(logr.Discard())
	os.Exit(m.Run())
}

// startFleet starts a fleet that logs to the test and stops it when the test ends.
func startFleet(t *testing.T, opts Options) *Fleet {
	t.Helper()
	requireBinaries(t)
	opts.Logger = testr.NewWithOptions(t, testr.Options{Verbosity: 1})
	f := NewFleet(opts)
	t.Cleanup(func() {
		if err := f.Stop(); err != nil {
			t.Errorf("unable to stop the fleet: %v", err)
		}
	})
	if err := f.Start(t.Context()); err != nil {
		t.Fatalf("unable to start the fleet: %v", err)
	}
	return f
}

// eventually polls fn until it returns nil, failing the test with fn's last error after eventuallyTimeout.
func eventually(t *testing.T, what string, fn func(ctx context.Context) error) {
	t.Helper()
	var last error
	err := wait.PollUntilContextTimeout(t.Context(), 50*time.Millisecond, eventuallyTimeout, true,
		func(ctx context.Context) (bool, error) {
			last = fn(ctx)
			return last == nil, nil
		})
	if err != nil {
		t.Fatalf("%s: %v (last error: %v)", what, err, last)
	}
}

func newClient(t *testing.T, cfg *rest.Config) client.Client {
	t.Helper()
	c, err := client.New(cfg, client.Options{})
	if err != nil {
		t.Fatalf("unable to create a client for %s: %v", cfg.Host, err)
	}
	return c
}

func configFor(t *testing.T, f *Fleet, name string) *rest.Config {
	t.Helper()
	cfg, err := f.Config(name)
	if err != nil {
		t.Fatalf("unable to get the config of %q: %v", name, err)
	}
	return cfg
}

func configMap(name string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: metav1.NamespaceDefault, Name: name},
		Data:       map[string]string{"created-in": name},
	}
}

func getConfigMap(ctx context.Context, c client.Client, name string) error {
	return c.Get(ctx, client.ObjectKey{Namespace: metav1.NamespaceDefault, Name: name}, &corev1.ConfigMap{})
}

// childProcesses returns the etcd and kube-apiserver processes that are children of the test process. It returns
// nil where /proc is not available.
func childProcesses(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var found []string
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(stat)
		open, closing := strings.Index(s, "("), strings.LastIndex(s, ")")
		if open < 0 || closing < 0 {
			continue
		}
		comm := s[open+1 : closing]
		fields := strings.Fields(s[closing+1:])
		// fields[0] is the state; fields[1] the parent pid. Zombies are processes that have exited.
		if len(fields) < 2 || fields[0] == "Z" || fields[1] != strconv.Itoa(os.Getpid()) {
			continue
		}
		if comm == etcdBinary || comm == apiServerBinary {
			found = append(found, e.Name()+" "+comm)
		}
	}
	return found
}

func TestFleet(t *testing.T) {
	f := startFleet(t, Options{Members: 2})
	ctx := t.Context()

	if got, want := f.Members(), []string{"member-0", "member-1"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("Members() = %v, want %v", got, want)
	}
	if f.Host() == nil || f.HostEnvironment() == nil {
		t.Fatal("a fleet with a host returned no host config or environment")
	}
	if err := f.Start(ctx); err == nil {
		t.Error("a second Start succeeded, want an error")
	}

	t.Run("control planes are distinct API servers", func(t *testing.T) {
		clients := map[string]client.Client{HostName: newClient(t, f.Host())}
		hosts := map[string]string{f.Host().Host: HostName}
		for _, name := range f.Members() {
			cfg := configFor(t, f, name)
			if other, ok := hosts[cfg.Host]; ok {
				t.Fatalf("%q and %q share the API server %s", name, other, cfg.Host)
			}
			hosts[cfg.Host] = name
			clients[name] = newClient(t, cfg)
		}
		for name, c := range clients {
			if err := c.Create(ctx, configMap("distinct-"+name)); err != nil {
				t.Fatalf("unable to create a config map in %q: %v", name, err)
			}
		}
		for name, c := range clients {
			for other := range clients {
				err := getConfigMap(ctx, c, "distinct-"+other)
				switch {
				case name == other && err != nil:
					t.Errorf("%q does not see its own config map: %v", name, err)
				case name != other && !apierrors.IsNotFound(err):
					t.Errorf("%q sees the config map of %q (err %v), want not found", name, other, err)
				}
			}
		}
	})

	t.Run("config is a fresh copy", func(t *testing.T) {
		cfg := configFor(t, f, "member-0")
		want := cfg.Host
		cfg.Host = "https://example.invalid"
		cfg.CertData[0] ^= 0xff
		again := configFor(t, f, "member-0")
		if again.Host != want {
			t.Errorf("Config returned host %q after the caller changed a previous copy, want %q", again.Host, want)
		}
		if err := getConfigMap(ctx, newClient(t, again), "distinct-member-0"); err != nil {
			t.Errorf("a fresh config does not work after the caller changed a previous copy: %v", err)
		}
		if _, err := f.Config("nope"); !errors.Is(err, ErrMemberNotFound) ||
			!errors.Is(err, multicluster.ErrClusterNotFound) {
			t.Errorf("Config of an unknown member returned %v, want ErrMemberNotFound", err)
		}
	})

	t.Run("kubeconfig", func(t *testing.T) {
		data, err := f.Kubeconfig("member-1")
		if err != nil {
			t.Fatalf("unable to get the kubeconfig: %v", err)
		}
		kc, err := clientcmd.Load(data)
		if err != nil {
			t.Fatalf("clientcmd cannot load the kubeconfig: %v", err)
		}
		if kc.CurrentContext != "member-1" || len(kc.Contexts) != 1 || len(kc.Clusters) != 1 || len(kc.AuthInfos) != 1 {
			t.Fatalf("kubeconfig has current context %q, %d contexts, %d clusters, %d users; want one of each named "+
				"member-1", kc.CurrentContext, len(kc.Contexts), len(kc.Clusters), len(kc.AuthInfos))
		}
		kctx := kc.Contexts["member-1"]
		cluster, user := kc.Clusters["member-1"], kc.AuthInfos["member-1"]
		if kctx == nil || cluster == nil || user == nil || kctx.Cluster != "member-1" || kctx.AuthInfo != "member-1" {
			t.Fatalf("kubeconfig context, cluster and user are not all named member-1: %s", data)
		}
		if len(cluster.CertificateAuthorityData) == 0 || len(user.ClientCertificateData) == 0 ||
			len(user.ClientKeyData) == 0 {
			t.Error("kubeconfig does not embed the CA and the client certificate and key")
		}
		if cluster.CertificateAuthority != "" || user.ClientCertificate != "" || user.ClientKey != "" {
			t.Error("kubeconfig refers to files")
		}
		cfg, err := clientcmd.RESTConfigFromKubeConfig(data)
		if err != nil {
			t.Fatalf("unable to build a config from the kubeconfig: %v", err)
		}
		if err := getConfigMap(ctx, newClient(t, cfg), "distinct-member-1"); err != nil {
			t.Errorf("a client from the kubeconfig does not work: %v", err)
		}
	})

	t.Run("kubeconfig file with several members", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "kubeconfig")
		if err := f.WriteKubeconfig(path); err != nil {
			t.Fatalf("unable to write the kubeconfig: %v", err)
		}
		for _, name := range f.Members() {
			cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(
				&clientcmd.ClientConfigLoadingRules{ExplicitPath: path},
				&clientcmd.ConfigOverrides{CurrentContext: name}).ClientConfig()
			if err != nil {
				t.Fatalf("unable to load context %q of the kubeconfig file: %v", name, err)
			}
			if err := getConfigMap(ctx, newClient(t, cfg), "distinct-"+name); err != nil {
				t.Errorf("context %q of the kubeconfig file does not reach %q: %v", name, name, err)
			}
		}
	})

	t.Run("add and remove members", func(t *testing.T) {
		for _, bad := range []string{"", HostName, "member-0", "Not_A_Name"} {
			if _, err := f.AddMember(ctx, bad); err == nil {
				t.Errorf("AddMember(%q) succeeded, want an error", bad)
			}
		}
		cfg, err := f.AddMember(ctx, "extra")
		if err != nil {
			t.Fatalf("unable to add a member: %v", err)
		}
		if got, want := f.Members(), []string{"extra", "member-0", "member-1"}; !reflect.DeepEqual(got, want) {
			t.Fatalf("Members() = %v after AddMember, want %v", got, want)
		}
		c := newClient(t, cfg)
		if err := c.Create(ctx, configMap("in-extra")); err != nil {
			t.Fatalf("unable to use the new member: %v", err)
		}
		if err := getConfigMap(ctx, newClient(t, configFor(t, f, "member-0")), "in-extra"); !apierrors.IsNotFound(err) {
			t.Errorf("member-0 sees a config map of the new member (err %v), want not found", err)
		}

		if err := f.RemoveMember("extra"); err != nil {
			t.Fatalf("unable to remove the member: %v", err)
		}
		if got, want := f.Members(), []string{"member-0", "member-1"}; !reflect.DeepEqual(got, want) {
			t.Fatalf("Members() = %v after RemoveMember, want %v", got, want)
		}
		if err := getConfigMap(ctx, c, "in-extra"); err == nil {
			t.Error("the removed member still answers")
		}
		if err := f.RemoveMember("extra"); !errors.Is(err, ErrMemberNotFound) {
			t.Errorf("removing a removed member returned %v, want ErrMemberNotFound", err)
		}
		if err := f.RemoveMember(HostName); !errors.Is(err, ErrMemberNotFound) {
			t.Errorf("removing the host returned %v, want ErrMemberNotFound", err)
		}
	})

	t.Run("restart an API server", func(t *testing.T) {
		cfg := configFor(t, f, "member-1")
		kubeconfig, err := f.Kubeconfig("member-1")
		if err != nil {
			t.Fatalf("unable to get the kubeconfig: %v", err)
		}
		c := newClient(t, cfg)
		if err := c.Create(ctx, configMap("survives-restart")); err != nil {
			t.Fatalf("unable to create a config map: %v", err)
		}
		other := newClient(t, configFor(t, f, "member-0"))
		userCfg, err := f.AddUser("member-1", envtest.User{Name: "bob"})
		if err != nil {
			t.Fatalf("unable to add a user: %v", err)
		}
		saCfg, err := f.ServiceAccountConfig(ctx, "member-1", "restart", "robot")
		if err != nil {
			t.Fatalf("unable to get a service account config: %v", err)
		}

		if err := f.StopMemberAPIServer("member-1"); err != nil {
			t.Fatalf("unable to stop the API server: %v", err)
		}
		if err := f.StopMemberAPIServer("member-1"); err != nil {
			t.Errorf("stopping a stopped API server returned %v, want nil", err)
		}
		begin := time.Now()
		err = getConfigMap(ctx, c, "survives-restart")
		if !errors.Is(err, syscall.ECONNREFUSED) {
			t.Errorf("a request to the stopped API server returned %v, want connection refused", err)
		}
		if took := time.Since(begin); took > 5*time.Second {
			t.Errorf("a request to the stopped API server took %s to fail, want it to fail fast", took)
		}
		if err := getConfigMap(ctx, other, "distinct-member-0"); err != nil {
			t.Errorf("another member is affected by the stopped API server: %v", err)
		}

		if err := f.RestartMemberAPIServer(ctx, "member-1"); err != nil {
			t.Fatalf("unable to restart the API server: %v", err)
		}
		if err := f.RestartMemberAPIServer(ctx, "member-1"); err != nil {
			t.Errorf("restarting a running API server returned %v, want nil", err)
		}
		if got := configFor(t, f, "member-1").Host; got != cfg.Host {
			t.Errorf("the API server moved from %s to %s", cfg.Host, got)
		}
		eventually(t, "the client from before the restart works again", func(ctx context.Context) error {
			return getConfigMap(ctx, c, "survives-restart")
		})
		fromKubeconfig, err := clientcmd.RESTConfigFromKubeConfig(kubeconfig)
		if err != nil {
			t.Fatalf("unable to build a config from the kubeconfig: %v", err)
		}
		eventually(t, "the kubeconfig from before the restart works again", func(ctx context.Context) error {
			return getConfigMap(ctx, newClient(t, fromKubeconfig), "survives-restart")
		})
		for who, cfg := range map[string]*rest.Config{"bob": userCfg, "system:serviceaccount:restart:robot": saCfg} {
			if got := whoAmI(t, cfg); got != who {
				t.Errorf("a config from before the restart authenticates as %q, want %q", got, who)
			}
		}
	})

	t.Run("users", func(t *testing.T) {
		admin := newClient(t, configFor(t, f, "member-0"))
		cfg, err := f.AddUser("member-0", envtest.User{Name: "alice", Groups: []string{"devs"}})
		if err != nil {
			t.Fatalf("unable to add a user: %v", err)
		}
		if info := review(t, cfg); info.Username != "alice" || !slices.Contains(info.Groups, "devs") {
			t.Errorf("the user authenticates as %q in %v, want alice in devs", info.Username, info.Groups)
		}
		alice := newClient(t, cfg)
		if err := getConfigMap(ctx, alice, "distinct-member-0"); !apierrors.IsForbidden(err) {
			t.Fatalf("a fresh user read a config map (err %v), want forbidden", err)
		}
		grantConfigMapReader(t, admin, rbacv1.Subject{Kind: rbacv1.GroupKind, Name: "devs"}, "devs")
		eventually(t, "the user is allowed once RBAC grants it", func(ctx context.Context) error {
			return getConfigMap(ctx, alice, "distinct-member-0")
		})

		saCfg, err := f.ServiceAccountConfig(ctx, "member-0", "team", "robot")
		if err != nil {
			t.Fatalf("unable to get a service account config: %v", err)
		}
		if len(saCfg.BearerToken) == 0 || len(saCfg.CertData) != 0 {
			t.Errorf("the service account config has no token or has a client certificate")
		}
		if got, want := whoAmI(t, saCfg), "system:serviceaccount:team:robot"; got != want {
			t.Errorf("the service account authenticates as %q, want %q", got, want)
		}

		hostUser, err := f.AddUser(HostName, envtest.User{Name: "manager"})
		if err != nil {
			t.Fatalf("unable to add a user to the host: %v", err)
		}
		if hostUser.Host != f.Host().Host {
			t.Errorf("a host user points at %s, want the host %s", hostUser.Host, f.Host().Host)
		}
	})
}

func grantConfigMapReader(t *testing.T, admin client.Client, subject rbacv1.Subject, name string) {
	t.Helper()
	ctx := t.Context()
	role := &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Namespace: metav1.NamespaceDefault, Name: name},
		Rules: []rbacv1.PolicyRule{{
			APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "list", "watch"},
		}},
	}
	binding := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: metav1.NamespaceDefault, Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: name},
		Subjects:   []rbacv1.Subject{subject},
	}
	for _, obj := range []client.Object{role, binding} {
		if err := admin.Create(ctx, obj); err != nil {
			t.Fatalf("unable to create %T: %v", obj, err)
		}
	}
}

// review returns who cfg authenticates as.
func review(t *testing.T, cfg *rest.Config) authenticationv1.UserInfo {
	t.Helper()
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatalf("unable to create a clientset: %v", err)
	}
	var result *authenticationv1.SelfSubjectReview
	eventually(t, "a self subject review succeeds", func(ctx context.Context) error {
		result, err = cs.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{},
			metav1.CreateOptions{})
		return err
	})
	return result.Status.UserInfo
}

// whoAmI returns the user name cfg authenticates as.
func whoAmI(t *testing.T, cfg *rest.Config) string {
	t.Helper()
	return review(t, cfg).Username
}

func TestFleetStopLeavesNothing(t *testing.T) {
	requireBinaries(t)
	ctx := t.Context()
	ignore := goleak.IgnoreCurrent()
	f := NewFleet(Options{Members: 1, NoHost: true, Logger: testr.NewWithOptions(t, testr.Options{Verbosity: 1})})
	if _, err := f.AddMember(ctx, "early"); err == nil {
		t.Error("AddMember before Start succeeded, want an error")
	}
	if err := f.Start(ctx); err != nil {
		t.Fatalf("unable to start the fleet: %v", err)
	}
	if f.Host() != nil || f.HostEnvironment() != nil {
		t.Error("a fleet without host returned a host config or environment")
	}
	if _, err := f.Config(HostName); !errors.Is(err, ErrMemberNotFound) {
		t.Errorf("Config(HostName) of a fleet without host returned %v, want ErrMemberNotFound", err)
	}

	var dirs []string
	var addrs []string
	record := func(name string) {
		env, err := f.Environment(name)
		if err != nil {
			t.Fatalf("unable to get the environment of %q: %v", name, err)
		}
		dirs = append(dirs, env.ControlPlane.APIServer.CertDir, env.ControlPlane.Etcd.DataDir)
		addrs = append(addrs, env.ControlPlane.APIServer.SecureServing.HostPort())
	}
	record("member-0")
	if _, err := f.AddMember(ctx, "second"); err != nil {
		t.Fatalf("unable to add a member: %v", err)
	}
	record("second")
	if err := f.StopMemberAPIServer("second"); err != nil {
		t.Fatalf("unable to stop an API server: %v", err)
	}

	// Stop while a member is being added: Stop waits for it and stops it too.
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		// The add may finish before Stop, or fail because of it; either way nothing may be left running.
		_, _ = f.AddMember(ctx, "racing")
	}()
	if err := f.Stop(); err != nil {
		t.Fatalf("unable to stop the fleet: %v", err)
	}
	wg.Wait()
	if err := f.Stop(); err != nil {
		t.Errorf("a second Stop returned %v, want nil", err)
	}

	if procs := childProcesses(t); len(procs) > 0 {
		t.Errorf("processes left running after Stop: %v", procs)
	}
	for _, dir := range dirs {
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("directory %s left behind after Stop (stat: %v)", dir, err)
		}
	}
	for _, addr := range addrs {
		l, err := net.Listen("tcp", addr)
		if err != nil {
			t.Errorf("address %s still in use after Stop: %v", addr, err)
			continue
		}
		_ = l.Close()
	}
	if got := f.Members(); len(got) != 0 {
		t.Errorf("Members() = %v after Stop, want none", got)
	}
	if _, err := f.AddMember(ctx, "late"); err == nil {
		t.Error("AddMember after Stop succeeded, want an error")
	}
	goleak.VerifyNone(t, ignore)
}

func TestFleetOptions(t *testing.T) {
	dir := t.TempDir()
	crd := `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {kind: Widget, listKind: WidgetList, plural: widgets, singular: widget}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-preserve-unknown-fields: true
`
	if err := os.WriteFile(filepath.Join(dir, "widgets.yaml"), []byte(crd), 0o600); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var configured []string
	f := startFleet(t, Options{
		Members:               1,
		MemberNamePrefix:      "cluster-",
		CRDDirectoryPaths:     []string{dir},
		ErrorIfCRDPathMissing: true,
		APIServerFlags:        map[string][]string{"service-cluster-ip-range": {"10.96.0.0/24"}},
		ConfigureControlPlane: func(name string, env *envtest.Environment) {
			mu.Lock()
			defer mu.Unlock()
			configured = append(configured, name)
		},
	})
	if _, err := f.AddMember(t.Context(), "late"); err != nil {
		t.Fatalf("unable to add a member: %v", err)
	}
	mu.Lock()
	slices.Sort(configured)
	if want := []string{"cluster-0", HostName, "late"}; !reflect.DeepEqual(configured, want) {
		t.Errorf("ConfigureControlPlane was called for %v, want %v", configured, want)
	}
	mu.Unlock()

	for _, name := range []string{HostName, "cluster-0", "late"} {
		cfg := configFor(t, f, name)
		cs, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cs.Discovery().ServerResourcesForGroupVersion("example.com/v1"); err != nil {
			t.Errorf("%q does not serve the CRD: %v", name, err)
		}
		c := newClient(t, cfg)
		eventually(t, "the kubernetes service gets an address of the configured range", func(ctx context.Context) error {
			var svc corev1.Service
			if err := c.Get(ctx, client.ObjectKey{Namespace: metav1.NamespaceDefault, Name: "kubernetes"}, &svc); err != nil {
				return err
			}
			if svc.Spec.ClusterIP != "10.96.0.1" {
				return errors.New("the kubernetes service has cluster IP " + svc.Spec.ClusterIP)
			}
			return nil
		})
	}
}

func TestStartFailsWithoutBinaries(t *testing.T) {
	f := NewFleet(Options{BinaryAssetsDirectory: t.TempDir(), Members: 1})
	err := f.Start(t.Context())
	if err == nil {
		_ = f.Stop()
		t.Fatal("Start succeeded without binaries, want an error")
	}
	if procs := childProcesses(t); len(procs) > 0 {
		t.Errorf("processes left running after a failed Start: %v", procs)
	}
	if err := f.Stop(); err != nil {
		t.Errorf("Stop after a failed Start returned %v, want nil", err)
	}
}
