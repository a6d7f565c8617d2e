// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package envtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// listenHost is the address every API server of a fleet serves on.
const listenHost = "127.0.0.1"

// controlPlane is one etcd and kube-apiserver pair of a fleet, set up so that its API server can be stopped and
// started again on the same address with the same serving certificates: the kit reserves its port and owns its
// certificate directory, and envtest keeps both across APIServer.Stop and APIServer.Start when they are set before
// the first start. The kit also owns etcd's data directory, so that it can always remove everything.
type controlPlane struct {
	name string
	log  logr.Logger
	opts *Options

	// env, dir and port are set by newControlPlane and never change. dir holds the API server's certificates and
	// etcd's data.
	env  *envtest.Environment
	dir  string
	port *portReservation

	// mu serialises start, stop and the API server's stop and restart. It guards the fields below and the state
	// of env; env itself is handed out (Fleet.Environment) without it.
	mu               sync.Mutex
	started          bool
	stopped          bool
	apiServerStopped bool
	// apiServerPaused is set while PauseMemberAPIServer holds the API server process, apiServerPausedPID, stopped.
	apiServerPaused    bool
	apiServerPausedPID int

	// admin is the admin config while the control plane runs, nil before and after. It is read without mu, so
	// that configs can be had while an API server restarts.
	admin atomic.Pointer[rest.Config]
}

// newControlPlane reserves a port and a directory for a control plane and configures its environment.
// Nothing runs until start.
func newControlPlane(name string, opts *Options) (*controlPlane, error) {
	port, err := reservePort(listenHost)
	if err != nil {
		return nil, fmt.Errorf("unable to reserve a port for control plane %q: %w", name, err)
	}
	dir, err := os.MkdirTemp("", "mcenvtest-"+name+"-")
	if err != nil {
		port.release()
		return nil, fmt.Errorf("unable to create the directory of control plane %q: %w", name, err)
	}
	certDir, dataDir := filepath.Join(dir, "certs"), filepath.Join(dir, "etcd")
	for _, d := range []string{certDir, dataDir} {
		if err := os.Mkdir(d, 0o700); err != nil {
			port.release()
			_ = os.RemoveAll(dir)
			return nil, fmt.Errorf("unable to create the directory of control plane %q: %w", name, err)
		}
	}

	useExistingCluster := false
	crds := make([]*apiextensionsv1.CustomResourceDefinition, 0, len(opts.CRDs))
	for _, crd := range opts.CRDs {
		// envtest writes into the CRDs it installs, and control planes start concurrently.
		crds = append(crds, crd.DeepCopy())
	}
	env := &envtest.Environment{
		Scheme:                   opts.Scheme,
		CRDDirectoryPaths:        append([]string(nil), opts.CRDDirectoryPaths...),
		CRDs:                     crds,
		ErrorIfCRDPathMissing:    opts.ErrorIfCRDPathMissing,
		BinaryAssetsDirectory:    opts.BinaryAssetsDirectory,
		ControlPlaneStartTimeout: opts.ControlPlaneStartTimeout,
		ControlPlaneStopTimeout:  opts.ControlPlaneStopTimeout,
		AttachControlPlaneOutput: opts.AttachControlPlaneOutput,
		// A fleet always runs its own control planes, whatever USE_EXISTING_CLUSTER says.
		UseExistingCluster: &useExistingCluster,
	}
	// Explicit paths, so that Options.BinaryAssetsDirectory wins over KUBEBUILDER_ASSETS, which envtest would
	// otherwise prefer. The kit owns the data directory, as envtest leaves the one it creates behind when etcd
	// fails to start.
	env.ControlPlane.Etcd = &envtest.Etcd{
		Path:    binaryPath(opts.BinaryAssetsDirectory, etcdBinary),
		DataDir: dataDir,
	}
	apiServer := env.ControlPlane.GetAPIServer()
	apiServer.Path = binaryPath(opts.BinaryAssetsDirectory, apiServerBinary)
	// Set before the first start, these survive APIServer.Stop: envtest only clears a certificate directory it
	// created itself, reuses the certificates it finds in the directory, and only picks a port when none is set.
	apiServer.CertDir = certDir
	apiServer.SecureServing.ListenAddr = envtest.ListenAddr{Address: listenHost, Port: strconv.Itoa(port.port)}
	args := apiServer.Configure()
	for flag, values := range opts.APIServerFlags {
		if len(values) == 0 {
			args.Enable(flag)
			continue
		}
		args.Set(flag, values...)
	}
	if opts.ConfigureControlPlane != nil {
		opts.ConfigureControlPlane(name, env)
	}

	return &controlPlane{
		name: name,
		log:  opts.Logger.WithValues("controlPlane", name),
		opts: opts,
		env:  env,
		dir:  dir,
		port: port,
	}, nil
}

// start starts etcd and kube-apiserver, installs the CRDs and waits for the API server to be ready. On error it
// leaves nothing running and nothing on disk.
func (cp *controlPlane) start(ctx context.Context) error {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	if cp.started || cp.stopped {
		return fmt.Errorf("control plane %q has already been started", cp.name)
	}
	if err := ctx.Err(); err != nil {
		_ = cp.stopLocked()
		return fmt.Errorf("unable to start control plane %q: %w", cp.name, err)
	}
	cp.started = true

	begin := time.Now()
	cp.log.V(1).Info("starting control plane", "address", cp.address())
	// envtest.Environment.Start cannot be cancelled; it is bounded by ControlPlaneStartTimeout.
	cfg, err := cp.env.Start()
	if err == nil {
		err = waitReady(ctx, cfg, cp.opts.ControlPlaneStartTimeout)
	}
	if err != nil {
		if stopErr := cp.stopLocked(); stopErr != nil {
			cp.log.Error(stopErr, "unable to clean up after a failed start")
		}
		return fmt.Errorf("unable to start control plane %q: %w", cp.name, err)
	}
	cp.admin.Store(cfg)
	cp.log.Info("control plane started", "address", cp.address(), "duration", time.Since(begin).Round(time.Millisecond))
	return nil
}

