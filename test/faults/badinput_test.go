// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package faults_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	"sigs.k8s.io/multicluster-runtime/providers/file"
	"sigs.k8s.io/multicluster-runtime/providers/kubeconfig"
	"sigs.k8s.io/multicluster-runtime/test/faults/rig"
)

const (
	// badInputCacheTimeout bounds each cache sync of the bad-input test's managers, so that clusters that cannot
	// sync are reported within seconds.
	badInputCacheTimeout = 5 * time.Second
	// pluginHang is how long the hanging credential plugin hangs (before it fails).
	pluginHang = 20 * time.Second
	// hugeFile is the size of the 5 MB file.
	hugeFile = 5 << 20
)

// badFile is a bad kubeconfig file for the file provider and what the provider must say about it.
type badFile struct {
	name string
	data func(t *testing.T) []byte
	// logged lists the strings of the log line that must report it (besides the file's path or cluster name).
	logged []string
	// byCluster says the log line names the cluster (a context that was loaded) rather than the file.
	byCluster bool
}

// badSecret is a bad kubeconfig Secret and the Event the provider must record on it, or, for a Secret whose
// kubeconfig is valid but does not work, what the log line about its cluster must say.
type badSecret struct {
	name string
	// key holds the kubeconfig; "" leaves it out.
	key    string
	data   func(t *testing.T) []byte
	reason string
	logged []string
}

