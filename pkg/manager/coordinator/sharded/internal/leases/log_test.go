// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package leases

import (
	"testing"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/testr"
)

func testLogger(t *testing.T) logr.Logger { return testr.New(t) }