// stop stops kube-apiserver and etcd and removes everything the control plane wrote. It is idempotent.
func (cp *controlPlane) stop() error {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	return cp.stopLocked()
}

func (cp *controlPlane) stopLocked() error {
	if cp.stopped {
		return nil
	}
	cp.stopped = true
	cp.admin.Store(nil)
	var errs []error
	// A paused process cannot act on the SIGTERM of a graceful stop.
	if err := cp.resumeAPIServerLocked(); err != nil {
		errs = append(errs, err)
	}
	if cp.started {
		if err := cp.env.Stop(); err != nil {
			errs = append(errs, fmt.Errorf("unable to stop control plane %q: %w", cp.name, err))
		}
	}
	if err := os.RemoveAll(cp.dir); err != nil {
		errs = append(errs, fmt.Errorf("unable to remove the directory of control plane %q: %w", cp.name, err))
	}
	cp.port.release()
	if cp.started {
		cp.log.V(1).Info("control plane stopped")
	}
	return errors.Join(errs...)
}

// stopAPIServer stops kube-apiserver and leaves etcd running. It is a no-op if the API server is already stopped.
func (cp *controlPlane) stopAPIServer() error {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	if err := cp.runningLocked(); err != nil {
		return err
	}
	if cp.apiServerStopped {
		return nil
	}
	// A paused process cannot act on the SIGTERM of a graceful stop.
	if err := cp.resumeAPIServerLocked(); err != nil {
		return err
	}
	cp.apiServerStopped = true
	begin := time.Now()
	if err := cp.env.ControlPlane.GetAPIServer().Stop(); err != nil {
		return fmt.Errorf("unable to stop the API server of control plane %q: %w", cp.name, err)
	}
	cp.log.V(1).Info("API server stopped", "duration", time.Since(begin).Round(time.Millisecond))
	return nil
}

// restartAPIServer starts kube-apiserver again on the same address with the same certificates, and waits for it
// to be ready. It is a no-op if the API server runs.
func (cp *controlPlane) restartAPIServer(ctx context.Context) error {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	if err := cp.runningLocked(); err != nil {
		return err
	}
	if !cp.apiServerStopped {
		return nil
	}
	begin := time.Now()
	apiServer := cp.env.ControlPlane.GetAPIServer()
	if err := apiServer.Start(); err != nil {
		// Make sure nothing is left half started; the API server stays stopped and can be restarted again.
		_ = apiServer.Stop()
		return fmt.Errorf("unable to restart the API server of control plane %q: %w", cp.name, err)
	}
	cp.apiServerStopped = false
	if got := apiServer.SecureServing.Port; got != strconv.Itoa(cp.port.port) {
		return fmt.Errorf("the API server of control plane %q restarted on port %s instead of %d", cp.name, got,
			cp.port.port)
	}
	if err := waitReady(ctx, cp.admin.Load(), cp.opts.ControlPlaneStartTimeout); err != nil {
		return fmt.Errorf("restarted API server of control plane %q: %w", cp.name, err)
	}
	cp.log.V(1).Info("API server restarted", "address", cp.address(),
		"duration", time.Since(begin).Round(time.Millisecond))
	return nil
}

// config returns a copy of the admin config.
func (cp *controlPlane) config() (*rest.Config, error) {
	admin := cp.admin.Load()
	if admin == nil {
		return nil, fmt.Errorf("control plane %q is not running", cp.name)
	}
	return copyConfig(admin), nil
}

// addUser provisions a client certificate for user, valid across API server restarts.
func (cp *controlPlane) addUser(user envtest.User, base *rest.Config) (*rest.Config, error) {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	if err := cp.runningLocked(); err != nil {
		return nil, err
	}
	if base == nil {
		admin := cp.admin.Load()
		base = &rest.Config{QPS: admin.QPS, Burst: admin.Burst}
	}
	authenticated, err := cp.env.AddUser(user, base)
	if err != nil {
		return nil, fmt.Errorf("unable to provision user %q in control plane %q: %w", user.Name, cp.name, err)
	}
	return copyConfig(authenticated.Config()), nil
}

// runningLocked returns an error unless the control plane has started and not stopped.
func (cp *controlPlane) runningLocked() error {
	if !cp.started || cp.stopped || cp.admin.Load() == nil {
		return fmt.Errorf("control plane %q is not running", cp.name)
	}
	return nil
}

// address returns host:port of the API server.
func (cp *controlPlane) address() string {
	return listenHost + ":" + strconv.Itoa(cp.port.port)
}

// copyConfig returns a copy of cfg that shares no memory with it: rest.CopyConfig shares the certificate and key
// bytes.
func copyConfig(cfg *rest.Config) *rest.Config {
	c := rest.CopyConfig(cfg)
	c.CAData = bytes.Clone(cfg.CAData)
	c.CertData = bytes.Clone(cfg.CertData)
	c.KeyData = bytes.Clone(cfg.KeyData)
	return c
}
