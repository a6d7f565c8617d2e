// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package harness

import mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"

// Fuzzing is mcenvtest.Fuzzing.
func Fuzzing() bool { return mcenvtest.Fuzzing() }
