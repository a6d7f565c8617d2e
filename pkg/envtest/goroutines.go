// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package envtest

import (
	"bytes"
	"fmt"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
)

// HTTPConnectionFunctions returns the functions that run the goroutines of pooled HTTP connections (HTTP/2 and
// HTTP/1.1), which come and go as connections open and idle out, whatever the clusters do: goroutines a leak check
// should ignore, and a count of what clusters cost should leave out.
func HTTPConnectionFunctions() []string {
	return slices.Clone(connectionFunctions)
}

// connectionFunctions are the functions of HTTPConnectionFunctions.
var connectionFunctions = []string{
	"golang.org/x/net/http2.(*ClientConn).readLoop",
	"net/http.(*http2ClientConn).readLoop",
	"net/http.(*persistConn).readLoop",
	"net/http.(*persistConn).writeLoop",
}

// GoroutinesBesidesConnections returns the number of goroutines of the process, leaving out those of pooled HTTP
// connections: the count that tells what clusters cost, or leave behind, without the noise of connections opening
// and idling out. It falls back to runtime.NumGoroutine if the goroutine profile cannot be read.
func GoroutinesBesidesConnections() int {
	var b bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&b, 1); err != nil {
		return runtime.NumGoroutine()
	}
	n := 0
	for block := range strings.SplitSeq(b.String(), "\n\n") {
		var count int
		if _, err := fmt.Sscanf(block, "%d @", &count); err != nil {
			continue
		}
		if !slices.ContainsFunc(connectionFunctions, func(f string) bool { return strings.Contains(block, f) }) {
			n += count
		}
	}
	return n
}
