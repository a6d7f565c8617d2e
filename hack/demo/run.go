// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/providers/file"
)

// demoNamespace holds the demo's ConfigMaps in every member.
const demoNamespace = "demo"

// greetingName and greetingKey name the demo's ConfigMap and its data key.
const (
	greetingName = "greeting"
	greetingKey  = "greeting"
)

// stepTimeout bounds each step of the scenario.
const stepTimeout = 2 * time.Minute

// run starts the fleet and the controller, plays the scenario and prints the summary. Everything it started is
// stopped, and everything it wrote removed, before it returns, also when ctx ends early (Ctrl-C).
func run(ctx context.Context, opts options, n *narrator) (err error) {
	if opts.verbose {
		logf.SetLogger(zap.New(zap.UseDevMode(true)))
	} else {
		logf.SetLogger(logr.Discard())
	}

	// The members' kubeconfig files are in root/members, which the provider watches; the host's is root/host.kubeconfig,
	// for a controller of your own to run against the fleet (see -keep).
	root, err := os.MkdirTemp("", "mcr-demo-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(root)
	dir, hostKubeconfig := filepath.Join(root, "members"), filepath.Join(root, "host.kubeconfig")
	if err := os.Mkdir(dir, 0o700); err != nil {
		return err
	}

	members := make([]string, opts.clusters)
	for i := range members {
		members[i] = fmt.Sprintf("member-%d", i)
	}
	n.sayf("FLEET", "starting %d control planes (a host for the manager and %d members); this takes a few seconds", opts.clusters+1, opts.clusters)
	fleet := mcenvtest.NewFleet(mcenvtest.Options{Members: opts.clusters})
	defer func() {
		n.sayf("FLEET", "stopping the control planes")
		if stopErr := fleet.Stop(); stopErr != nil {
			err = errors.Join(err, fmt.Errorf("stopping the fleet: %w", stopErr))
		}
	}()
	if err := fleet.Start(ctx); err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return fmt.Errorf("starting the fleet: %w", err)
	}
	n.sayf("FLEET", "%d members up: %s", len(members), strings.Join(members, ", "))
	if err := fleet.WriteKubeconfig(hostKubeconfig, mcenvtest.HostName); err != nil {
		return fmt.Errorf("writing the host's kubeconfig: %w", err)
	}

	provider, err := file.New(file.Options{KubeconfigDirs: []string{dir}})
	if err != nil {
		return err
	}
	mgr, err := mcmanager.New(fleet.Host(), provider, mcmanager.Options{
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
	})
	if err != nil {
		return fmt.Errorf("creating the manager: %w", err)
	}
	if err := mgr.Add(&engagementWatcher{n: n}); err != nil {
		return err
	}
	if err := setupQuickstart(mgr, n); err != nil {
		return err
	}

	mgrCtx, stopMgr := context.WithCancel(ctx)
	mgrDone := make(chan error, 1)
	go func() { mgrDone <- mgr.Start(mgrCtx) }()
	defer func() {
		stopMgr()
		if mgrErr := <-mgrDone; mgrErr != nil {
			err = errors.Join(err, fmt.Errorf("manager: %w", mgrErr))
		}
	}()
	n.sayf("MANAGER", "started the quickstart controller (ConfigMaps, every cluster) with the file provider on %s", dir)

	s := &scenario{ctx: ctx, fleet: fleet, dir: dir, n: n}
	if err := s.play(members); err != nil {
		if ctx.Err() != nil {
			n.sayf("STOP", "interrupted")
			n.quiet()
			return nil
		}
		return err
	}

	if opts.keep {
		n.sayf("RUNNING", "the fleet keeps running: change ConfigMaps in namespace %q with the kubeconfigs in %s; Ctrl-C stops", demoNamespace, dir)
		n.sayf("RUNNING", "run a controller of your own against it: cd examples/quickstart && go run . --kubeconfig %s -fleet %s", hostKubeconfig, dir)
		s.greetEvery(ctx, 5*time.Second)
	} else {
		remaining := time.Until(n.start.Add(opts.duration))
		if remaining > 0 {
			n.sayf("RUNNING", "updating a ConfigMap in every cluster every 5s for %s more", remaining.Round(time.Second))
			runCtx, cancel := context.WithTimeout(ctx, remaining)
			s.greetEvery(runCtx, 5*time.Second)
			cancel()
		}
	}
	n.summary()
	n.quiet() // what follows is the demo shutting down, not the fleet changing
	return nil
}

// scenario is the demo's script: clusters join, get reconciled, one more joins, one leaves.
type scenario struct {
	ctx   context.Context
	fleet *mcenvtest.Fleet
	dir   string
	n     *narrator
	live  []string
	round int
}