// Bad input of every kind, through the file provider (garbage, empty, 5 MB, wrong server, missing certificate, a
// credential plugin that fails or hangs), the kubeconfig-Secret provider (no key, empty, garbage, wrong server, a
// hanging plugin) and the cluster-inventory-api provider (no usable access provider), while writers update objects
// in every member:
//
//   - no manager stops; the other clusters stay engaged and their write-to-reconcile latency stays within 2x of
//     what it was before, or under 1 s;
//   - each input is reported by a log line naming the file or cluster and what is wrong, and by a Warning Event
//     on the Secret or ClusterProfile where there is one;
//   - fixing the input engages the cluster; removing it disengages it; no goroutine is left behind.
func TestBadInput(t *testing.T) {
	before := goleak.IgnoreCurrent()
	t.Cleanup(func() {
		// The hanging plugin holds the goroutines of its requests until it exits (client-go runs plugins without a
		// timeout); then nothing of the bad clusters may remain.
		noLeak(t, pluginHang+time.Minute, "no goroutine left by the bad clusters", before)
	})
	rnd := rand.New(rand.NewPCG(4, 4))
	opts := rig.ManagerOptions{WaitCacheTimeout: badInputCacheTimeout, IndexConfigMaps: true}
	fileMgr, secretMgr := startManagers(t, opts)
	profileMgr, err := r.StartProfileManager(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	stopAtEnd(t, profileMgr)
	if err := r.WriteProfile(t.Context(), "member-2", map[string]string{rig.PluginProviderName: "member-2"}); err != nil {
		t.Fatal(err)
	}
	eventually(t, waitTimeout, "the profile manager engages member-2", func() bool { return profileMgr.Engaged(t.Context(), "member-2") })
	managers := make([]*rig.Manager, 0, 3)
	managers = append(managers, fileMgr, secretMgr)
	writers, stopWriters := startWriters(t, 4, members, managers...)
	writers["member-2"].SetTargets(append(writers["member-2"].Targets(), profileMgr.Target("member-2"))...)
	all := append(managers, profileMgr)

	setPhase(all, "unloaded")
	hold(t, unloadedPhase)
	setPhase(all, "bad-input")

	cert := func(member string) rig.Auth { return rig.Auth{CertOf: member} }
	valid := func(contextName string, auth rig.Auth) func(t *testing.T) []byte {
		return func(t *testing.T) []byte {
			data, err := r.Kubeconfig(contextName, "member-2", auth)
			if err != nil {
				t.Fatal(err)
			}
			return data
		}
	}
	garbage := func(n int) func(t *testing.T) []byte {
		return func(*testing.T) []byte {
			b := make([]byte, n)
			for i := range b {
				b[i] = byte(rnd.IntN(256))
			}
			return b
		}
	}
	edit := func(contextName string, auth rig.Auth, change func(string) string) func(t *testing.T) []byte {
		return func(t *testing.T) []byte { return []byte(change(string(valid(contextName, auth)(t)))) }
	}
	wrongServer := func(s string) string {
		cfg, err := r.Fleet.Config("member-2")
		if err != nil {
			panic(err)
		}
		return strings.Replace(s, cfg.Host, "https://127.0.0.1:1", 1)
	}
	failing := rig.Auth{Exec: map[string]string{"PLUGIN_FAIL": "1"}}
	hanging := rig.Auth{Exec: map[string]string{"PLUGIN_HANG": pluginHang.String(), "PLUGIN_FAIL": "1"}}

	files := []badFile{
		{name: "bad-garbage", data: garbage(4096), logged: []string{"Failed to load kubeconfig"}},
		{name: "bad-empty", data: func(*testing.T) []byte { return nil }, logged: []string{"Kubeconfig is empty", "is empty"}},
		{name: "bad-huge", data: garbage(hugeFile), logged: []string{"Failed to load kubeconfig"}},
		{name: "bad-server", data: edit("bad-server", cert("member-2"), wrongServer), byCluster: true,
			logged: []string{"connection refused"}},
		{name: "bad-cert", data: edit("bad-cert", cert("member-2"), func(s string) string {
			return certFileInstead(s, filepath.Join(r.Dir, "missing", "client.crt"))
		}), logged: []string{"Failed to load kubeconfig context", "client.crt"}},
		{name: "bad-yaml-with-token", data: edit("bad-yaml-with-token", rig.Auth{Token: r.Tokens.Admin}, brokenAfterToken),
			logged: []string{"Failed to load kubeconfig"}},
		{name: "bad-exec-fails", data: valid("bad-exec-fails", failing), byCluster: true,
			logged: []string{"getting credentials", "exit code 1"}},
		{name: "bad-exec-hangs", data: valid("bad-exec-hangs", hanging), byCluster: true,
			logged: []string{"has not been answered", "credential plugin hangs"}},
	}
	secrets := []badSecret{
		{name: "bad-nokey", reason: kubeconfig.ReasonKubeconfigMissing},
		{name: "bad-empty", key: kubeconfig.DefaultKubeconfigSecretKey, data: func(*testing.T) []byte { return []byte{} }, reason: kubeconfig.ReasonKubeconfigMissing},
		{name: "bad-garbage", key: kubeconfig.DefaultKubeconfigSecretKey, data: garbage(4096), reason: kubeconfig.ReasonInvalidKubeconfig},
		{name: "bad-server", key: kubeconfig.DefaultKubeconfigSecretKey, data: edit("bad-server", rig.Auth{Token: r.Tokens.Admin}, wrongServer),
			reason: kubeconfig.ReasonEngageFailed, logged: []string{"connection refused"}},
		{name: "bad-exec-hangs", key: kubeconfig.DefaultKubeconfigSecretKey, data: valid("bad-exec-hangs", hanging),
			reason: kubeconfig.ReasonEngageFailed, logged: []string{"has not been answered", "credential plugin hangs"}},
		{name: "bad-yaml-with-token", key: kubeconfig.DefaultKubeconfigSecretKey,
			data: edit("bad-yaml-with-token", rig.Auth{Token: r.Tokens.Admin}, brokenAfterToken), reason: kubeconfig.ReasonInvalidKubeconfig},
		{name: "bad-wrongkey", key: "config", data: valid("bad-wrongkey", rig.Auth{Token: r.Tokens.Admin}), reason: kubeconfig.ReasonKubeconfigMissing},
	}

	for _, f := range files {
		if err := rig.WriteAtomic(filepath.Join(r.KubeconfigDir, f.name+".kubeconfig"), f.data(t)); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range secrets {
		var data []byte
		if s.data != nil {
			data = s.data(t)
		}
		if err := r.WriteSecret(t.Context(), s.name, s.key, data); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.WriteProfile(t.Context(), "bad-access", map[string]string{"unknown-type": "member-2"}); err != nil {
		t.Fatal(err)
	}

	// Each is reported, naming the file or the cluster and what is wrong.
	for _, f := range files {
		path := filepath.Join(r.KubeconfigDir, f.name+".kubeconfig")
		subject := path
		if f.byCluster {
			subject = `"cluster"="` + path + "+" + f.name + `"`
		}
		var line string
		eventually(t, waitTimeout, "a log line reporting "+f.name, func() bool {
			found := r.Logs.Grep(append([]string{subject}, f.logged...)...)
			if len(found) > 0 {
				line = found[0]
			}
			return len(found) > 0
		})
		if len(line) > 16<<10 {
			t.Errorf("the log line reporting %s is %d bytes long", f.name, len(line))
		}
		figures.addf(t, "file %s: %s", f.name, excerpt(line))
	}
	for _, s := range secrets {
		if len(s.logged) > 0 {
			var line string
			eventually(t, waitTimeout, "a log line reporting the cluster of Secret "+s.name, func() bool {
				found := r.Logs.Grep(append([]string{`"cluster"="` + s.name + `"`}, s.logged...)...)
				if len(found) > 0 {
					line = found[0]
				}
				return len(found) > 0
			})
			figures.addf(t, "Secret %s: %s", s.name, excerpt(line))
		}
		var found rig.Event
		eventually(t, waitTimeout, "a Warning Event on Secret "+s.name, func() bool {
			events, err := r.Events(t.Context(), "host")
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range events {
				if e.Kind == "Secret" && e.Name == s.name && e.Type == "Warning" && e.Reason == s.reason {
					found = e
					return true
				}
			}
			return false
		})
		figures.addf(t, "Secret %s: Event %s", s.name, excerpt(found.String()))
		if len(r.Logs.Grep(`"cluster"="`+s.name+`"`)) == 0 {
			t.Errorf("no log line names the cluster of Secret %s", s.name)
		}
	}
	var warning rig.Event
	eventually(t, waitTimeout, "a Warning Event on ClusterProfile bad-access", func() bool {
		events, err := r.Events(t.Context(), "host")
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range events {
			if e.Kind == "ClusterProfile" && e.Name == "bad-access" && e.Type == "Warning" && strings.Contains(e.Note, "unknown-type") {
				warning = e
				return true
			}
		}
		return false
	})
	figures.addf(t, "ClusterProfile bad-access: Event %s", excerpt(warning.String()))
	if len(r.Logs.Grep(rig.HostNamespace+"/bad-access", "unknown-type")) == 0 {
		t.Error("no log line reports ClusterProfile bad-access")
	}

	// The others were not affected.
	for _, m := range all {
		if !m.Running() {
			t.Fatalf("the %s manager stopped", m.Provider)
		}
		for _, member := range members {
			if m == profileMgr && member != "member-2" {
				continue
			}
			if !m.Engaged(t.Context(), member) {
				t.Errorf("the %s manager lost %s", m.Provider, member)
			}
		}
	}
	for _, m := range managers {
		checkHealthyLatency(t, m, "bad-input")
	}

	// Fixing the input engages the clusters.
	setPhase(all, "fixed")
	for _, f := range files {
		if err := rig.WriteAtomic(filepath.Join(r.KubeconfigDir, f.name+".kubeconfig"), valid(f.name, cert("member-2"))(t)); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range secrets {
		if err := r.WriteSecret(t.Context(), s.name, "", valid(s.name, rig.Auth{Token: r.Tokens.Admin})(t)); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.WriteProfile(t.Context(), "bad-access", map[string]string{rig.PluginProviderName: "member-2"}); err != nil {
		t.Fatal(err)
	}
	fixed := time.Now()
	// Fixed, each cluster reconciles member-2's objects through its new kubeconfig.
	reconciled := func(m *rig.Manager, name multicluster.ClusterName, credential string) {
		identity, err := r.HostIdentity("member-2", credential)
		if err != nil {
			t.Fatal(err)
		}
		eventually(t, waitTimeout, fmt.Sprintf("%s manager reconciles through %s once fixed", m.Provider, name), func() bool {
			_, _, ok := m.Observer.Through(name, identity, fixed)
			return ok
		})
	}
	for _, f := range files {
		reconciled(fileMgr, multicluster.ClusterName(filepath.Join(r.KubeconfigDir, f.name+".kubeconfig")+"+"+f.name), "cert:member-2")
	}
	for _, s := range secrets {
		reconciled(secretMgr, multicluster.ClusterName(s.name), "token:admin")
	}
	reconciled(profileMgr, multicluster.ClusterName(rig.HostNamespace+"/bad-access"), "exec:plugin")
	figures.addf(t, "all %d inputs, once fixed, reconciled through their new kubeconfig within %s",
		len(files)+len(secrets)+1, time.Since(fixed).Round(time.Millisecond))

	// Removing the input disengages them.
	for _, f := range files {
		if err := os.Remove(filepath.Join(r.KubeconfigDir, f.name+".kubeconfig")); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range secrets {
		if err := r.DeleteSecret(t.Context(), s.name); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.DeleteProfile(t.Context(), "bad-access"); err != nil {
		t.Fatal(err)
	}
	if err := r.DeleteProfile(t.Context(), "member-2"); err != nil {
		t.Fatal(err)
	}
	disengaged := func(m *rig.Manager, name multicluster.ClusterName) {
		eventually(t, waitTimeout, fmt.Sprintf("%s manager disengages %s", m.Provider, name), func() bool {
			_, err := m.Mgr.GetCluster(t.Context(), name)
			return err != nil
		})
	}
	for _, f := range files {
		disengaged(fileMgr, multicluster.ClusterName(filepath.Join(r.KubeconfigDir, f.name+".kubeconfig")+"+"+f.name))
	}
	for _, s := range secrets {
		disengaged(secretMgr, multicluster.ClusterName(s.name))
	}
	disengaged(profileMgr, multicluster.ClusterName(rig.HostNamespace+"/bad-access"))
	stopWriters()
	waitConverged(t, members, managers...)
}

// An empty kubeconfig file is an error of RunOnce naming the file, not a silent no-op.
func TestEmptyKubeconfigIsAnError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "empty.kubeconfig")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := file.New(file.Options{KubeconfigFiles: []string{path}})
	if err != nil {
		t.Fatal(err)
	}
	err = p.RunOnce(t.Context(), nopAware{})
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "empty") {
		t.Errorf("RunOnce on an empty kubeconfig returned %v; want an error naming %s and saying it is empty", err, path)
	}
}

// certFileInstead replaces the embedded client certificate of a kubeconfig by a reference to path.
func certFileInstead(kubeconfig, path string) string {
	lines := strings.Split(kubeconfig, "\n")
	out := make([]string, 0, len(lines))
	for _, line := range lines {
		if strings.Contains(line, "client-certificate-data:") {
			indent := line[:len(line)-len(strings.TrimLeft(line, " "))]
			line = indent + "client-certificate: " + path
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// brokenAfterToken breaks the YAML of a kubeconfig right after its token, where a parser's error would quote it if
// it quoted anything.
func brokenAfterToken(kubeconfig string) string {
	var out []string
	for _, line := range strings.Split(kubeconfig, "\n") {
		out = append(out, line)
		if strings.Contains(line, "token:") {
			out = append(out, line+`: "unterminated`, "\t- [")
		}
	}
	return strings.Join(out, "\n")
}

// excerpt shortens a line for the figures.
func excerpt(s string) string {
	if len(s) > 300 {
		return s[:300] + "..."
	}
	return s
}
