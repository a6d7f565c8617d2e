// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package access_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd/api"
	clusterinventoryv1alpha1 "sigs.k8s.io/cluster-inventory-api/apis/v1alpha1"
	clusteraccess "sigs.k8s.io/cluster-inventory-api/pkg/access"

	"sigs.k8s.io/multicluster-runtime/providers/cluster-inventory-api/access"
)

// profile returns the ClusterProfile fleet/east offering entries "name=cluster JSON"; an entry prefixed "old:" goes
// to the older status.credentialProviders, the others to status.accessProviders.
func profile(t testing.TB, entries ...string) *clusterinventoryv1alpha1.ClusterProfile {
	t.Helper()
	clp := &clusterinventoryv1alpha1.ClusterProfile{ObjectMeta: metav1.ObjectMeta{Namespace: "fleet", Name: "east"}}
	for _, e := range entries {
		old := strings.HasPrefix(e, "old:")
		name, cluster, _ := strings.Cut(strings.TrimPrefix(e, "old:"), "=")
		entry := clusterinventoryv1alpha1.AccessProvider{Name: name}
		if err := json.Unmarshal([]byte(cluster), &entry.Cluster); err != nil {
			t.Fatal(err)
		}
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
		{Name: "token", ExecConfig: &api.ExecConfig{Command: "/bin/token", Args: []string{"-a"}, APIVersion: "client.authentication.k8s.io/v1",
			Env: []api.ExecEnvVar{{Name: "K", Value: "V"}}, ProvideClusterInfo: true}},
		{Name: "gkeFleet", ExecConfig: &api.ExecConfig{Command: "/bin/gke"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	const east = `{"server":"https://east:6443","tls-server-name":"east.internal","certificate-authority-data":"Q0E=","proxy-url":"http://proxy:3128",` +
		`"extensions":[{"name":"client.authentication.k8s.io/exec","extension":{"audience":"fleet"}}]}`

	t.Run("the file's order decides between offered types", func(t *testing.T) {
		cfg, err := access.BuildConfigFromCP(cp, profile(t, "gkeFleet="+`{"server":"https://gke"}`, "token="+east))
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Host != "https://east:6443" || cfg.ServerName != "east.internal" || string(cfg.CAData) != "CA" || cfg.Proxy == nil {
			t.Errorf("config from the token entry expected, got host %q server name %q CA %q", cfg.Host, cfg.ServerName, cfg.CAData)
		}
		e := cfg.ExecProvider
		if e == nil || e.Command != "/bin/token" || e.Args[0] != "-a" || e.Env[0].Name != "K" || !e.ProvideClusterInfo ||
			e.InteractiveMode != api.NeverExecInteractiveMode || e.Config == nil {
			t.Errorf("exec provider = %+v", e)
		}
	})
	t.Run("credentialProviders of the older API are read too", func(t *testing.T) {
		cfg, err := access.BuildConfigFromCP(cp, profile(t, "old:gkeFleet="+`{"server":"https://gke"}`))
		if err != nil || cfg.Host != "https://gke" || cfg.ExecProvider.Command != "/bin/gke" || cfg.Proxy != nil {
			t.Errorf("got %v, %v", cfg, err)
		}
	})
	t.Run("the file's order decides across both lists", func(t *testing.T) {
		cfg, err := access.BuildConfigFromCP(cp, profile(t, "gkeFleet="+`{"server":"https://gke"}`, "old:token="+`{"server":"https://old-token"}`))
		if err != nil || cfg.Host != "https://old-token" {
			t.Errorf("got %v, %v; want the token entry of credentialProviders", cfg, err)
		}
	})
	t.Run("accessProviders win over credentialProviders of the same type", func(t *testing.T) {
		cfg, err := access.BuildConfigFromCP(cp, profile(t, "old:token="+`{"server":"https://old-token"}`, "token="+`{"server":"https://new-token"}`))
		if err != nil || cfg.Host != "https://new-token" {
			t.Errorf("got %v, %v; want the token entry of accessProviders", cfg, err)
		}
	})
	t.Run("a hand-built Config without a command", func(t *testing.T) {
		bad := &access.Config{Providers: []access.Provider{{Name: "token"}}}
		if _, err := access.BuildConfigFromCP(bad, profile(t, "token="+east)); err == nil || !strings.Contains(err.Error(), "no execConfig.command") {
			t.Errorf("got %v, want an error about the missing command", err)
		}
	})
	for name, tc := range map[string]struct {
		clp  *clusterinventoryv1alpha1.ClusterProfile
		want []string
	}{
		"no configured type":   {profile(t, "aws="+east), []string{"fleet/east", "aws", "token, gkeFleet"}},
		"no server":            {profile(t, "token={}"), []string{"fleet/east", `"token"`, "no server"}},
		"malformed proxy":      {profile(t, "token="+`{"server":"https://x","proxy-url":"http://user:pa ss@proxy:3128/%zz"}`), []string{"fleet/east", `"token"`, "proxy-url"}},
		"no providers offered": {profile(t), []string{"fleet/east", "[]"}},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := access.BuildConfigFromCP(cp, tc.clp)
			if err == nil {
				t.Fatal("no error")
			}
			for _, want := range tc.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not mention %q", err, want)
				}
			}
			if strings.Contains(err.Error(), "pa ss") {
				t.Errorf("error %q shows the proxy's password", err)
			}
		})
	}
}

