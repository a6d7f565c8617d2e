// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package restmapper

// ContentETag exports contentETag to the tests.
var ContentETag = contentETag
