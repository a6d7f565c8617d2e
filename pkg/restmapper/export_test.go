// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package restmapper

// ContentETag exports contentETag to the tests.
var ContentETag = contentETag

// Combined returns how many RESTMappers of both documents together p holds.
func (p *Pool) Combined() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.combined)
}