// The arguments and environment variables a profile offers in the extensions of KEP-5339 reach the plugin as the
// provider's policies allow (the published package applies them); building twice neither changes the Config (the
// published method appends in place) nor gives different configs (it builds the environment from a map).
func TestBuildConfigFromCPProfileSourcedExec(t *testing.T) {
	cp, err := access.New([]access.Provider{{
		Name:                        "token",
		ExecConfig:                  &api.ExecConfig{Command: "/bin/token", Args: []string{"-a"}, Env: []api.ExecEnvVar{{Name: "Z", Value: "file"}, {Name: "A", Value: "file"}}},
		ProfileSourcedCLIArgsPolicy: clusteraccess.ProfileSourcedCLIArgsPolicyAppend,
		ProfileSourcedEnvVarsPolicy: clusteraccess.ProfileSourcedEnvVarsPolicyAppendIfNotExists,
	}})
	if err != nil {
		t.Fatal(err)
	}
	clp := profile(t, "token="+`{"server":"https://east","extensions":[`+
		`{"name":"clusterprofiles.multicluster.x-k8s.io/exec/additional-args","extension":["--cluster","east"]},`+
		`{"name":"clusterprofiles.multicluster.x-k8s.io/exec/additional-envs","extension":{"A":"profile","M":"profile","B":"profile"}}]}`)
	first, err := access.BuildConfigFromCP(cp, clp)
	if err != nil {
		t.Fatal(err)
	}
	second, err := access.BuildConfigFromCP(cp, clp)
	if err != nil {
		t.Fatal(err)
	}
	wantEnv := []api.ExecEnvVar{{Name: "A", Value: "file"}, {Name: "B", Value: "profile"}, {Name: "M", Value: "profile"}, {Name: "Z", Value: "file"}}
	if got := first.ExecProvider; !reflect.DeepEqual(got.Args, []string{"-a", "--cluster", "east"}) || !reflect.DeepEqual(got.Env, wantEnv) {
		t.Errorf("args %v, env %v", got.Args, got.Env)
	}
	if !reflect.DeepEqual(first.ExecProvider, second.ExecProvider) {
		t.Errorf("two builds differ:\n%+v\n%+v", first.ExecProvider, second.ExecProvider)
	}
	if got := cp.Providers[0].ExecConfig; len(got.Args) != 1 || len(got.Env) != 2 {
		t.Errorf("the Config changed: args %v, env %v", got.Args, got.Env)
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
	ok := write("ok.yaml", "providers:\n- name: token\n  execConfig:\n    apiVersion: client.authentication.k8s.io/v1\n    command: /bin/token\n")
	cp, err := access.NewFromFile(ok)
	if err != nil || strings.Join(access.ProviderNames(cp), ",") != "token" {
		t.Fatalf("NewFromFile() = %v, %v", cp, err)
	}
	for name, data := range map[string]string{
		"unknown field":  `{"providers": [{"name": "token", "exec": {}}]}`,
		"no execConfig":  `{"providers": [{"name": "token"}]}`,
		"no command":     `{"providers": [{"name": "token", "execConfig": {}}]}`,
		"no name":        `{"providers": [{"execConfig": {"command": "x"}}]}`,
		"twice":          `{"providers": [{"name": "a", "execConfig": {"command": "x"}}, {"name": "a", "execConfig": {"command": "y"}}]}`,
		"unknown policy": `{"providers": [{"name": "a", "execConfig": {"command": "x"}, "profileSourcedCLIArgsPolicy": "Prepend"}]}`,
	} {
		if _, err := access.NewFromFile(write(strings.ReplaceAll(name, " ", "-")+".json", data)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := access.NewFromFile(filepath.Join(dir, "missing.json")); err == nil {
		t.Error("missing file: no error")
	}

	// The published package reads the same file (JSON) into the same type.
	published, err := clusteraccess.NewFromFile(write("ok.json", `{"providers": [{"name": "token", "execConfig": {"command": "/bin/token"}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := access.Validate(published); err != nil {
		t.Errorf("Validate(published) = %v", err)
	}
	if err := access.Validate(nil); err == nil {
		t.Error("Validate(nil): no error")
	}
}
