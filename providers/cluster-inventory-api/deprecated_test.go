// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package clusterinventoryapi_test

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	clusterinventoryapi "sigs.k8s.io/multicluster-runtime/providers/cluster-inventory-api"
	"sigs.k8s.io/multicluster-runtime/providers/cluster-inventory-api/credentials" //nolint:staticcheck // the deprecated strategy under test
	"sigs.k8s.io/multicluster-runtime/providers/cluster-inventory-api/kubeconfigstrategy"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// consumer is the consumer name of the Secret strategy's tests.
const consumer = "test-controller"

// secretOption is the deprecated Secret strategy for consumer.
func secretOption() kubeconfigstrategy.Option {
	return kubeconfigstrategy.Option{Secret: &kubeconfigstrategy.SecretStrategyOption{ConsumerName: consumer}} //nolint:staticcheck // the deprecated strategy under test
}

// setKubeconfigSecret creates or updates the Secret strategy's Secret of profile ns/name: the kubeconfig of member.
func setKubeconfigSecret(t testing.TB, ns, name, member string) {
	t.Helper()
	setKubeconfigSecretData(t, ns, name, harness.Kubeconfig(t, fleet, member))
}

// setKubeconfigSecretData creates or updates the Secret strategy's Secret of profile ns/name with the kubeconfig
// data.
func setKubeconfigSecretData(t testing.TB, ns, name string, data []byte) {
	t.Helper()
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name + "-kubeconfig"}}
	if _, err := controllerutil.CreateOrUpdate(t.Context(), hubClient(t), secret, func() error {
		secret.Labels = map[string]string{
			kubeconfigstrategy.SecretLabelKeyClusterInventoryConsumer: consumer, //nolint:staticcheck // the deprecated strategy under test
			kubeconfigstrategy.SecretLabelKeyClusterProfile:           name,     //nolint:staticcheck // the deprecated strategy under test
		}
		secret.Data = map[string][]byte{kubeconfigstrategy.SecretDataKeyKubeConfig: data} //nolint:staticcheck // the deprecated strategy under test
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// The deprecated Secret strategy through a profile's life: not ready → left alone; ready → engaged as
// "<namespace>/<name>" and reconciled; its Secret rotated to another API server → replaced; Joined turning False →
// disengaged; ready again → engaged; deleted → disengaged. A ready profile without a Secret gets a Warning event
// naming it.
func TestSecretStrategy(t *testing.T) {
	ns := harness.NewNamespace(t, fleet, "cip-secret", hub, "member-0", "member-1")
	harness.CreateConfigMaps(t, fleet, ns, "obj", "member-0", "member-1")
	p, mgr, rec, _ := start(t, clusterinventoryapi.Options{
		KubeconfigStrategyOption: secretOption(),
		ClusterOptions:           []cluster.Option{harness.InNamespace(ns)},
		IsReady:                  readyIn(ns),
	})
	name := multicluster.ClusterName(ns + "/prof")

	setKubeconfigSecret(t, ns, "prof", "member-0")
	clp := createProfile(t, ns, "prof", false)
	harness.Consistently(t, 2*time.Second, "a profile that is not ready is not engaged", func() bool { return len(namesIn(p, ns)) == 0 })

	setReady(t, clp, true)
	harness.Eventually(t, 0, string(name)+" reconciled on member-0", func() bool { return rec.Has(harness.Seen(name, "obj", "member-0")) })

	setKubeconfigSecret(t, ns, "prof", "member-1")
	harness.Eventually(t, 0, string(name)+" replaced by a cluster on member-1", func() bool { return rec.Has(harness.Seen(name, "obj", "member-1")) })

	expectReadyThenDeleted(t, p, mgr, clp, name)

	createProfile(t, ns, "nosecret", true)
	harness.Eventually(t, 0, "a Warning event naming the profile without a Secret", hasWarning(t, ns, "nosecret", "no Secret labelled"))
}

// The deprecated CredentialsProvider option behaves as AccessProvider: a profile offering the plugin's type is
// engaged with the plugin's token.
func TestCredentialsProviderOption(t *testing.T) {
	ns := harness.NewNamespace(t, fleet, "cip-creds", hub, "member-0")
	harness.CreateConfigMap(t, fleet, "member-0", ns, "obj")
	cp, err := credentials.NewFromFile(writeProviderFile(t, "")) //nolint:staticcheck // the deprecated strategy under test
	if err != nil {
		t.Fatal(err)
	}
	_, _, rec, _ := start(t, clusterinventoryapi.Options{ //nolint:dogsled // only the recorder matters here
		KubeconfigStrategyOption: kubeconfigstrategy.Option{CredentialsProvider: &kubeconfigstrategy.CredentialsProviderOption{Provider: cp}}, //nolint:staticcheck // the deprecated strategy under test
		ClusterOptions:           []cluster.Option{harness.InNamespace(ns)},
		IsReady:                  readyIn(ns),
	})
	createProfile(t, ns, "prof", true, credentialProviders(accessEntry(t, "token", "member-0")))
	name := multicluster.ClusterName(ns + "/prof")
	harness.Eventually(t, 0, string(name)+" reconciled with the plugin's token", func() bool { return rec.Has(harness.Seen(name, "obj", "member-0")) })
}
