package kubeconfigstrategy_test

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	clusterinventoryv1alpha1 "sigs.k8s.io/multicluster-runtime/providers/cluster-inventory-api/apis/v1alpha1"
	"sigs.k8s.io/multicluster-runtime/providers/cluster-inventory-api/credentials"
	"sigs.k8s.io/multicluster-runtime/providers/cluster-inventory-api/kubeconfigstrategy"
)

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
		ObjectMeta: metav1.ObjectMeta{Namespace: "fleet", Name: name, Labels: map[string]string{
			kubeconfigstrategy.SecretLabelKeyClusterInventoryConsumer: consumer,
			kubeconfigstrategy.SecretLabelKeyClusterProfile:           profile,
		}},
		Data: map[string][]byte{kubeconfigstrategy.SecretDataKeyKubeConfig: data},
	}
}

func TestNewValidatesTheOption(t *testing.T) {
	cp, err := credentials.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		opt kubeconfigstrategy.Option
		ok  bool
	}{
		"none":               {kubeconfigstrategy.Option{}, false},
		"both":               {kubeconfigstrategy.Option{Secret: &kubeconfigstrategy.SecretStrategyOption{ConsumerName: "c"}, CredentialsProvider: &kubeconfigstrategy.CredentialsProviderOption{Provider: cp}}, false},
		"secret, no name":    {kubeconfigstrategy.Option{Secret: &kubeconfigstrategy.SecretStrategyOption{}}, false},
		"plugins, none":      {kubeconfigstrategy.Option{CredentialsProvider: &kubeconfigstrategy.CredentialsProviderOption{}}, false},
		"secret":             {kubeconfigstrategy.Option{Secret: &kubeconfigstrategy.SecretStrategyOption{ConsumerName: "c"}}, true},
		"credential plugins": {kubeconfigstrategy.Option{CredentialsProvider: &kubeconfigstrategy.CredentialsProviderOption{Provider: cp}}, true},
	} {
		if _, err := kubeconfigstrategy.New(t.Context(), tc.opt); (err == nil) != tc.ok {
			t.Errorf("%s: New() error = %v, want ok=%v", name, err, tc.ok)
		}
	}
}

// The Secret strategy picks the Secret labelled with its consumer and the profile in the profile's namespace (the
// first by name when there are several), and its errors name the profile without showing the kubeconfig.
func TestSecretStrategy(t *testing.T) {
	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	cli := fake.NewClientBuilder().WithScheme(scheme).WithObjects(
		secret("b-east", "me", "east", kubeconfig("https://east-b")),
		secret("a-east", "me", "east", kubeconfig("https://east-a")),
		secret("other-consumer", "someone-else", "west", kubeconfig("https://west")),
		secret("nokey", "me", "nokey", nil),
		secret("broken", "me", "broken", []byte("{"+secretToken)),
	).Build()
	s, err := kubeconfigstrategy.New(t.Context(), kubeconfigstrategy.Option{Secret: &kubeconfigstrategy.SecretStrategyOption{ConsumerName: "me"}})
	if err != nil {
		t.Fatal(err)
	}
	profile := func(name string) *clusterinventoryv1alpha1.ClusterProfile {
		return &clusterinventoryv1alpha1.ClusterProfile{ObjectMeta: metav1.ObjectMeta{Namespace: "fleet", Name: name}}
	}

	cfg, err := s.GetKubeConfig(t.Context(), cli, profile("east"))
	if err != nil || cfg.Host != "https://east-a" || cfg.BearerToken != secretToken {
		t.Errorf("east: got host %q, error %v; want the first Secret by name", cfg.Host, err)
	}
	for name, want := range map[string]string{
		"west":   "no Secret labelled x-k8s.io/cluster-inventory-consumer=me and x-k8s.io/cluster-profile=west",
		"nokey":  `has no key "Config"`,
		"broken": "cannot parse its kubeconfig",
	} {
		_, err := s.GetKubeConfig(t.Context(), cli, profile(name))
		if err == nil {
			t.Errorf("%s: no error", name)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, "fleet/"+name) || !strings.Contains(msg, want) || strings.Contains(msg, secretToken) {
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
	if req, _ := q.Get(); req.NamespacedName != (client.ObjectKey{Namespace: "fleet", Name: "east"}) {
		t.Errorf("enqueued %v, want fleet/east", req)
	}
}