func (s *scenario) play(members []string) error {
	for _, m := range members {
		if err := s.join(m); err != nil {
			return err
		}
	}
	if err := s.waitFor("every cluster engaged", func() bool { return s.allEngaged() }); err != nil {
		return err
	}
	if err := s.greetAll(); err != nil {
		return err
	}

	next := fmt.Sprintf("member-%d", len(members))
	s.n.sayf("FLEET", "adding a control plane: %s", next)
	if _, err := s.fleet.AddMember(s.ctx, next); err != nil {
		return fmt.Errorf("adding %s: %w", next, err)
	}
	if err := s.join(next); err != nil {
		return err
	}
	if err := s.waitFor(next+" engaged", func() bool { return s.n.isEngaged(next) }); err != nil {
		return err
	}
	if err := s.greet(next); err != nil {
		return err
	}

	leaving := members[0]
	s.n.sayf("FLEET", "removing %s: deleting its kubeconfig file", leaving)
	if err := os.Remove(s.kubeconfigPath(leaving)); err != nil {
		return err
	}
	if err := s.waitFor(leaving+" disengaged", func() bool { return s.n.isGone(leaving) }); err != nil {
		return err
	}
	if err := s.fleet.RemoveMember(leaving); err != nil {
		return fmt.Errorf("removing %s: %w", leaving, err)
	}
	s.live = s.live[1:]
	s.n.sayf("FLEET", "%s stopped; %d clusters remain", leaving, len(s.live))
	return nil
}

func (s *scenario) kubeconfigPath(member string) string {
	return filepath.Join(s.dir, member+".kubeconfig")
}

// join creates the demo's namespace in member and writes member's kubeconfig for the provider to find.
func (s *scenario) join(member string) error {
	c, err := s.client(member)
	if err != nil {
		return err
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: demoNamespace}}
	if err := c.Create(s.ctx, ns); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("cluster %s: creating namespace: %w", member, err)
	}
	s.n.clusterAdded(member)
	if err := s.fleet.WriteKubeconfig(s.kubeconfigPath(member), member); err != nil {
		return err
	}
	s.n.sayf("KUBECONFIG", "wrote %s", filepath.Base(s.kubeconfigPath(member)))
	s.live = append(s.live, member)
	return nil
}

func (s *scenario) client(member string) (client.Client, error) {
	cfg, err := s.fleet.Config(member)
	if err != nil {
		return nil, err
	}
	return client.New(cfg, client.Options{})
}

func (s *scenario) allEngaged() bool {
	for _, m := range s.live {
		if !s.n.isEngaged(m) {
			return false
		}
	}
	return true
}

// greetAll writes the greeting ConfigMap in every live cluster and waits for each to be reconciled.
func (s *scenario) greetAll() error {
	s.round++
	for _, m := range s.live {
		if err := s.greet(m); err != nil {
			return err
		}
	}
	return nil
}

// greet creates or updates the ConfigMap demo/greeting in member and waits until it is reconciled there.
func (s *scenario) greet(member string) error {
	before := s.n.reconcileCount(member)
	c, err := s.client(member)
	if err != nil {
		return err
	}
	value := fmt.Sprintf("hello from %s, round %d", member, s.round)
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: demoNamespace, Name: greetingName}}
	_, err = controllerutil.CreateOrUpdate(s.ctx, c, cm, func() error { cm.Data = map[string]string{greetingKey: value}; return nil })
	if err != nil {
		return fmt.Errorf("cluster %s: writing the greeting: %w", member, err)
	}
	return s.waitFor(member+" reconciled", func() bool { return s.n.reconcileCount(member) > before })
}

// greetEvery updates the greeting in every live cluster every interval until ctx ends.
func (s *scenario) greetEvery(ctx context.Context, interval time.Duration) {
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
		s.round++
		for _, m := range s.live {
			c, err := s.client(m)
			if err != nil {
				continue
			}
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: demoNamespace, Name: greetingName}}
			value := fmt.Sprintf("hello from %s, round %d", m, s.round)
			if _, err := controllerutil.CreateOrUpdate(ctx, c, cm, func() error { cm.Data = map[string]string{greetingKey: value}; return nil }); err != nil && ctx.Err() == nil {
				s.n.sayf("ERROR", "cluster %s: %v", m, err)
			}
		}
	}
}

// waitFor polls cond until it holds, the step times out or the demo is interrupted.
func (s *scenario) waitFor(what string, cond func() bool) error {
	err := wait.PollUntilContextTimeout(s.ctx, 50*time.Millisecond, stepTimeout, true, func(context.Context) (bool, error) {
		return cond(), nil
	})
	if err != nil {
		return fmt.Errorf("waiting for %s: %w", what, err)
	}
	return nil
}
