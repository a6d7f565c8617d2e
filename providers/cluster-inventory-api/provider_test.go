package clusterinventoryapi_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdv1 "k8s.io/client-go/tools/clientcmd/api/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	clusterinventoryapi "sigs.k8s.io/multicluster-runtime/providers/cluster-inventory-api"
	aboutv1alpha1 "sigs.k8s.io/multicluster-runtime/providers/cluster-inventory-api/apis/about/v1alpha1"
	clusterinventoryv1alpha1 "sigs.k8s.io/multicluster-runtime/providers/cluster-inventory-api/apis/v1alpha1"
	"sigs.k8s.io/multicluster-runtime/providers/cluster-inventory-api/credentials"
	"sigs.k8s.io/multicluster-runtime/providers/cluster-inventory-api/kubeconfigstrategy"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

const consumer = "test-controller"

// setKubeconfigSecret creates or updates the Secret strategy's Secret of profile ns/name: the kubeconfig of member.
func setKubeconfigSecret(t testing.TB, ns, name, member string) {
	t.Helper()
	data, err := fleet.Kubeconfig(member)
	if err != nil {
		t.Fatal(err)
	}
	c := hubClient(t)
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name + "-kubeconfig", Labels: map[string]string{
		kubeconfigstrategy.SecretLabelKeyClusterInventoryConsumer: consumer,
		kubeconfigstrategy.SecretLabelKeyClusterProfile:           name,
	}}}
	err = c.Get(t.Context(), client.ObjectKeyFromObject(secret), secret)
	secret.Data = map[string][]byte{kubeconfigstrategy.SecretDataKeyKubeConfig: data}
	switch {
	case err == nil:
		err = c.Update(t.Context(), secret)
	case client.IgnoreNotFound(err) == nil:
		err = c.Create(t.Context(), secret)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// The Secret strategy through a profile's life: not ready → left alone; ready → engaged as "<namespace>/<name>" and
// reconciled; its Secret rotated to another API server → replaced; Joined turning False → disengaged; ready again →
// engaged; deleted → disengaged. A ready profile without a Secret gets a Warning event naming it.
func TestSecretStrategy(t *testing.T) {
	ns := newNamespace(t, "cip-secret", hub, "member-0", "member-1")
	createConfigMap(t, "member-0", ns, "obj")
	createConfigMap(t, "member-1", ns, "obj")
	p, mgr, rec, _ := start(t, clusterinventoryapi.Options{
		KubeconfigStrategyOption: kubeconfigstrategy.Option{Secret: &kubeconfigstrategy.SecretStrategyOption{ConsumerName: consumer}},
		ClusterOptions:           []cluster.Option{inNamespace(ns)},
	})
	name := ns + "/prof"

	setKubeconfigSecret(t, ns, "prof", "member-0")
	clp := createProfile(t, ns, "prof", false, nil)
	harness.Consistently(t, 2*time.Second, "a profile that is not ready is not engaged", func() bool { return len(namesIn(p, ns)) == 0 })

	setReady(t, clp, true)
	harness.Eventually(t, 0, name+" reconciled on member-0", func() bool { return rec.Has(seen(name, "obj", "member-0")) })

	setKubeconfigSecret(t, ns, "prof", "member-1")
	harness.Eventually(t, 0, name+" replaced by a cluster on member-1", func() bool { return rec.Has(seen(name, "obj", "member-1")) })

	setReady(t, clp, false)
	harness.Eventually(t, 0, name+" disengaged when not ready", func() bool {
		_, err := mgr.GetCluster(t.Context(), name)
		return errors.Is(err, multicluster.ErrClusterNotFound)
	})
	setReady(t, clp, true)
	harness.Eventually(t, 0, name+" engaged again", func() bool { return slices.Contains(p.ClusterNames(), name) })

	if err := hubClient(t).Delete(t.Context(), clp); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, 0, name+" disengaged when deleted", func() bool { return len(namesIn(p, ns)) == 0 })

	createProfile(t, ns, "nosecret", true, nil)
	harness.Eventually(t, 0, "a Warning event naming the profile without a Secret", func() bool {
		for _, msg := range warnings(t, ns, "nosecret") {
			if strings.Contains(msg, ns+"/nosecret") {
				return true
			}
		}
		return false
	})
}

