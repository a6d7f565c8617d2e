// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package clusters

import logf "sigs.k8s.io/controller-runtime/pkg/log"

var providerLog = logf.Log.WithName("clusters-provider")
