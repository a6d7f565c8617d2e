// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package kubeconfig_test

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	"sigs.k8s.io/multicluster-runtime/providers/kubeconfig"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// fleet is shared by the tests of this package: a host (where the Secrets live) and two members. Each test works in
// namespaces of its own.
var fleet *mcenvtest.Fleet

// logs captures every log line of the package's tests, at every verbosity: controller-runtime's (the managers, the
// provider, the clusters it builds) and client-go's (klog). Tests grep it for credentials.
var logs = &logCapture{}

func TestMain(m *testing.M) {
	if harness.Fuzzing() {
		os.Exit(m.Run())
	}
	os.Exit(runWithFleet(m))
}

func runWithFleet(m *testing.M) int {
	logger := logs.logger()
	logf.SetLogger(logger)
	klog.SetLogger(logger)
	fleet = mcenvtest.NewFleet(mcenvtest.Options{Members: 2, Logger: logger.WithName("fleet")})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := fleet.Start(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "starting the fleet:", err)
		return 1
	}
	defer func() {
		if err := fleet.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "stopping the fleet:", err)
		}
	}()
	for _, name := range append(fleet.Members(), mcenvtest.HostName) {
		cfg, err := fleet.Config(name)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		forbidden.add(credentialFragments(cfg.KeyData)...)
	}
	code := m.Run()
	// Whatever the tests did, no credential reached any log line: not the client keys of the control planes
	// (in the kubeconfigs of the Secrets), nor the tokens the tests registered.
	if leaks := forbidden.leaks(logs.all()); len(leaks) > 0 {
		fmt.Fprintf(os.Stderr, "FAIL: %d log lines carry credentials, for example:\n%s\n", len(leaks), leaks[0])
		return 1
	}
	return code
}

// forbidden holds strings that must never appear in a log line: fragments of credentials.
var forbidden = &credentials{}

type credentials struct {
	mu        sync.Mutex
	fragments []string
}

func (c *credentials) add(fragments ...string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.fragments = append(c.fragments, fragments...)
}

// leaks returns the lines that contain a fragment, each with the fragment it contains. Hex dumps in a line (as
// client-go logs binary bodies) are decoded first.
func (c *credentials) leaks(lines []string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, line := range lines {
		text := line + "\n" + undump(line)
		for _, f := range c.fragments {
			if strings.Contains(text, f) {
				out = append(out, fmt.Sprintf("fragment %q in line %q", f, line))
				break
			}
		}
	}
	return out
}

// hexDumpLine matches a line of encoding/hex.Dump: offset, then up to 16 bytes in hex, then their characters.
var hexDumpLine = regexp.MustCompile(`[0-9a-f]{8}  ((?:[0-9a-f]{2} +)+)\|`)

// undump returns the bytes of the hex dumps in s, concatenated.
func undump(s string) string {
	var b strings.Builder
	for _, m := range hexDumpLine.FindAllStringSubmatch(s, -1) {
		data, err := hex.DecodeString(strings.ReplaceAll(m[1], " ", ""))
		if err == nil {
			b.Write(data)
		}
	}
	return b.String()
}

// credentialFragments returns fragments that identify a secret value in text: the value itself, its base64
// encoding (kubeconfigs embed keys so), a piece of each (short enough to be found in an excerpt, long enough to be
// unique), and for PEM data a line of its body.
func credentialFragments(value []byte) []string {
	if len(value) == 0 {
		return nil
	}
	b64 := base64.StdEncoding.EncodeToString(value)
	out := []string{string(value), b64}
	for _, s := range []string{string(value), b64} {
		if len(s) > 60 {
			out = append(out, s[len(s)/2:len(s)/2+24], s[len(s)-24:])
		}
	}
	if block, _ := pem.Decode(value); block != nil {
		body := base64.StdEncoding.EncodeToString(block.Bytes)
		out = append(out, body[len(body)/2:len(body)/2+24])
	}
	return out
}

// logCapture keeps log lines in memory. It is safe for concurrent use.
type logCapture struct {
	mu    sync.Mutex
	lines []string
}

func (c *logCapture) logger() logr.Logger {
	return funcr.New(func(prefix, args string) {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.lines = append(c.lines, prefix+" "+args)
	}, funcr.Options{Verbosity: 10})
}

// all returns every line captured so far.
func (c *logCapture) all() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.lines...)
}

// dumpOnFailure logs the captured lines that mention any of the words when the test fails.
func dumpOnFailure(t *testing.T, words ...string) {
	t.Helper()
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		for _, line := range logs.all() {
			for _, w := range words {
				if strings.Contains(line, w) {
					t.Log(line)
					break
				}
			}
		}
	})
}

// quietContext returns the test's context with a logger that discards everything: client-go logs the bodies of
// requests and responses at high verbosity, and the tests' own requests carry credentials (Secrets, tokens) that
// must not pollute the captured logs, which are searched for credentials the provider might log.
func quietContext(t *testing.T) context.Context {
	return klog.NewContext(t.Context(), logr.Discard())
}

