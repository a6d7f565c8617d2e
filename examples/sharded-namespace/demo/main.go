// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

// Command demo runs the sharded-namespace example on a local control plane, without Docker or an existing cluster:
// it starts a host API server (pkg/envtest), creates team namespaces (each is a cluster of the fleet), starts three
// replicas of the example as separate processes, and narrates who owns which cluster, read from the fence Leases as
// kubectl would, while replicas join, leave gracefully and crash, and clusters are added. Run it with
// `make demo-sharded` from the repository root, which builds the control-plane binaries once.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	"sigs.k8s.io/multicluster-runtime/pkg/manager/coordinator/sharded"
)

const fenceNamespace = "sharded-demo"

func main() {
	teams := flag.Int("clusters", 9, "number of team namespaces (clusters) to start with")
	step := flag.Duration("step", 6*time.Second, "how long to watch after each change")
	flag.Parse()
	logf.SetLogger(logr.Discard()) // the control plane's own log would drown the narration

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, *teams, *step)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, teams int, step time.Duration) error {
	sayf("starting a local control plane (kube-apiserver and etcd)")
	fleet := mcenvtest.NewFleet(mcenvtest.Options{})
	if err := fleet.Start(ctx); err != nil {
		return err
	}
	defer func() {
		sayf("stopping the control plane")
		_ = fleet.Stop()
	}()
	dir, err := os.MkdirTemp("", "sharded-demo-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := fleet.WriteKubeconfig(kubeconfig, mcenvtest.HostName); err != nil {
		return err
	}
	c, err := client.New(fleet.Host(), client.Options{})
	if err != nil {
		return err
	}
	if err := createTeam(ctx, c, fenceNamespace, false); err != nil {
		return err
	}
	for i := 1; i <= teams; i++ {
		if err := createTeam(ctx, c, fmt.Sprintf("team-%d", i), true); err != nil {
			return err
		}
	}

	sayf("building the example (examples/sharded-namespace)")
	bin := filepath.Join(dir, "sharded-namespace")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "sigs.k8s.io/multicluster-runtime/examples/sharded-namespace")
	build.Env = append(os.Environ(), "GOWORK=off")
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("go build: %w\n%s", err, out)
	}

	sayf("who owns what is in the fence Leases; while the demo runs, look with:")
	sayf("  KUBECONFIG=%s kubectl -n %s get leases -l %s=sharded-namespace \\", kubeconfig, fenceNamespace, sharded.LabelFence)
	sayf("    -o custom-columns='REPLICA:.spec.holderIdentity,CLUSTERS:.metadata.annotations.%s'",
		strings.ReplaceAll(sharded.AnnotationClusters, ".", `\.`))

	d := &demo{ctx: ctx, c: c, bin: bin, kubeconfig: kubeconfig, procs: map[string]*exec.Cmd{}, seen: map[string]observed{}}
	defer d.stopAll()
	narrate := d.narrate()
	defer narrate()

	sayf("starting three replicas: r-0, r-1 and r-2 (lease duration 4s, renewed every second)")
	for _, id := range []string{"r-0", "r-1", "r-2"} {
		if err := d.start(id); err != nil {
			return err
		}
	}
	if !d.watch(step) {
		return nil
	}
	sayf("a fourth replica joins: r-3. Each cluster that moves is released by its owner once drained, and taken at once")
	if err := d.start("r-3"); err != nil {
		return err
	}
	if !d.watch(step) {
		return nil
	}
	sayf("r-1 stops gracefully (SIGTERM): it drains and releases its clusters before it exits")
	d.signal("r-1", syscall.SIGTERM)
	if !d.watch(step) {
		return nil
	}
	sayf("r-2 crashes (SIGKILL): its clusters move once its fence has not changed for the lease duration (4s)")
	d.signal("r-2", syscall.SIGKILL)
	if !d.watch(step + 2*time.Second) {
		return nil
	}
	sayf("two more teams arrive: team-%d and team-%d", teams+1, teams+2)
	for _, n := range []int{teams + 1, teams + 2} {
		if err := createTeam(ctx, c, fmt.Sprintf("team-%d", n), true); err != nil {
			return err
		}
	}
	if !d.watch(step) {
		return nil
	}
	sayf("done: stopping the replicas")
	return nil
}

// createTeam creates a namespace, with an app-config ConfigMap if app is set.
func createTeam(ctx context.Context, c client.Client, name string, app bool) error {
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}); err != nil {
		return err
	}
	if !app {
		return nil
	}
	return c.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: name, Name: "app-config"}})
}

func sayf(format string, args ...any) {
	fmt.Printf("%s  %s\n", time.Now().Format("15:04:05.000"), fmt.Sprintf(format, args...))
}

// demo runs the replicas.
type demo struct {
	ctx        context.Context
	c          client.Client
	bin        string
	kubeconfig string
	procs      map[string]*exec.Cmd
	seen       map[string]observed // fence name -> when its current version was first seen
}

