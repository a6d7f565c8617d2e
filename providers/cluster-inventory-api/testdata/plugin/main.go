// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

// Command plugin is a client-go exec credential plugin for the tests: it prints an ExecCredential with the token in
// $PLUGIN_TOKEN, or fails when $PLUGIN_FAIL is set. If $PLUGIN_INFO_FILE is set, it writes the cluster info client-go
// passed in $KUBERNETES_EXEC_INFO there.
package main

import (
	"fmt"
	"os"
)

func main() {
	if path := os.Getenv("PLUGIN_INFO_FILE"); path != "" {
		if err := os.WriteFile(path, []byte(os.Getenv("KUBERNETES_EXEC_INFO")), 0o600); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
	}
	if os.Getenv("PLUGIN_FAIL") != "" {
		fmt.Fprintln(os.Stderr, "plugin: no credentials for you")
		os.Exit(1)
	}
	fmt.Printf(`{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"token":%q}}`+"\n", os.Getenv("PLUGIN_TOKEN"))
}
