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
	"sigs.k8s.io/multicluster-runtime/providers/kubeconfig"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

var fleet *mcenvtest.Fleet

func TestMain(m *testing.M) {
	harness.RunWithFleet(m, &fleet, mcenvtest.Options{Members: 2})
}

// The program, run against a host with two members' kubeconfig Secrets, copies a host ConfigMap into both members,
// puts back a copy deleted in a member, and exits cleanly on SIGINT.
func TestSyncsHostConfigMapToEveryMember(t *testing.T) {
	host := harness.Client(t, fleet, mcenvtest.HostName)
	for _, ns := range []string{"kubeconfigs", "fleet-sync"} {
		if err := host.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			t.Fatal(err)
		}
	}
	for _, member := range fleet.Members() {
		data, err := fleet.Kubeconfig(member)
		if err != nil {
			t.Fatal(err)
		}
		secret := &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Namespace: "kubeconfigs", Name: member, Labels: map[string]string{kubeconfig.DefaultKubeconfigSecretLabel: "true"}},
			Data:       map[string][]byte{kubeconfig.DefaultKubeconfigSecretKey: data},
		}
		if err := host.Create(t.Context(), secret); err != nil {
			t.Fatal(err)
		}
	}
	source := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "fleet-sync", Name: "settings"}, Data: map[string]string{"color": "blue"}}
	if err := host.Create(t.Context(), source); err != nil {
		t.Fatal(err)
	}

	bin := filepath.Join(t.TempDir(), "configmap-sync")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	hostKubeconfig := filepath.Join(t.TempDir(), "host.kubeconfig")
	if err := fleet.WriteKubeconfig(hostKubeconfig, mcenvtest.HostName); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-kubeconfig-namespace", "kubeconfigs")
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

	copied := func(member string) func() bool {
		return func() bool {
			cm := &corev1.ConfigMap{}
			err := harness.Client(t, fleet, member).Get(t.Context(), client.ObjectKeyFromObject(source), cm)
			return err == nil && cm.Data["color"] == "blue"
		}
	}
	for _, member := range fleet.Members() {
		harness.Eventually(t, 0, "the ConfigMap copied to "+member, copied(member))
		if !strings.Contains(out.String(), "synced ConfigMap fleet-sync/settings to cluster "+member) {
			t.Errorf("the output does not say the ConfigMap was synced to %s", member)
		}
	}
	if err := harness.Client(t, fleet, "member-1").Delete(t.Context(), source.DeepCopy()); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, 0, "the copy deleted in member-1 put back", copied("member-1"))

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
