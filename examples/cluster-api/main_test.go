package main

import (
	"bytes"
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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	capi "sigs.k8s.io/multicluster-runtime/providers/cluster-api"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

var fleet *mcenvtest.Fleet

func TestMain(m *testing.M) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "sigs.k8s.io/cluster-api").Output()
	if err != nil {
		fmt.Fprintln(os.Stderr, "locating the Cluster API module:", err)
		os.Exit(1)
	}
	crd := filepath.Join(strings.TrimSpace(string(out)), "config", "crd", "bases", "cluster.x-k8s.io_clusters.yaml")
	harness.RunWithFleet(m, &fleet, mcenvtest.Options{Members: 1, CRDDirectoryPaths: []string{crd}, ErrorIfCRDPathMissing: true})
}

// The program, run against a management cluster with one provisioned Cluster whose kubeconfig Secret reaches a
// fleet member, reconciles a ConfigMap of that workload cluster under the name "<namespace>/<name>", and exits
// cleanly on SIGINT.
func TestReconcilesProvisionedWorkloadClusters(t *testing.T) {
	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(clusterv1.AddToScheme(scheme))
	host, err := client.New(fleet.Host(), client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	if err := host.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "workloads"}}); err != nil {
		t.Fatal(err)
	}
	kubeconfig, err := fleet.Kubeconfig("member-0")
	if err != nil {
		t.Fatal(err)
	}
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: "workloads", Name: "east" + capi.KubeconfigSecretSuffix},
		Data:       map[string][]byte{capi.KubeconfigSecretKey: kubeconfig},
	}
	if err := host.Create(t.Context(), secret); err != nil {
		t.Fatal(err)
	}
	ccl := &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: "workloads", Name: "east"}, Spec: clusterv1.ClusterSpec{Paused: ptr.To(true)}}
	if err := host.Create(t.Context(), ccl); err != nil {
		t.Fatal(err)
	}
	ccl.Status.Initialization.ControlPlaneInitialized = ptr.To(true)
	if err := host.Status().Update(t.Context(), ccl); err != nil {
		t.Fatal(err)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "capi-example"}}
	if err := harness.Client(t, fleet, "member-0").Create(t.Context(), cm); err != nil {
		t.Fatal(err)
	}

	bin := filepath.Join(t.TempDir(), "cluster-api-example")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	hostKubeconfig := filepath.Join(t.TempDir(), "host.kubeconfig")
	if err := fleet.WriteKubeconfig(hostKubeconfig, mcenvtest.HostName); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+hostKubeconfig)
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

	want := `ConfigMap default/capi-example in cluster "workloads/east"`
	harness.Eventually(t, 0, want, func() bool { return strings.Contains(out.String(), want) })
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
