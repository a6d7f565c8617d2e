// Package apidiff holds the test that compares this module's exported API with the reference implementation's
// (sigs.k8s.io/multicluster-runtime v0.24.1 from the Go module proxy): every incompatible difference must be
// listed, with its reason, in docs/getting-started/compatibility.md. It is a module of its own so that the
// comparison's tools (golang.org/x/exp/apidiff, golang.org/x/tools/go/packages) stay out of the library's
// dependencies.
package apidiff