// hub is the hub's name in the fleet, for newNamespace.
const hub = "host"

// credentialEntry is a credentialProviders entry of type name reaching member, with an extension for the plugin.
func credentialEntry(t testing.TB, name, member string) clusterinventoryv1alpha1.CredentialProvider {
	t.Helper()
	data, err := fleet.Kubeconfig(member)
	if err != nil {
		t.Fatal(err)
	}
	kc, err := clientcmd.Load(data)
	if err != nil {
		t.Fatal(err)
	}
	src := kc.Clusters[member]
	cl := clientcmdv1.Cluster{
		Server:                   src.Server,
		CertificateAuthorityData: src.CertificateAuthorityData,
		Extensions: []clientcmdv1.NamedExtension{{
			Name:      "client.authentication.k8s.io/exec",
			Extension: runtime.RawExtension{Raw: []byte(`{"audience":"fleet"}`)},
		}},
	}
	raw, err := json.Marshal(cl)
	if err != nil {
		t.Fatal(err)
	}
	return clusterinventoryv1alpha1.CredentialProvider{Name: name, Cluster: runtime.RawExtension{Raw: raw}}
}

// writeProviderFile writes a KEP-5339 credential-provider file with the test plugin under the types "token"
// (returns the token the fleet accepts, writing the cluster info it gets to infoFile) and "broken" (fails).
func writeProviderFile(t testing.TB, infoFile string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), credentials.DefaultProviderFile)
	file := `{"providers": [
  {"name": "token", "execConfig": {"apiVersion": "client.authentication.k8s.io/v1beta1", "command": "` + plugin + `",
    "env": [{"name": "PLUGIN_TOKEN", "value": "` + pluginToken + `"}, {"name": "PLUGIN_INFO_FILE", "value": "` + infoFile + `"}],
    "provideClusterInfo": true}},
  {"name": "broken", "execConfig": {"apiVersion": "client.authentication.k8s.io/v1beta1", "command": "` + plugin + `",
    "env": [{"name": "PLUGIN_FAIL", "value": "1"}]}}
]}`
	if err := os.WriteFile(path, []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// The credential-plugin strategy with a real plugin executable: a ready profile offering the "token" type is
// reached with the token the plugin returns (the API server accepts it from its static token file), and the plugin
// gets the cluster's details and extension. A profile offering only "broken", whose plugin fails, and one offering
// no configured type, are not engaged and get Warning events naming the profile and the type; neither holds up
// the healthy profile, and no token appears in them or in the log. A new endpoint in the profile replaces the
// cluster.
func TestCredentialPluginStrategy(t *testing.T) {
	ns := newNamespace(t, "cip-plugin", hub, "member-0", "member-1")
	createConfigMap(t, "member-0", ns, "obj")
	createConfigMap(t, "member-1", ns, "obj")
	infoFile := filepath.Join(t.TempDir(), "exec-info.json")
	cp, err := credentials.NewFromFile(writeProviderFile(t, infoFile))
	if err != nil {
		t.Fatal(err)
	}
	logs := &logBuffer{}
	p, _, rec, _ := start(t, clusterinventoryapi.Options{
		KubeconfigStrategyOption: kubeconfigstrategy.Option{CredentialsProvider: &kubeconfigstrategy.CredentialsProviderOption{Provider: cp}},
		ClusterOptions:           []cluster.Option{inNamespace(ns)},
		ProbeTimeout:             5 * time.Second,
	}, logs)

	createProfile(t, ns, "broken", true, []clusterinventoryv1alpha1.CredentialProvider{credentialEntry(t, "broken", "member-1")})
	createProfile(t, ns, "unknown", true, []clusterinventoryv1alpha1.CredentialProvider{credentialEntry(t, "gkeFleet", "member-1")})
	good := createProfile(t, ns, "good", true, []clusterinventoryv1alpha1.CredentialProvider{
		credentialEntry(t, "gkeFleet", "member-1"), credentialEntry(t, "token", "member-0"),
	})
	harness.Eventually(t, 0, ns+"/good reconciled with the plugin's token", func() bool {
		return rec.Has(seen(ns+"/good", "obj", "member-0"))
	})
	info, err := os.ReadFile(infoFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"server":"https://127.0.0.1`, `"audience":"fleet"`} {
		if !strings.Contains(string(info), want) {
			t.Errorf("the plugin's KUBERNETES_EXEC_INFO lacks %s: %s", want, info)
		}
	}

	named := func(profile, what string) func() bool {
		return func() bool {
			for _, msg := range warnings(t, ns, profile) {
				if strings.Contains(msg, ns+"/"+profile) && strings.Contains(msg, what) {
					return true
				}
			}
			return false
		}
	}
	harness.Eventually(t, 0, "a Warning naming the broken profile, its plugin and the failure", func() bool {
		return named("broken", "credential plugin "+plugin)() && named("broken", "exit")()
	})
	harness.Eventually(t, 0, "a Warning naming the profile with no configured type", named("unknown", "gkeFleet"))
	if got := namesIn(p, ns); !slices.Equal(got, []string{ns + "/good"}) {
		t.Errorf("engaged %v, want only %s/good", got, ns)
	}
	for _, profile := range []string{"broken", "unknown"} {
		for _, msg := range warnings(t, ns, profile) {
			if strings.Contains(msg, pluginToken) {
				t.Errorf("event %q shows the token", msg)
			}
		}
	}

	// A new endpoint for the plugin's type replaces the cluster.
	good.Status.CredentialProviders = []clusterinventoryv1alpha1.CredentialProvider{credentialEntry(t, "token", "member-1")}
	if err := hubClient(t).Status().Update(t.Context(), good); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, 0, ns+"/good replaced by a cluster on member-1", func() bool {
		return rec.Has(seen(ns+"/good", "obj", "member-1"))
	})

	out := logs.String()
	for _, want := range []string{`"Engaged cluster"`, `"cluster":"` + ns + `/good"`, `"Cannot engage cluster, retrying"`, ns + "/broken"} {
		if !strings.Contains(out, want) {
			t.Errorf("the log lacks %s", want)
		}
	}
	if strings.Contains(out, pluginToken) {
		t.Error("the log shows the token")
	}
}

