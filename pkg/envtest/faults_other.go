// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

//go:build !linux

package envtest

// findChildProcess needs /proc, which only Linux has.
func findChildProcess(string, string) (int, error) { return 0, ErrFaultsUnsupported }

func killProcess(int) error     { return ErrFaultsUnsupported }
func stopProcess(int) error     { return ErrFaultsUnsupported }
func continueProcess(int) error { return ErrFaultsUnsupported }
func processExists(int) bool    { return false }
