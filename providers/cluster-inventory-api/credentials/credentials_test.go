package credentials_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	clientcmdv1 "k8s.io/client-go/tools/clientcmd/api/v1"

	clusterinventoryv1alpha1 "sigs.k8s.io/multicluster-runtime/providers/cluster-inventory-api/apis/v1alpha1"
	"sigs.k8s.io/multicluster-runtime/providers/cluster-inventory-api/credentials"
)

func profile(accessOnly bool, entries ...string) *clusterinventoryv1alpha1.ClusterProfile {
	clp := &clusterinventoryv1alpha1.ClusterProfile{ObjectMeta: metav1.ObjectMeta{Namespace: "fleet", Name: "east"}}
	list := make([]clusterinventoryv1alpha1.CredentialProvider, 0, len(entries))
	for _, e := range entries {
		name, cluster, _ := strings.Cut(e, "=")
		list = append(list, clusterinventoryv1alpha1.CredentialProvider{Name: name, Cluster: runtime.RawExtension{Raw: []byte(cluster)}})
	}
	if accessOnly {
		clp.Status.AccessProviders = list
	} else {
		clp.Status.CredentialProviders = list
	}
	return clp
}

func TestBuildConfigFromCP(t *testing.T) {
	cp, err := credentials.New([]credentials.Provider{
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
		cfg, err := cp.BuildConfigFromCP(profile(false, "gkeFleet="+`{"server":"https://gke"}`, "token="+east))
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
	t.Run("accessProviders are read when credentialProviders are absent", func(t *testing.T) {
		cfg, err := cp.BuildConfigFromCP(profile(true, "gkeFleet="+`{"server":"https://gke"}`))
		if err != nil || cfg.Host != "https://gke" || cfg.ExecProvider.Command != "/bin/gke" {
			t.Errorf("got %v, %v", cfg, err)
		}
	})
	for name, tc := range map[string]struct {
		clp  *clusterinventoryv1alpha1.ClusterProfile
		want []string
	}{
		"no configured type":   {profile(false, "aws="+east), []string{"fleet/east", "aws", "token, gkeFleet"}},
		"no cluster":           {profile(false, "token="), []string{"fleet/east", `"token"`, "no cluster"}},
		"no server":            {profile(false, "token={}"), []string{"fleet/east", `"token"`, "no server"}},
		"malformed cluster":    {profile(false, "token={"), []string{"fleet/east", `"token"`, "malformed"}},
		"no providers offered": {profile(false), []string{"fleet/east", "[]"}},
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
	cp, err := credentials.NewFromFile(write("ok.yaml", "providers:\n- name: token\n  execConfig:\n    apiVersion: client.authentication.k8s.io/v1\n    command: /bin/token\n"))
	if err != nil || strings.Join(cp.ProviderNames(), ",") != "token" {
		t.Fatalf("NewFromFile() = %v, %v", cp, err)
	}
	for name, data := range map[string]string{
		"unknown field": `{"providers": [{"name": "token", "exec": {}}]}`,
		"no command":    `{"providers": [{"name": "token", "execConfig": {}}]}`,
		"no name":       `{"providers": [{"execConfig": {"command": "x"}}]}`,
		"twice":         `{"providers": [{"name": "a", "execConfig": {"command": "x"}}, {"name": "a", "execConfig": {"command": "y"}}]}`,
	} {
		if _, err := credentials.NewFromFile(write(strings.ReplaceAll(name, " ", "-")+".json", data)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := credentials.NewFromFile(filepath.Join(dir, "missing.json")); err == nil {
		t.Error("missing file: no error")
	}
}
