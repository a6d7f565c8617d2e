// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package kubeconfigstrategy_test

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	clientcmdv1 "k8s.io/client-go/tools/clientcmd/api/v1"
	"k8s.io/client-go/util/workqueue"
	clusterinventoryv1alpha1 "sigs.k8s.io/cluster-inventory-api/apis/v1alpha1"
	clusteraccess "sigs.k8s.io/cluster-inventory-api/pkg/access"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	"sigs.k8s.io/multicluster-runtime/providers/cluster-inventory-api/access"
	"sigs.k8s.io/multicluster-runtime/providers/cluster-inventory-api/kubeconfigstrategy"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// fleet is a single control plane (the host): the Secret strategy lists Secrets on it.
var fleet *mcenvtest.Fleet

func TestMain(m *testing.M) {
	harness.RunWithFleet(m, &fleet, mcenvtest.Options{})
}

const secretToken = "s3cr3t-token-never-shown"

func kubeconfig(server string) []byte {
	return []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "` + server + `"}}]
users: [{name: u, user: {token: "` + secretToken + `"}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`)
}

func secret(name, consumer, profile string, data []byte) *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: testNamespace, Name: name, Labels: map[string]string{
			kubeconfigstrategy.SecretLabelKeyClusterInventoryConsumer: consumer,
			kubeconfigstrategy.SecretLabelKeyClusterProfile:           profile,
		}},
		Data: map[string][]byte{kubeconfigstrategy.SecretDataKeyKubeConfig: data},
	}
}

// testNamespace holds the Secrets of TestSecretStrategy.
const testNamespace = "fleet"

func TestNewValidatesTheOption(t *testing.T) {
	cfg, err := access.New([]access.Provider{{Name: "token", ExecConfig: &clientcmdapi.ExecConfig{Command: "/bin/token"}}})
	if err != nil {
		t.Fatal(err)
	}
	secretOpt := &kubeconfigstrategy.SecretStrategyOption{ConsumerName: "c"}
	credsOpt := &kubeconfigstrategy.CredentialsProviderOption{Provider: cfg}
	accessOpt := &kubeconfigstrategy.AccessProviderOption{Provider: cfg}
	invalid := &access.Config{Providers: []access.Provider{{Name: "token"}}}
	for name, tc := range map[string]struct {
		opt kubeconfigstrategy.Option
		ok  bool
	}{
		"none":                          {kubeconfigstrategy.Option{}, false},
		"secret and credentials":        {kubeconfigstrategy.Option{Secret: secretOpt, CredentialsProvider: credsOpt}, false},
		"access and secret":             {kubeconfigstrategy.Option{AccessProvider: accessOpt, Secret: secretOpt}, false},
		"access and credentials":        {kubeconfigstrategy.Option{AccessProvider: accessOpt, CredentialsProvider: credsOpt}, false},
		"secret, no name":               {kubeconfigstrategy.Option{Secret: &kubeconfigstrategy.SecretStrategyOption{}}, false},
		"credentials, none":             {kubeconfigstrategy.Option{CredentialsProvider: &kubeconfigstrategy.CredentialsProviderOption{}}, false},
		"access, no config":             {kubeconfigstrategy.Option{AccessProvider: &kubeconfigstrategy.AccessProviderOption{}}, false},
		"access, a plugin w/o command":  {kubeconfigstrategy.Option{AccessProvider: &kubeconfigstrategy.AccessProviderOption{Provider: invalid}}, false},
		"access, Provider and Config":   {kubeconfigstrategy.Option{AccessProvider: &kubeconfigstrategy.AccessProviderOption{Provider: cfg, Config: invalid}}, false},
		"access, the deprecated Config": {kubeconfigstrategy.Option{AccessProvider: &kubeconfigstrategy.AccessProviderOption{Config: cfg}}, true},
		"access providers":              {kubeconfigstrategy.Option{AccessProvider: accessOpt}, true},
		"secret":                        {kubeconfigstrategy.Option{Secret: secretOpt}, true},
		"credential plugins":            {kubeconfigstrategy.Option{CredentialsProvider: credsOpt}, true},
	} {
		if _, err := kubeconfigstrategy.New(t.Context(), tc.opt); (err == nil) != tc.ok {
			t.Errorf("%s: New() error = %v, want ok=%v", name, err, tc.ok)
		}
	}
}

// The AccessProvider strategy builds the profile's config with the plugin of the first configured type it offers,
// reads nothing from the hub (it gets no client) and watches nothing; the deprecated CredentialsProvider option
// builds the same config.
func TestAccessProviderStrategy(t *testing.T) {
	cfg, err := access.New([]access.Provider{
		{Name: "token", ExecConfig: &clientcmdapi.ExecConfig{Command: "/bin/token", APIVersion: "client.authentication.k8s.io/v1"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	clp := &clusterinventoryv1alpha1.ClusterProfile{ObjectMeta: metav1.ObjectMeta{Namespace: testNamespace, Name: "east"}}
	clp.Status.AccessProviders = []clusterinventoryv1alpha1.CredentialProvider{
		{Name: "gkeFleet", Cluster: clientcmdv1.Cluster{Server: "https://gke"}},
		{Name: "token", Cluster: clientcmdv1.Cluster{Server: "https://east"}},
	}
	// A Config of the published package, as the reference's programs read it, unvalidated.
	published := clusteraccess.New([]clusteraccess.Provider{{Name: "token", ExecConfig: &clientcmdapi.ExecConfig{Command: "/bin/token"}}})
	for name, opt := range map[string]kubeconfigstrategy.Option{
		"AccessProvider":      {AccessProvider: &kubeconfigstrategy.AccessProviderOption{Provider: cfg}},
		"published Config":    {AccessProvider: &kubeconfigstrategy.AccessProviderOption{Provider: published}},
		"CredentialsProvider": {CredentialsProvider: &kubeconfigstrategy.CredentialsProviderOption{Provider: cfg}},
	} {
		s, err := kubeconfigstrategy.New(t.Context(), opt)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		rc, err := s.GetKubeConfig(t.Context(), nil, clp)
		if err != nil || rc.Host != "https://east" || rc.ExecProvider == nil || rc.ExecProvider.Command != "/bin/token" {
			t.Errorf("%s: GetKubeConfig() = %v, %v; want the token plugin reaching https://east", name, rc, err)
		}
		if w := s.CustomWatches(); len(w) != 0 {
			t.Errorf("%s: %d watches, want none", name, len(w))
		}
	}
}

// The Secret strategy picks the Secret labelled with its consumer and the profile in the profile's namespace (the
// first by name when there are several), and its errors name the profile without showing the kubeconfig.
func TestSecretStrategy(t *testing.T) {
	cli, err := client.New(fleet.Host(), client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := cli.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: testNamespace}}); err != nil {
		t.Fatal(err)
	}
	for _, obj := range []*corev1.Secret{
		secret("b-east", "me", "east", kubeconfig("https://east-b")),
		secret("a-east", "me", "east", kubeconfig("https://east-a")),
		secret("other-consumer", "someone-else", "west", kubeconfig("https://west")),
		secret("nokey", "me", "nokey", nil),
		secret("broken", "me", "broken", []byte("{"+secretToken)),
	} {
		if err := cli.Create(t.Context(), obj); err != nil {
			t.Fatal(err)
		}
	}
	s, err := kubeconfigstrategy.New(t.Context(), kubeconfigstrategy.Option{Secret: &kubeconfigstrategy.SecretStrategyOption{ConsumerName: "me"}})
	if err != nil {
		t.Fatal(err)
	}
	profile := func(name string) *clusterinventoryv1alpha1.ClusterProfile {
		return &clusterinventoryv1alpha1.ClusterProfile{ObjectMeta: metav1.ObjectMeta{Namespace: testNamespace, Name: name}}
	}

	cfg, err := s.GetKubeConfig(t.Context(), cli, profile("east"))
	if err != nil {
		t.Fatalf("east: %v", err)
	}
	if cfg.Host != "https://east-a" || cfg.BearerToken != secretToken {
		t.Errorf("east: got host %q; want the first Secret by name", cfg.Host)
	}
	for name, want := range map[string]string{
		"west":   "no Secret labelled x-k8s.io/cluster-inventory-consumer=me and x-k8s.io/cluster-profile=west",
		"nokey":  `has no key "Config"`,
		"broken": "cannot parse the kubeconfig",
	} {
		_, err := s.GetKubeConfig(t.Context(), cli, profile(name))
		if err == nil {
			t.Errorf("%s: no error", name)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, testNamespace+"/"+name) || !strings.Contains(msg, want) || strings.Contains(msg, secretToken) {
			t.Errorf("%s: error %q should name the profile, say %q and not show the Secret's data", name, msg, want)
		}
	}
}

// A change to one of the consumer's Secrets re-reconciles the profile it names; other Secrets are ignored.
func TestSecretStrategyWatches(t *testing.T) {
	s, err := kubeconfigstrategy.New(t.Context(), kubeconfigstrategy.Option{Secret: &kubeconfigstrategy.SecretStrategyOption{ConsumerName: "me"}})
	if err != nil {
		t.Fatal(err)
	}
	watches := s.CustomWatches()
	if len(watches) != 1 {
		t.Fatalf("%d watches, want 1", len(watches))
	}
	if _, ok := watches[0].Object.(*corev1.Secret); !ok {
		t.Fatalf("the watch is of %T, want Secrets", watches[0].Object)
	}
	q := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[reconcile.Request]())
	defer q.ShutDown()
	watches[0].EventHandler.Update(t.Context(), event.UpdateEvent{ObjectOld: secret("x", "me", "east", nil), ObjectNew: secret("x", "me", "east", nil)}, q)
	if q.Len() != 1 {
		t.Fatalf("queue length %d, want 1", q.Len())
	}
	if req, _ := q.Get(); req.NamespacedName != (client.ObjectKey{Namespace: testNamespace, Name: "east"}) {
		t.Errorf("enqueued %v, want fleet/east", req)
	}
}
