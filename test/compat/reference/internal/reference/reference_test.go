// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package reference

import "testing"

func TestOffline(t *testing.T) {
	for output, want := range map[string]bool{
		`Get "https://proxy.example/...": dial tcp: lookup proxy.example: no such host`: true,
		"proxyconnect tcp: dial tcp 127.0.0.1:3128: connect: connection refused":        true,
		"reading https://proxy.example/...: 404 Not Found":                              false,
		"verifying module: checksum mismatch":                                           false,
	} {
		if got := offline(output); got != want {
			t.Errorf("offline(%q) = %v, want %v", output, got, want)
		}
	}
}
