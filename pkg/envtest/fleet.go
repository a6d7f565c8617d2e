// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package envtest

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// ErrMemberNotFound is returned (wrapped; test with errors.Is) for a name that is not a member of the fleet, nor
// HostName for a fleet with a host. It wraps multicluster.ErrClusterNotFound, so errors.Is matches that too.
var ErrMemberNotFound = fmt.Errorf("fleet member not found: %w", multicluster.ErrClusterNotFound)

// fleetState is where a Fleet is in its life.
type fleetState int

const (
	fleetNew fleetState = iota
	fleetStarting
	fleetStarted
	fleetStopped
)

// Fleet is a set of real Kubernetes control planes (etcd and kube-apiserver processes) for multi-cluster tests: an
// optional host control plane for the manager, and any number of named members, which can join and leave while the
// fleet runs and whose API servers can be stopped and restarted.
//
// Create one with NewFleet, start it with Start and always stop it with Stop. All methods are safe for concurrent
// use. Control planes that start together (in Start) start in parallel; AddMember calls do too.
type Fleet struct {
	opts Options
	// optsErr is the error defaulting the options gave; Start returns it.
	optsErr error

	mu      sync.Mutex
	state   fleetState
	host    *controlPlane
	members map[string]*controlPlane
	// adding holds the names of members AddMember is starting, so that a name is never started twice.
	adding map[string]struct{}
	// inflight counts Start and AddMember calls that are starting control planes; Stop waits for them, so that it
	// leaves nothing running.
	inflight sync.WaitGroup
}

// NewFleet returns a fleet configured by opts with its defaults applied (see Options). It starts nothing; an error
// in opts (for example binaries that cannot be found) is returned by Start.
func NewFleet(opts Options) *Fleet {
	defaulted, err := opts.withDefaults()
	return &Fleet{
		opts:    defaulted,
		optsErr: err,
		members: map[string]*controlPlane{},
		adding:  map[string]struct{}{},
	}
}

// Start starts the host control plane (unless Options.NoHost) and Options.Members members, all in parallel, and
// returns once every one of them serves requests (its /readyz answers OK) with the CRDs of the options installed.
//
// A fleet starts once: Start returns an error if called again. If any control plane fails to start, or ctx is done
// before all have started, Start stops those that did and returns an error; the fleet is then stopped. A control
// plane that is starting is not interrupted when ctx is done: Options.ControlPlaneStartTimeout bounds it.
func (f *Fleet) Start(ctx context.Context) error {
	f.mu.Lock()
	if f.state != fleetNew {
		f.mu.Unlock()
		return errors.New("unable to start the fleet: it has already been started")
	}
	if f.optsErr != nil {
		f.state = fleetStopped
		f.mu.Unlock()
		return fmt.Errorf("unable to start the fleet: %w", f.optsErr)
	}
	f.state = fleetStarting
	f.inflight.Add(1)
	defer f.inflight.Done()
	f.mu.Unlock()

	begin := time.Now()
	names := make([]string, 0, f.opts.Members+1)
	if !f.opts.NoHost {
		names = append(names, HostName)
	}
	for i := range f.opts.Members {
		names = append(names, f.opts.MemberNamePrefix+strconv.Itoa(i))
	}
	for _, name := range names[len(names)-f.opts.Members:] {
		if err := validateMemberName(name); err != nil {
			f.setStopped()
			return fmt.Errorf("unable to start the fleet: %w", err)
		}
	}

	planes, err := f.startControlPlanes(ctx, names)
	if err != nil {
		f.setStopped()
		return fmt.Errorf("unable to start the fleet: %w", err)
	}

	f.mu.Lock()
	if f.state == fleetStopped {
		f.mu.Unlock()
		// Stop was called while we were starting: it did not see these control planes.
		return errors.Join(errors.New("unable to start the fleet: it was stopped while starting"),
			stopAll(planes))
	}
	for _, cp := range planes {
		if cp.name == HostName && !f.opts.NoHost {
			f.host = cp
			continue
		}
		f.members[cp.name] = cp
	}
	f.state = fleetStarted
	f.mu.Unlock()
	f.opts.Logger.Info("fleet started", "host", !f.opts.NoHost, "members", f.opts.Members,
		"duration", time.Since(begin).Round(time.Millisecond))
	return nil
}