// With ClusterIDName, a profile carrying the KEP-2149 cluster ID property is engaged under its ID, and one without
// under "<namespace>/<name>".
func TestClusterIDNaming(t *testing.T) {
	ns := newNamespace(t, "cip-id", hub, "member-0")
	createConfigMap(t, "member-0", ns, "obj")
	p, _, rec, _ := start(t, clusterinventoryapi.Options{
		KubeconfigStrategyOption: kubeconfigstrategy.Option{Secret: &kubeconfigstrategy.SecretStrategyOption{ConsumerName: consumer}},
		ClusterOptions:           []cluster.Option{inNamespace(ns)},
		ClusterName:              clusterinventoryapi.ClusterIDName,
	})
	id := ns + "-id.example.com"
	setKubeconfigSecret(t, ns, "withid", "member-0")
	setKubeconfigSecret(t, ns, "noid", "member-0")
	createProfile(t, ns, "withid", true, nil, clusterinventoryv1alpha1.Property{Name: aboutv1alpha1.ClusterIDPropertyName, Value: id})
	createProfile(t, ns, "noid", true, nil)
	harness.Eventually(t, 0, "engaged under the cluster ID and the profile name", func() bool {
		return rec.Has(seen(id, "obj", "member-0")) && rec.Has(seen(ns+"/noid", "obj", "member-0"))
	})
	if names := p.ClusterNames(); slices.Contains(names, ns+"/withid") {
		t.Errorf("the profile with an ID is also engaged under its profile name: %v", names)
	}
}
