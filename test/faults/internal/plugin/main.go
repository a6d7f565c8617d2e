// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

// Command plugin is the client-go exec credential plugin of the fault suite. It prints an ExecCredential with the
// bearer token in $PLUGIN_TOKEN. With $PLUGIN_FAIL set it fails (exit status 1) with a message on stderr; with
// $PLUGIN_HANG set to a duration it first hangs that long, as a plugin waiting on an unreachable identity service
// would.
package main

import (
	"fmt"
	"os"
	"time"
)

func main() {
	if hang := os.Getenv("PLUGIN_HANG"); hang != "" {
		d, err := time.ParseDuration(hang)
		if err != nil {
			fmt.Fprintln(os.Stderr, "plugin: PLUGIN_HANG:", err)
			os.Exit(2)
		}
		<-time.After(d)
	}
	if os.Getenv("PLUGIN_FAIL") != "" {
		fmt.Fprintln(os.Stderr, "plugin: the identity service refused to issue a credential")
		os.Exit(1)
	}
	fmt.Fprintf(os.Stdout, `{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":%q}}`+"\n",
		os.Getenv("PLUGIN_TOKEN"))
}
