// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package envtest

import (
	"fmt"
	"os"
	"time"

	"github.com/go-logr/logr"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
)

// HostName is the name of the host control plane. It is passed to Options.ConfigureControlPlane for the host, it is
// accepted wherever a method takes the name of a control plane of the fleet (Config, Kubeconfig, AddUser, ...), and
// it is therefore not allowed as a member name.
const HostName = "host"

// DefaultMemberNamePrefix is the default of Options.MemberNamePrefix.
const DefaultMemberNamePrefix = "member-"

// DefaultControlPlaneStartTimeout is the default of Options.ControlPlaneStartTimeout. It is longer than
// controller-runtime's default of 20 seconds because a fleet starts several control planes at once.
const DefaultControlPlaneStartTimeout = 60 * time.Second

// DefaultControlPlaneStopTimeout is the default of Options.ControlPlaneStopTimeout.
const DefaultControlPlaneStopTimeout = 20 * time.Second

// Environment variables controller-runtime's envtest reads for its timeouts; the kit honours them too.
const (
	envStartTimeout = "KUBEBUILDER_CONTROLPLANE_START_TIMEOUT"
	envStopTimeout  = "KUBEBUILDER_CONTROLPLANE_STOP_TIMEOUT"
)

// Options configures a Fleet. The zero value is valid: it describes a fleet with a host control plane and no
// members. NewFleet applies the documented defaults in one step.
type Options struct {
	// Members is the number of members Start starts along with the host. They are named MemberNamePrefix followed
	// by their index: "member-0", "member-1", and so on. Defaults to 0; negative values are treated as 0.
	Members int

	// MemberNamePrefix is the prefix of the names of the members Start starts. Defaults to DefaultMemberNamePrefix
	// ("member-").
	MemberNamePrefix string

	// NoHost disables the host control plane. By default a fleet has a host: a control plane of its own, apart
	// from the members, for the manager (the cluster a multi-cluster manager runs in and keeps its leases in). With
	// NoHost, Host and HostEnvironment return nil.
	NoHost bool

	// CRDDirectoryPaths lists files and directories of CustomResourceDefinitions (YAML or JSON) to install into
	// every control plane of the fleet, the host included, before it is reported started. Paths that do not exist
	// are ignored unless ErrorIfCRDPathMissing is set.
	CRDDirectoryPaths []string

	// CRDs lists CustomResourceDefinitions to install into every control plane, along with those of
	// CRDDirectoryPaths. Each control plane installs its own deep copies.
	CRDs []*apiextensionsv1.CustomResourceDefinition

	// ErrorIfCRDPathMissing makes starting a control plane fail if a path of CRDDirectoryPaths does not exist.
	ErrorIfCRDPathMissing bool

	// Scheme is used when installing CRDs, to tell whether a CRD needs a conversion webhook. Defaults to
	// client-go's scheme.Scheme.
	Scheme *runtime.Scheme

	// BinaryAssetsDirectory is the directory that holds the etcd and kube-apiserver binaries. Defaults to the
	// result of the package function BinaryAssetsDirectory, which reads KUBEBUILDER_ASSETS and the cache of
	// hack/envtest-assets.sh. As in controller-runtime, the TEST_ASSET_ETCD and TEST_ASSET_KUBE_APISERVER
	// environment variables take precedence for the binary they name.
	BinaryAssetsDirectory string

	// APIServerFlags are extra kube-apiserver flags (names without the leading dashes) set on every control plane
	// of the fleet. Each replaces the value envtest would pass for that flag (envtest disables the ServiceAccount
	// admission plugin, for instance); an empty slice passes the flag without a value. Flags that envtest needs to
	// wire the control plane together (serving address and port, certificates, etcd servers) must not be set here.
	//
	// By default the kit adds no flags to envtest's: each control plane runs kube-apiserver's defaults, as a real
	// cluster would. Flags that looked like they would make it lighter (disabling API priority and fairness, most
	// admission plugins, profiling, the endpoint reconciler or the watch cache) made no measurable difference to
	// its memory, start-up CPU or idle CPU.
	APIServerFlags map[string][]string

	// ConfigureControlPlane, if set, is called with every control plane's name (HostName for the host) and
	// environment right before it starts, after the kit has configured it, so it has the last word. It may for
	// example set more flags with env.ControlPlane.GetAPIServer().Configure(). It must not start the environment,
	// nor change the API server's SecureServing or CertDir, which the kit owns. It is called from several goroutines
	// at once when several control planes start together.
	ConfigureControlPlane func(name string, env *envtest.Environment)

	// ControlPlaneStartTimeout bounds how long each of etcd and kube-apiserver may take to start, on first start
	// and on restarts. Defaults to the KUBEBUILDER_CONTROLPLANE_START_TIMEOUT environment variable if set, else to
	// DefaultControlPlaneStartTimeout.
	ControlPlaneStartTimeout time.Duration

	// ControlPlaneStopTimeout bounds how long each of etcd and kube-apiserver may take to stop before it is killed.
	// Defaults to the KUBEBUILDER_CONTROLPLANE_STOP_TIMEOUT environment variable if set, else to
	// DefaultControlPlaneStopTimeout.
	ControlPlaneStopTimeout time.Duration

	// AttachControlPlaneOutput sends the output of etcd and kube-apiserver to os.Stdout and os.Stderr, which helps
	// to debug a control plane that does not start. Also enabled by KUBEBUILDER_ATTACH_CONTROL_PLANE_OUTPUT=true.
	AttachControlPlaneOutput bool

	// Logger receives the kit's log lines (control planes starting and stopping, with their names). Defaults to
	// controller-runtime's global logger (sigs.k8s.io/controller-runtime/pkg/log.Log) named "fleet-envtest".
	Logger logr.Logger
}

// withDefaults returns a copy of o with every default applied.
func (o Options) withDefaults() (Options, error) {
	if o.Members < 0 {
		o.Members = 0
	}
	if o.MemberNamePrefix == "" {
		o.MemberNamePrefix = DefaultMemberNamePrefix
	}
	if o.Scheme == nil {
		o.Scheme = scheme.Scheme
	}
	if o.BinaryAssetsDirectory == "" {
		dir, err := BinaryAssetsDirectory()
		if err != nil {
			return o, err
		}
		o.BinaryAssetsDirectory = dir
	}
	var err error
	if o.ControlPlaneStartTimeout, err = durationDefault(o.ControlPlaneStartTimeout, envStartTimeout,
		DefaultControlPlaneStartTimeout); err != nil {
		return o, err
	}
	if o.ControlPlaneStopTimeout, err = durationDefault(o.ControlPlaneStopTimeout, envStopTimeout,
		DefaultControlPlaneStopTimeout); err != nil {
		return o, err
	}
	flags := make(map[string][]string, len(o.APIServerFlags))
	for name, values := range o.APIServerFlags {
		flags[name] = append([]string{}, values...)
	}
	o.APIServerFlags = flags
	if o.Logger.GetSink() == nil {
		o.Logger = logf.Log.WithName("fleet-envtest")
	}
	return o, nil
}

// durationDefault returns d if set, else the duration in the environment variable env if set, else def.
func durationDefault(d time.Duration, env string, def time.Duration) (time.Duration, error) {
	if d != 0 {
		return d, nil
	}
	if v := os.Getenv(env); v != "" {
		parsed, err := time.ParseDuration(v)
		if err != nil {
			return 0, fmt.Errorf("unable to parse %s=%q: %w", env, v, err)
		}
		return parsed, nil
	}
	return def, nil
}
