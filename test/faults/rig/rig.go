// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package rig

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
)

const (
	// Namespace is the namespace of the members that holds the objects the writers write; every cluster's cache
	// covers only it.
	Namespace = "faults"
	// HostNamespace is the namespace of the host that holds the kubeconfig Secrets and the ClusterProfiles.
	HostNamespace = "fleet"
)

// Options configures a rig. The zero value is valid.
type Options struct {
	// Members is the number of members the fleet starts with. Default 3.
	Members int
	// LogVerbosity is the verbosity up to which log lines are written (and searched for credentials). Default 10,
	// which includes the bodies client-go logs.
	LogVerbosity int
	// KeepLevel is the verbosity up to which log lines are kept in memory for tests to search. Default 10.
	KeepLevel int
	// MaxLines caps the lines kept in memory; 0 keeps all.
	MaxLines int
}

func (o Options) withDefaults() Options {
	if o.Members <= 0 {
		o.Members = 3
	}
	if o.LogVerbosity <= 0 {
		o.LogVerbosity = 10
	}
	if o.KeepLevel <= 0 {
		o.KeepLevel = 10
	}
	return o
}

// Tokens are the static bearer tokens every control plane of the rig accepts (kube-apiserver --token-auth-file),
// each for a user in system:masters. They are random per rig.
type Tokens struct {
	// Admin is the token the kubeconfig Secrets use.
	Admin string
	// Rotated is the token credentials are rotated to.
	Rotated string
	// Plugin is the token the credential plugin prints.
	Plugin string
}

// Rig is a running fleet with what the fault suite and the soak need around it. Create it with Start and stop it
// with Stop.
type Rig struct {
	Fleet       *mcenvtest.Fleet
	Logs        *LogCapture
	Credentials *Credentials
	Tokens      Tokens
	// Dir is the rig's working directory, removed by Stop.
	Dir string
	// KubeconfigDir is the directory the file provider reads.
	KubeconfigDir string
	// Plugin is the path of the credential plugin (internal/plugin).
	Plugin string

	mu         sync.Mutex
	identities map[string]string
}

