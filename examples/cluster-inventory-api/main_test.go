package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdv1 "k8s.io/client-go/tools/clientcmd/api/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	clusterinventoryv1alpha1 "sigs.k8s.io/multicluster-runtime/providers/cluster-inventory-api/apis/v1alpha1"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// token is the static token the fleet's API servers accept, and the one the test plugin hands out.
const token = "example-plugin-token-0123456789"

var (
	fleet *mcenvtest.Fleet
	// work holds the token file and the plugin, built by TestMain from the provider's test plugin.
	work string
)

func TestMain(m *testing.M) {
	var err error
	if work, err = os.MkdirTemp("", "cluster-inventory-example-"); err == nil {
		tokens := filepath.Join(work, "tokens.csv")
		if err = os.WriteFile(tokens, []byte(token+`,plugin-user,1001,"system:masters"`+"\n"), 0o600); err == nil {
			var out []byte
			if out, err = exec.Command("go", "build", "-o", filepath.Join(work, "plugin"), "../../providers/cluster-inventory-api/testdata/plugin").CombinedOutput(); err != nil {
				err = fmt.Errorf("building the plugin: %w\n%s", err, out)
			}
		}
		if err == nil {
			harness.RunWithFleet(m, &fleet, mcenvtest.Options{
				Members:               1,
				CRDDirectoryPaths:     []string{"../../providers/cluster-inventory-api/config/crd"},
				ErrorIfCRDPathMissing: true,
				APIServerFlags:        map[string][]string{"token-auth-file": {tokens}},
			})
		}
	}
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}

// The program, given a credential-provider file whose "token" plugin returns a token the member accepts, engages a
// ready ClusterProfile offering that type, reconciles a ConfigMap of its cluster under "<namespace>/<name>", and
// exits cleanly on SIGINT.
func TestReachesProfilesWithCredentialPlugins(t *testing.T) {
	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(clusterinventoryv1alpha1.AddToScheme(scheme))
	hub, err := client.New(fleet.Host(), client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	if err := hub.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "inventory"}}); err != nil {
		t.Fatal(err)
	}
	data, err := fleet.Kubeconfig("member-0")
	if err != nil {
		t.Fatal(err)
	}
	kc, err := clientcmd.Load(data)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(clientcmdv1.Cluster{Server: kc.Clusters["member-0"].Server, CertificateAuthorityData: kc.Clusters["member-0"].CertificateAuthorityData})
	if err != nil {
		t.Fatal(err)
	}
	clp := &clusterinventoryv1alpha1.ClusterProfile{
		ObjectMeta: metav1.ObjectMeta{Namespace: "inventory", Name: "east"},
		Spec:       clusterinventoryv1alpha1.ClusterProfileSpec{ClusterManager: clusterinventoryv1alpha1.ClusterManager{Name: "example"}},
	}
	if err := hub.Create(t.Context(), clp); err != nil {
		t.Fatal(err)
	}
	clp.Status.CredentialProviders = []clusterinventoryv1alpha1.CredentialProvider{{Name: "token", Cluster: runtime.RawExtension{Raw: raw}}}
	for _, cond := range []string{clusterinventoryv1alpha1.ClusterConditionControlPlaneHealthy, clusterinventoryv1alpha1.ClusterConditionJoined} {
		meta.SetStatusCondition(&clp.Status.Conditions, metav1.Condition{Type: cond, Status: metav1.ConditionTrue, Reason: "Example"})
	}
	if err := hub.Status().Update(t.Context(), clp); err != nil {
		t.Fatal(err)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "inventory-example"}}
	if err := harness.Client(t, fleet, "member-0").Create(t.Context(), cm); err != nil {
		t.Fatal(err)
	}

	providerFile := filepath.Join(t.TempDir(), "clusterprofile-provider-file.json")
	file := `{"providers": [{"name": "token", "execConfig": {"apiVersion": "client.authentication.k8s.io/v1beta1",
  "command": "` + filepath.Join(work, "plugin") + `", "env": [{"name": "PLUGIN_TOKEN", "value": "` + token + `"}], "provideClusterInfo": true}}]}`
	if err := os.WriteFile(providerFile, []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "cluster-inventory-example")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	hubKubeconfig := filepath.Join(t.TempDir(), "hub.kubeconfig")
	if err := fleet.WriteKubeconfig(hubKubeconfig, mcenvtest.HostName); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-clusterprofile-provider-file", providerFile)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+hubKubeconfig)
	out := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
		}
	})

	want := `ConfigMap default/inventory-example in cluster "inventory/east"`
	harness.Eventually(t, 0, want, func() bool { return strings.Contains(out.String(), want) })
	if strings.Contains(out.String(), token) {
		t.Error("the program's output shows the token")
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("the program exited with %v after SIGINT; output:\n%s", err, out)
		}
	case <-time.After(harness.DefaultTimeout):
		t.Fatalf("the program did not exit after SIGINT; output:\n%s", out)
	}
}

// lockedBuffer collects a process's output while the test reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