// startControlPlanes creates and starts one control plane per name, in parallel. On error none is left running.
func (f *Fleet) startControlPlanes(ctx context.Context, names []string) ([]*controlPlane, error) {
	planes := make([]*controlPlane, len(names))
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cp, err := newControlPlane(name, &f.opts)
			if err != nil {
				errs[i] = err
				return
			}
			if err := cp.start(ctx); err != nil {
				errs[i] = err
				return
			}
			planes[i] = cp
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		var started []*controlPlane
		for _, cp := range planes {
			if cp != nil {
				started = append(started, cp)
			}
		}
		return nil, errors.Join(err, stopAll(started))
	}
	return planes, nil
}

// setStopped marks the fleet stopped after a failed Start.
func (f *Fleet) setStopped() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.state = fleetStopped
}

// Stop stops every control plane of the fleet and removes their files (etcd data, certificates, port locks). It
// waits for Start and AddMember calls in flight and stops what they start too. It is idempotent and safe to call on
// a fleet that never started; calls after the first return nil. Configs and kubeconfigs of the fleet stop working.
func (f *Fleet) Stop() error {
	f.mu.Lock()
	if f.state == fleetStopped {
		f.mu.Unlock()
		return nil
	}
	f.state = fleetStopped
	planes := make([]*controlPlane, 0, len(f.members)+1)
	if f.host != nil {
		planes = append(planes, f.host)
	}
	for _, cp := range f.members {
		planes = append(planes, cp)
	}
	f.host = nil
	f.members = map[string]*controlPlane{}
	f.mu.Unlock()

	// In-flight starts see the fleet stopped when they finish and stop their control planes themselves.
	f.inflight.Wait()
	err := stopAll(planes)
	if err != nil {
		return fmt.Errorf("unable to stop the fleet: %w", err)
	}
	f.opts.Logger.V(1).Info("fleet stopped")
	return nil
}

