// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package envtest_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
)

// A fleet with a host control plane for the manager and two members. In a test, pass t.Context() to Start and
// stop the fleet in t.Cleanup.
func Example() {
	// snippet:start fleet-start
	ctx := context.Background()
	fleet := mcenvtest.NewFleet(mcenvtest.Options{
		Members:           2,
		CRDDirectoryPaths: []string{filepath.Join("config", "crd", "bases")},
	})
	if err := fleet.Start(ctx); err != nil {
		log.Fatal(err)
	}
	defer func() {
		if err := fleet.Stop(); err != nil {
			log.Print(err)
		}
	}()

	// The manager runs against the host.
	hostConfig := fleet.Host()
	fmt.Println("host:", hostConfig.Host)
	// snippet:end fleet-start

	// Every member is a cluster of its own.
	for _, name := range fleet.Members() { // member-0, member-1
		cfg, err := fleet.Config(name)
		if err != nil {
			log.Print(err)
			return
		}
		c, err := client.New(cfg, client.Options{})
		if err != nil {
			log.Print(err)
			return
		}
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "hello"}}
		if err := c.Create(ctx, cm); err != nil {
			log.Print(err)
			return
		}
	}
}

// Members can join and leave a running fleet, for example to test that a provider engages and disengages them.
func ExampleFleet_AddMember() {
	ctx := context.Background()
	fleet := mcenvtest.NewFleet(mcenvtest.Options{})
	if err := fleet.Start(ctx); err != nil {
		log.Fatal(err)
	}
	defer fleet.Stop() //nolint:errcheck

	cfg, err := fleet.AddMember(ctx, "east")
	if err != nil {
		log.Print(err)
		return
	}
	fmt.Println("east serves at", cfg.Host)

	if err := fleet.RemoveMember("east"); err != nil {
		log.Print(err)
		return
	}
	fmt.Println(fleet.Members()) // []
}

// An API server can be taken away and brought back: configs and clients made before keep working after the restart.
func ExampleFleet_RestartMemberAPIServer() {
	ctx := context.Background()
	fleet := mcenvtest.NewFleet(mcenvtest.Options{Members: 1})
	if err := fleet.Start(ctx); err != nil {
		log.Fatal(err)
	}
	defer fleet.Stop() //nolint:errcheck

	cfg, _ := fleet.Config("member-0")
	c, _ := client.New(cfg, client.Options{})

	if err := fleet.StopMemberAPIServer("member-0"); err != nil {
		log.Print(err)
		return
	}
	// Requests fail with "connection refused" now; a controller watching member-0 sees its watches break.

	if err := fleet.RestartMemberAPIServer(ctx, "member-0"); err != nil {
		log.Print(err)
		return
	}
	// The same client works again: same address, same certificates, same data.
	var namespaces corev1.NamespaceList
	if err := c.List(ctx, &namespaces); err != nil {
		log.Print(err)
		return
	}
}

// Kubeconfigs embed all credentials, so they can be stored in a Secret for a kubeconfig-based provider, or written
// to a file, one context per member, for tools.
func ExampleFleet_Kubeconfig() {
	ctx := context.Background()
	fleet := mcenvtest.NewFleet(mcenvtest.Options{Members: 2})
	if err := fleet.Start(ctx); err != nil {
		log.Fatal(err)
	}
	defer fleet.Stop() //nolint:errcheck

	data, err := fleet.Kubeconfig("member-0")
	if err != nil {
		log.Print(err)
		return
	}
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "member-0-kubeconfig"},
		Data:       map[string][]byte{"kubeconfig": data},
	}
	hostClient, _ := client.New(fleet.Host(), client.Options{})
	if err := hostClient.Create(ctx, secret); err != nil {
		log.Print(err)
		return
	}

	path := filepath.Join(os.TempDir(), "fleet.kubeconfig")
	if err := fleet.WriteKubeconfig(path); err != nil { // contexts member-0 and member-1
		log.Print(err)
		return
	}
	defer os.Remove(path)
	loaded, _ := clientcmd.LoadFromFile(path)
	fmt.Println(loaded.CurrentContext) // member-0
}

// Users and service accounts have only the rights RBAC grants them, which suits tests of a controller's RBAC.
func ExampleFleet_AddUser() {
	ctx := context.Background()
	fleet := mcenvtest.NewFleet(mcenvtest.Options{Members: 1})
	if err := fleet.Start(ctx); err != nil {
		log.Fatal(err)
	}
	defer fleet.Stop() //nolint:errcheck

	aliceConfig, err := fleet.AddUser("member-0", envtest.User{Name: "alice", Groups: []string{"developers"}})
	if err != nil {
		log.Print(err)
		return
	}
	robotConfig, err := fleet.ServiceAccountConfig(ctx, "member-0", "team-a", "robot")
	if err != nil {
		log.Print(err)
		return
	}
	fmt.Println(aliceConfig.Host == robotConfig.Host) // true
}
