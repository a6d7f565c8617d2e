// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package envtest

import (
	"context"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// DefaultTimeout is how long Eventually waits when given no timeout. It is generous: CI machines are small and
// shared, and a test that fails only on a busy machine tells nothing.
const DefaultTimeout = 60 * time.Second

// pollInterval is how often Eventually and Consistently evaluate their condition.
const pollInterval = 20 * time.Millisecond

// Eventually polls cond every 20ms until it holds, and fails the test if it does not within timeout
// (DefaultTimeout if zero) or when the test's context ends. what says what is awaited, for the failure message. Use
// it instead of sleeping: it returns as soon as the condition holds.
func Eventually(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	err := wait.PollUntilContextTimeout(t.Context(), pollInterval, timeout, true, func(context.Context) (bool, error) {
		return cond(), nil
	})
	if err != nil {
		t.Fatalf("timed out after %s waiting for %s", timeout, what)
	}
}

// Consistently polls cond every 20ms for the whole duration and fails the test as soon as it does not hold.
func Consistently(t testing.TB, duration time.Duration, what string, cond func() bool) {
	t.Helper()
	err := wait.PollUntilContextTimeout(t.Context(), pollInterval, duration, true, func(context.Context) (bool, error) {
		return !cond(), nil
	})
	if err == nil {
		t.Fatalf("%s stopped holding", what)
	}
}