// Start sets the process's loggers (controller-runtime's and klog's) to a LogCapture, builds the credential plugin,
// starts a fleet of opts.Members members and a host with the cluster-inventory-api CRDs, and creates Namespace in
// every member and HostNamespace in the host. On error nothing is left running.
func Start(ctx context.Context, opts Options) (_ *Rig, err error) {
	opts = opts.withDefaults()
	r := &Rig{Credentials: &Credentials{}, identities: map[string]string{}}
	r.Logs = NewLogCapture(opts.LogVerbosity, opts.KeepLevel, opts.MaxLines, r.Credentials)
	logger := r.Logs.Logger()
	logf.SetLogger(logger)
	klog.SetLogger(logger)

	if r.Dir, err = os.MkdirTemp("", "mcr-faults-"); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, r.Stop())
		}
	}()
	r.KubeconfigDir = filepath.Join(r.Dir, "kubeconfigs")
	if err := os.Mkdir(r.KubeconfigDir, 0o700); err != nil {
		return nil, err
	}
	r.Tokens = Tokens{Admin: randomToken(), Rotated: randomToken(), Plugin: randomToken()}
	r.addIdentity("token:admin", r.Tokens.Admin)
	r.addIdentity("token:rotated", r.Tokens.Rotated)
	r.addIdentity("token:plugin", r.Tokens.Plugin)
	r.Credentials.Add("token:admin", []byte(r.Tokens.Admin))
	r.Credentials.Add("token:rotated", []byte(r.Tokens.Rotated))
	r.Credentials.Add("token:plugin", []byte(r.Tokens.Plugin))
	tokens := filepath.Join(r.Dir, "tokens.csv")
	data := fmt.Sprintf("%s,fault-admin,2001,\"system:masters\"\n%s,fault-rotated,2002,\"system:masters\"\n%s,fault-plugin,2003,\"system:masters\"\n",
		r.Tokens.Admin, r.Tokens.Rotated, r.Tokens.Plugin)
	if err := os.WriteFile(tokens, []byte(data), 0o600); err != nil {
		return nil, err
	}
	r.Plugin = filepath.Join(r.Dir, "plugin")
	if err := buildPlugin(ctx, r.Plugin); err != nil {
		return nil, err
	}

	r.Fleet = mcenvtest.NewFleet(mcenvtest.Options{
		Members:               opts.Members,
		CRDDirectoryPaths:     []string{filepath.Join(moduleRoot(), "..", "..", "providers", "cluster-inventory-api", "config", "crd")},
		ErrorIfCRDPathMissing: true,
		APIServerFlags:        map[string][]string{"token-auth-file": {tokens}},
		Logger:                logger.WithName("fleet"),
	})
	if err := r.Fleet.Start(ctx); err != nil {
		return nil, err
	}
	if err := r.registerControlPlane(mcenvtest.HostName); err != nil {
		return nil, err
	}
	if err := r.createNamespace(ctx, mcenvtest.HostName, HostNamespace); err != nil {
		return nil, err
	}
	for _, m := range r.Fleet.Members() {
		if err := r.PrepareMember(ctx, m); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Stop stops the fleet and removes the rig's directory.
func (r *Rig) Stop() error {
	var errs []error
	if r.Fleet != nil {
		errs = append(errs, r.Fleet.Stop())
	}
	if r.Dir != "" {
		errs = append(errs, os.RemoveAll(r.Dir))
	}
	return errors.Join(errs...)
}

// PrepareMember registers the credentials of a member's admin config and creates Namespace in it; call it for a
// member added with Fleet.AddMember.
func (r *Rig) PrepareMember(ctx context.Context, member string) error {
	if err := r.registerControlPlane(member); err != nil {
		return err
	}
	return r.createNamespace(ctx, member, Namespace)
}

// registerControlPlane registers the client key of a control plane's admin config as a credential and its
// certificate as an identity.
func (r *Rig) registerControlPlane(name string) error {
	cfg, err := r.Fleet.Config(name)
	if err != nil {
		return err
	}
	r.Credentials.Add("client-key:"+name, cfg.KeyData)
	r.addIdentity("cert:"+name, string(cfg.CertData))
	return nil
}

// Client returns a direct client of a control plane whose requests log nothing (see Quiet).
func (r *Rig) Client(name string) (client.Client, error) {
	cfg, err := r.Fleet.Config(name)
	if err != nil {
		return nil, err
	}
	return client.New(cfg, client.Options{Scheme: Scheme})
}

// Quiet returns ctx with a logger that discards everything, for the rig's own requests: client-go logs request
// bodies at high verbosity, and the rig's requests carry credentials (kubeconfig Secrets) that would otherwise be
// found in the logs the suite searches for leaks by the library.
func Quiet(ctx context.Context) context.Context {
	return klog.NewContext(ctx, logr.Discard())
}

func (r *Rig) createNamespace(ctx context.Context, controlPlane, ns string) error {
	c, err := r.Client(controlPlane)
	if err != nil {
		return err
	}
	err = c.Create(Quiet(ctx), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating namespace %s in %s: %w", ns, controlPlane, err)
	}
	return nil
}

// addIdentity names a credential for Identity.
func (r *Rig) addIdentity(name, credential string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.identities[fingerprint(credential)] = name
}

// Identity names the endpoint and credentials of a config, as "<host> <credential>", with the credential named as
// the rig named it ("token:admin", "cert:member-0", "exec:<command>"), so that tests can tell through which
// cluster.Cluster a reconcile read.
func (r *Rig) Identity(cfg *rest.Config) string {
	if cfg.ExecProvider != nil {
		return cfg.Host + " exec:" + filepath.Base(cfg.ExecProvider.Command)
	}
	cred := cfg.BearerToken
	if cred == "" {
		cred = string(cfg.CertData)
	}
	r.mu.Lock()
	name, ok := r.identities[fingerprint(cred)]
	r.mu.Unlock()
	if !ok {
		name = "unknown:" + fingerprint(cred)[:8]
	}
	return cfg.Host + " " + name
}

// HostIdentity returns Identity's rendering of a control plane's address with the named credential.
func (r *Rig) HostIdentity(controlPlane, credential string) (string, error) {
	cfg, err := r.Fleet.Config(controlPlane)
	if err != nil {
		return "", err
	}
	return cfg.Host + " " + credential, nil
}

func fingerprint(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// randomToken returns 48 random hex characters.
func randomToken() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// moduleRoot returns the directory of the test/faults module, from the location of this file.
func moduleRoot() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "."
	}
	return filepath.Join(filepath.Dir(file), "..")
}

// buildPlugin builds internal/plugin to path.
func buildPlugin(ctx context.Context, path string) error {
	cmd := exec.CommandContext(ctx, "go", "build", "-o", path, "./internal/plugin")
	cmd.Dir = moduleRoot()
	cmd.Env = append(os.Environ(), "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("building the credential plugin: %w\n%s", err, out)
	}
	return nil
}

// pollInterval paces the rig's polls.
const pollInterval = 20 * time.Millisecond