// observed is a fence's resourceVersion and when the demo first saw it.
type observed struct {
	rv    string
	since time.Time
}

// leaseDuration is the replicas' lease duration: a fence unchanged for that long belongs to a dead replica.
const leaseDuration = 4 * time.Second

func (d *demo) start(id string) error {
	cmd := exec.Command(d.bin, "-peer-id", id, "-fence-namespace", fenceNamespace,
		"-lease-duration", "4s", "-lease-renew", "1s", "-probe", "500ms", "-zap-log-level", "error")
	cmd.Env = append(os.Environ(), "KUBECONFIG="+d.kubeconfig)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	d.procs[id] = cmd
	return nil
}

func (d *demo) signal(id string, sig syscall.Signal) {
	if p := d.procs[id]; p != nil {
		_ = p.Process.Signal(sig)
		if sig == syscall.SIGKILL || sig == syscall.SIGTERM {
			go func() { _ = p.Wait() }()
			delete(d.procs, id)
		}
	}
}

func (d *demo) stopAll() {
	for id, p := range d.procs {
		_ = p.Process.Signal(syscall.SIGTERM)
		_ = p.Wait()
		delete(d.procs, id)
	}
}

// watch lets the demo run for d; it reports false if the demo was interrupted.
func (d *demo) watch(dur time.Duration) bool {
	select {
	case <-d.ctx.Done():
		return false
	case <-time.After(dur):
		return true
	}
}

// narrate prints, until the returned function is called, every change of ownership as the fences show it: which
// cluster moved from which replica to which, and how long it had no owner.
func (d *demo) narrate() func() {
	ctx, cancel := context.WithCancel(d.ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		owner := map[string]string{}      // cluster -> replica holding it
		unowned := map[string]time.Time{} // cluster -> since when nobody holds it
		lastTable := ""
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			held, err := d.fences(ctx)
			if err != nil {
				continue
			}
			now := time.Now()
			for cl, prev := range owner {
				if _, ok := held[cl]; !ok {
					unowned[cl] = now
					delete(owner, cl)
					sayf("  %s no longer in %s's fence", cl, prev)
				}
			}
			for cl, r := range held {
				prev, had := owner[cl]
				if had && prev == r {
					continue
				}
				owner[cl] = r
				if since, ok := unowned[cl]; ok {
					sayf("  %s moved to %s (in no fence for %s)", cl, r, now.Sub(since).Round(10*time.Millisecond))
					delete(unowned, cl)
				} else if had {
					sayf("  %s moved from %s to %s", cl, prev, r)
				}
			}
			if table := ownership(owner); table != lastTable {
				lastTable = table
				sayf("ownership: %s", table)
			}
		}
	}()
	return func() {
		cancel()
		<-done
	}
}

// fences reads which replica's live fence holds each team cluster. Like the replicas, the demo judges a fence dead
// when it has seen it unchanged for the lease duration (a crashed replica's fence stays behind, still listing the
// clusters it held).
func (d *demo) fences(ctx context.Context) (map[string]string, error) {
	list := &coordinationv1.LeaseList{}
	if err := d.c.List(ctx, list, client.InNamespace(fenceNamespace), client.MatchingLabels{sharded.LabelFence: "sharded-namespace"}); err != nil {
		return nil, err
	}
	out := map[string]string{}
	now := time.Now()
	for _, l := range list.Items {
		if o, ok := d.seen[l.Name]; !ok || o.rv != l.ResourceVersion {
			d.seen[l.Name] = observed{rv: l.ResourceVersion, since: now}
		}
		if l.Spec.HolderIdentity == nil || now.Sub(d.seen[l.Name].since) > leaseDuration {
			continue
		}
		for _, cl := range strings.Split(strings.Trim(l.Annotations[sharded.AnnotationClusters], "[]"), ",") {
			if cl = strings.Trim(cl, `"`); strings.HasPrefix(cl, "team-") {
				out[cl] = *l.Spec.HolderIdentity
			}
		}
	}
	return out, nil
}

// ownership renders who owns which team: "r-0: team-1 team-4 | r-1: ...".
func ownership(owner map[string]string) string {
	by := map[string][]string{}
	for cl, r := range owner {
		by[r] = append(by[r], cl)
	}
	replicas := make([]string, 0, len(by))
	for r := range by {
		replicas = append(replicas, r)
	}
	sort.Strings(replicas)
	parts := make([]string, 0, len(replicas))
	for _, r := range replicas {
		cls := by[r]
		slices.SortFunc(cls, func(a, b string) int {
			return teamNumber(a) - teamNumber(b)
		})
		parts = append(parts, r+": "+strings.Join(cls, " "))
	}
	return strings.Join(parts, " | ")
}

// teamNumber is n of "team-n", 0 for other names.
func teamNumber(name string) int {
	n, err := strconv.Atoi(strings.TrimPrefix(name, "team-"))
	if err != nil {
		return 0
	}
	return n
}
