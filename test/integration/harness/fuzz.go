package harness

import mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"

// Fuzzing is mcenvtest.Fuzzing.
func Fuzzing() bool { return mcenvtest.Fuzzing() }