// shortTimeout bounds waits for what takes well under a second when it works.
const shortTimeout = 30 * time.Second

// quiet is how long a test watches for something that must not happen, after a fence.
const quiet = time.Second

// memberKubeconfig returns the admin kubeconfig of a member.
func memberKubeconfig(t *testing.T, member string) []byte {
	t.Helper()
	data := harness.Kubeconfig(t, fleet, member)
	return data
}

// kubeconfigSecret returns a labelled Secret holding data under the default key.
func kubeconfigSecret(ns, name string, data []byte) *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: ns, Name: name,
			Labels: map[string]string{kubeconfig.DefaultKubeconfigSecretLabel: "true"},
		},
		Data: map[string][]byte{kubeconfig.DefaultKubeconfigSecretKey: data},
	}
}

// hostClient returns a direct client of the host.
func hostClient(t *testing.T) client.Client {
	t.Helper()
	return harness.Client(t, fleet, mcenvtest.HostName)
}

// fleetController is a manager of the host running a kubeconfig provider and the controller of
// harness.RecordConfigMaps for the ConfigMaps in ns of every cluster the provider engages.
type fleetController struct {
	provider *kubeconfig.Provider
	mgr      mcmanager.Manager
	rec      *harness.Recorder
	stop     func()
}

func startFleetController(t *testing.T, opts kubeconfig.Options, ns string, setup ...func(*testing.T, mcmanager.Manager)) *fleetController {
	t.Helper()
	return startFleetControllerAs(t, fleet.Host(), opts, ns, setup...)
}

// startFleetControllerAs is startFleetController with the manager reaching the host with hostConfig.
func startFleetControllerAs(t *testing.T, hostConfig *rest.Config, opts kubeconfig.Options, ns string, setup ...func(*testing.T, mcmanager.Manager)) *fleetController {
	t.Helper()
	provider := kubeconfig.New(opts)
	mgr := harness.NewManager(t, hostConfig, provider, func(o *mcmanager.Options) {
		o.Controller.SkipNameValidation = ptr.To(true)
	})
	if err := provider.SetupWithManager(t.Context(), mgr); err != nil {
		t.Fatal(err)
	}
	rec := harness.RecordConfigMaps(t, mgr, harness.OfNamespace(ns))
	for _, f := range setup {
		f(t, mgr)
	}
	stop := harness.StartManager(t, t.Context(), mgr)
	return &fleetController{provider: provider, mgr: mgr, rec: rec, stop: stop}
}

// withOwnerIndex registers a field index on ConfigMaps ("data.member") through the manager. A cluster's cache then
// has an informer to sync before the cluster is engaged, which an unreachable cluster never does.
func withOwnerIndex(t *testing.T, mgr mcmanager.Manager) {
	t.Helper()
	err := mgr.GetFieldIndexer().IndexField(t.Context(), &corev1.ConfigMap{}, "data.member", func(o client.Object) []string {
		return []string{o.(*corev1.ConfigMap).Data[harness.MemberKey]}
	})
	if err != nil {
		t.Fatal(err)
	}
}

// waitReconciled waits until the controller has reconciled every key.
func (f *fleetController) waitReconciled(t *testing.T, keys ...string) {
	t.Helper()
	for _, key := range keys {
		harness.Eventually(t, shortTimeout, "reconcile of "+key, func() bool { return f.rec.Has(key) })
	}
}

// waitClusters waits until the provider lists exactly names.
func (f *fleetController) waitClusters(t *testing.T, names ...multicluster.ClusterName) {
	t.Helper()
	harness.Eventually(t, shortTimeout, fmt.Sprintf("engaged clusters %v", names), func() bool {
		return slices.Equal(f.provider.ListClusters(), names)
	})
}

// secretEvents returns the Events recorded on the Secret ns/name with the given reason.
func secretEvents(t *testing.T, ns, name, reason string) []eventsv1.Event {
	t.Helper()
	list := &eventsv1.EventList{}
	if err := hostClient(t).List(t.Context(), list, client.InNamespace(ns)); err != nil {
		t.Fatalf("listing events: %v", err)
	}
	var out []eventsv1.Event
	for _, e := range list.Items {
		if e.Reason == reason && e.Regarding.Kind == "Secret" && e.Regarding.Name == name {
			out = append(out, e)
		}
	}
	return out
}

// waitEvent waits for an Event with the given reason on the Secret ns/name and returns it.
func waitEvent(t *testing.T, ns, name, reason string) eventsv1.Event {
	t.Helper()
	var found []eventsv1.Event
	harness.Eventually(t, shortTimeout, fmt.Sprintf("event %s on Secret %s/%s", reason, ns, name), func() bool {
		found = secretEvents(t, ns, name, reason)
		return len(found) > 0
	})
	return found[0]
}
