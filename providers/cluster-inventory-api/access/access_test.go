package access_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	clientcmdv1 "k8s.io/client-go/tools/clientcmd/api/v1"

	"sigs.k8s.io/multicluster-runtime/providers/cluster-inventory-api/access"
	clusterinventoryv1alpha1 "sigs.k8s.io/multicluster-runtime/providers/cluster-inventory-api/apis/v1alpha1"
)

// profile returns the ClusterProfile fleet/east offering entries "name=cluster JSON"; an entry prefixed "old:" goes
// to the older status.credentialProviders, the others to status.accessProviders.
func profile(entries ...string) *clusterinventoryv1alpha1.ClusterProfile {
	clp := &clusterinventoryv1alpha1.ClusterProfile{ObjectMeta: metav1.ObjectMeta{Namespace: "fleet", Name: "east"}}
	for _, e := range entries {
		old := strings.HasPrefix(e, "old:")
		name, cluster, _ := strings.Cut(strings.TrimPrefix(e, "old:"), "=")
		entry := clusterinventoryv1alpha1.CredentialProvider{Name: name, Cluster: runtime.RawExtension{Raw: []byte(cluster)}}
		if old {
			clp.Status.CredentialProviders = append(clp.Status.CredentialProviders, entry)
		} else {
			clp.Status.AccessProviders = append(clp.Status.AccessProviders, entry)
		}
	}
	return clp
}

func TestBuildConfigFromCP(t *testing.T) {
	cp, err := access.New([]access.Provider{
		{Name: "token", ExecConfig: clientcmdv1.ExecConfig{Command: "/bin/token", Args: []string{"-a"}, APIVersion: "client.authentication.k8s.io/v1",
			Env: []clientcmdv1.ExecEnvVar{{Name: "K", Value: "V"}}, ProvideClusterInfo: true}},
		{Name: "gkeFleet", ExecConfig: clientcmdv1.ExecConfig{Command: "/bin/gke"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	const east = `{"server":"https://east:6443","tls-server-name":"east.internal","certificate-authority-data":"Q0E=","proxy-url":"http://proxy:3128",` +
		`"extensions":[{"name":"client.authentication.k8s.io/exec","extension":{"audience":"fleet"}}]}`

	t.Run("the file's order decides between offered types", func(t *testing.T) {
		cfg, err := cp.BuildConfigFromCP(profile("gkeFleet="+`{"server":"https://gke"}`, "token="+east))
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Host != "https://east:6443" || cfg.ServerName != "east.internal" || string(cfg.CAData) != "CA" || cfg.Proxy == nil {
			t.Errorf("config from the token entry expected, got host %q server name %q CA %q", cfg.Host, cfg.ServerName, cfg.CAData)
		}
		e := cfg.ExecProvider
		if e == nil || e.Command != "/bin/token" || e.Args[0] != "-a" || e.Env[0].Name != "K" || !e.ProvideClusterInfo ||
			e.InteractiveMode != clientcmdapi.NeverExecInteractiveMode || e.Config == nil {
			t.Errorf("exec provider = %+v", e)
		}
	})
	t.Run("credentialProviders of the older API are read too", func(t *testing.T) {
		cfg, err := cp.BuildConfigFromCP(profile("old:gkeFleet=" + `{"server":"https://gke"}`))
		if err != nil || cfg.Host != "https://gke" || cfg.ExecProvider.Command != "/bin/gke" {
			t.Errorf("got %v, %v", cfg, err)
		}
	})
	t.Run("the file's order decides across both lists", func(t *testing.T) {
		cfg, err := cp.BuildConfigFromCP(profile("gkeFleet="+`{"server":"https://gke"}`, "old:token="+`{"server":"https://old-token"}`))
		if err != nil || cfg.Host != "https://old-token" {
			t.Errorf("got %v, %v; want the token entry of credentialProviders", cfg, err)
		}
	})
	t.Run("accessProviders win over credentialProviders of the same type", func(t *testing.T) {
		cfg, err := cp.BuildConfigFromCP(profile("old:token="+`{"server":"https://old-token"}`, "token="+`{"server":"https://new-token"}`))
		if err != nil || cfg.Host != "https://new-token" {
			t.Errorf("got %v, %v; want the token entry of accessProviders", cfg, err)
		}
	})
	t.Run("a hand-built Config without a command", func(t *testing.T) {
		bad := &access.Config{Providers: []access.Provider{{Name: "token"}}}
		if _, err := bad.BuildConfigFromCP(profile("token=" + east)); err == nil || !strings.Contains(err.Error(), "no execConfig.command") {
			t.Errorf("got %v, want an error about the missing command", err)
		}
	})
	for name, tc := range map[string]struct {
		clp  *clusterinventoryv1alpha1.ClusterProfile
		want []string
	}{
		"no configured type":   {profile("aws=" + east), []string{"fleet/east", "aws", "token, gkeFleet"}},
		"no cluster":           {profile("token="), []string{"fleet/east", `"token"`, "no cluster"}},
		"no server":            {profile("token={}"), []string{"fleet/east", `"token"`, "no server"}},
		"malformed cluster":    {profile("token={"), []string{"fleet/east", `"token"`, "malformed"}},
		"no providers offered": {profile(), []string{"fleet/east", "[]"}},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := cp.BuildConfigFromCP(tc.clp)
			if err == nil {
				t.Fatal("no error")
			}
			for _, want := range tc.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not mention %q", err, want)
				}
			}
		})
	}
}

func TestNewFromFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	cp, err := access.NewFromFile(write("ok.yaml", "providers:\n- name: token\n  execConfig:\n    apiVersion: client.authentication.k8s.io/v1\n    command: /bin/token\n"))
	if err != nil || strings.Join(cp.ProviderNames(), ",") != "token" {
		t.Fatalf("NewFromFile() = %v, %v", cp, err)
	}
	for name, data := range map[string]string{
		"unknown field": `{"providers": [{"name": "token", "exec": {}}]}`,
		"no command":    `{"providers": [{"name": "token", "execConfig": {}}]}`,
		"no name":       `{"providers": [{"execConfig": {"command": "x"}}]}`,
		"twice":         `{"providers": [{"name": "a", "execConfig": {"command": "x"}}, {"name": "a", "execConfig": {"command": "y"}}]}`,
	} {
		if _, err := access.NewFromFile(write(strings.ReplaceAll(name, " ", "-")+".json", data)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := access.NewFromFile(filepath.Join(dir, "missing.json")); err == nil {
		t.Error("missing file: no error")
	}
}
