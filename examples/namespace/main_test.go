package main

import (
	"bytes"
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
	"sigs.k8s.io/controller-runtime/pkg/client"

	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

var fleet *mcenvtest.Fleet

func TestMain(m *testing.M) {
	harness.RunWithFleet(m, &fleet, mcenvtest.Options{})
}

// The program, run against one real cluster with two team namespaces, reconciles each namespace's app-config as
// "default/app-config" in the cluster named after the namespace, writes app-config-seen into the real namespace,
// and exits cleanly on SIGINT.
func TestReconcilesEveryNamespaceAsACluster(t *testing.T) {
	c := harness.Client(t, fleet, mcenvtest.HostName)
	teams := []string{"team-a", "team-b"}
	for _, team := range teams {
		if err := c.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: team}}); err != nil {
			t.Fatal(err)
		}
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: team, Name: "app-config"}, Data: map[string]string{"team": team}}
		if err := c.Create(t.Context(), cm); err != nil {
			t.Fatal(err)
		}
	}

	bin := filepath.Join(t.TempDir(), "namespace-example")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := fleet.WriteKubeconfig(kubeconfig, mcenvtest.HostName); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig)
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

	for _, team := range teams {
		harness.Eventually(t, 0, team+"/app-config-seen written", func() bool {
			return c.Get(t.Context(), client.ObjectKey{Namespace: team, Name: "app-config-seen"}, &corev1.ConfigMap{}) == nil
		})
		if want := `ConfigMap default/app-config in cluster "` + team + `"`; !strings.Contains(out.String(), want) {
			t.Errorf("the output lacks %q", want)
		}
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