// stopAll stops control planes in parallel.
func stopAll(planes []*controlPlane) error {
	errs := make([]error, len(planes))
	var wg sync.WaitGroup
	for i, cp := range planes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = cp.stop()
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Host returns a new copy of the admin config of the host control plane (user "admin" in group
// system:masters, client certificate authentication), or nil if the fleet has no host or is not running.
func (f *Fleet) Host() *rest.Config {
	f.mu.Lock()
	host := f.host
	f.mu.Unlock()
	if host == nil {
		return nil
	}
	cfg, err := host.config()
	if err != nil {
		return nil
	}
	return cfg
}

// HostEnvironment returns the controller-runtime environment of the host control plane, or nil if the fleet has
// no host or is not running. It gives access to everything envtest offers, such as
// HostEnvironment().AddUser; the fleet owns its life cycle, so it must not be started or stopped directly.
func (f *Fleet) HostEnvironment() *envtest.Environment {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.host == nil {
		return nil
	}
	return f.host.env
}

// Environment returns the controller-runtime environment of the named control plane: a member, or the host for
// HostName. The fleet owns its life cycle, so it must not be started or stopped directly. It returns an error
// matching ErrMemberNotFound for unknown names.
func (f *Fleet) Environment(name string) (*envtest.Environment, error) {
	cp, err := f.controlPlane(name)
	if err != nil {
		return nil, err
	}
	return cp.env, nil
}

// AddMember starts a new member control plane named name, waits until it serves requests with the CRDs of the
// options installed, and returns a copy of its admin config. name must be a DNS-1123 subdomain, other than
// HostName and than the name of any member present or being added. The fleet must have been started. On error
// nothing of the member is left running.
func (f *Fleet) AddMember(ctx context.Context, name string) (*rest.Config, error) {
	if err := validateMemberName(name); err != nil {
		return nil, fmt.Errorf("unable to add member: %w", err)
	}
	f.mu.Lock()
	if f.state != fleetStarted {
		f.mu.Unlock()
		return nil, fmt.Errorf("unable to add member %q: the fleet is not running", name)
	}
	if _, exists := f.members[name]; exists {
		f.mu.Unlock()
		return nil, fmt.Errorf("unable to add member %q: the fleet already has a member of that name", name)
	}
	if _, exists := f.adding[name]; exists {
		f.mu.Unlock()
		return nil, fmt.Errorf("unable to add member %q: a member of that name is being added", name)
	}
	f.adding[name] = struct{}{}
	f.inflight.Add(1)
	defer f.inflight.Done()
	f.mu.Unlock()

	cp, err := newControlPlane(name, &f.opts)
	if err == nil {
		err = cp.start(ctx)
	}

	f.mu.Lock()
	delete(f.adding, name)
	if err != nil {
		f.mu.Unlock()
		return nil, fmt.Errorf("unable to add member %q: %w", name, err)
	}
	if f.state != fleetStarted {
		f.mu.Unlock()
		return nil, errors.Join(fmt.Errorf("unable to add member %q: the fleet was stopped", name), cp.stop())
	}
	f.members[name] = cp
	f.mu.Unlock()
	return cp.config()
}

// RemoveMember removes the named member from the fleet and stops its control plane, deleting its data. Its configs
// and kubeconfigs stop working. It returns an error matching ErrMemberNotFound if there is no such member (the host
// cannot be removed).
func (f *Fleet) RemoveMember(name string) error {
	f.mu.Lock()
	cp, ok := f.members[name]
	if ok {
		delete(f.members, name)
	}
	f.mu.Unlock()
	if !ok {
		return fmt.Errorf("unable to remove member %q: %w", name, ErrMemberNotFound)
	}
	return cp.stop()
}

// Members returns the names of the members of the fleet, sorted. It does not include the host, nor members that
// AddMember has not finished adding.
func (f *Fleet) Members() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	names := make([]string, 0, len(f.members))
	for name := range f.members {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// Config returns a new copy of the admin config (user "admin" in group system:masters, client certificate
// authentication) of the named control plane: a member, or the host for HostName. Each call returns a fresh copy
// that the caller may modify. The config stays valid across StopMemberAPIServer and RestartMemberAPIServer. It
// returns an error matching ErrMemberNotFound for unknown names.
func (f *Fleet) Config(name string) (*rest.Config, error) {
	cp, err := f.controlPlane(name)
	if err != nil {
		return nil, err
	}
	return cp.config()
}

// StopMemberAPIServer stops the kube-apiserver process of the named control plane (a member, or the host for
// HostName) and waits for it to exit; etcd keeps running with the data. While the API server is stopped, requests
// to it fail at once with "connection refused", and the port stays reserved for it. Stopping a stopped API server
// is a no-op. It returns an error matching ErrMemberNotFound for unknown names.
func (f *Fleet) StopMemberAPIServer(name string) error {
	cp, err := f.controlPlane(name)
	if err != nil {
		return err
	}
	return cp.stopAPIServer()
}

// RestartMemberAPIServer starts the kube-apiserver of the named control plane (a member, or the host for HostName)
// again after StopMemberAPIServer, on the same address and with the same serving certificates, client CA and
// service account keys, so that every config, kubeconfig and token handed out before works again. It returns once
// the API server is ready (its /readyz answers OK). Restarting a running API server is a no-op. It returns an error
// matching ErrMemberNotFound for unknown names.
func (f *Fleet) RestartMemberAPIServer(ctx context.Context, name string) error {
	cp, err := f.controlPlane(name)
	if err != nil {
		return err
	}
	return cp.restartAPIServer(ctx)
}

// controlPlane looks up a control plane by name.
func (f *Fleet) controlPlane(name string) (*controlPlane, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.state != fleetStarted {
		return nil, fmt.Errorf("control plane %q: the fleet is not running", name)
	}
	if name == HostName && f.host != nil {
		return f.host, nil
	}
	if cp, ok := f.members[name]; ok {
		return cp, nil
	}
	return nil, fmt.Errorf("control plane %q: %w", name, ErrMemberNotFound)
}

// validateMemberName returns an error unless name is usable as a member name.
func validateMemberName(name string) error {
	if name == HostName {
		return fmt.Errorf("member name %q is reserved for the host", name)
	}
	if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
		return fmt.Errorf("invalid member name %q: %s", name, strings.Join(errs, "; "))
	}
	return nil
}
