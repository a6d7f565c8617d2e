// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package restmapper

import (
	"context"
	"net/http"
	"runtime"
	"sync"
	"weak"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
)

// Pool gives clusters RESTMappers that share discovery data with every other cluster of the pool serving the same
// API surface (see the package documentation). The zero value is not usable; create one with NewPool. All methods
// are safe for concurrent use.
type Pool struct {
	mu sync.Mutex
	// groups holds every group that some cluster's RESTMapper still refers to, weakly, by digest.
	groups map[digest]weak.Pointer[group]
	// building holds the groups being built, so that clusters discovering the same new surface at once build it
	// once.
	building map[digest]*build
	// hint is the group a cluster was last found to serve: a cluster discovered for the first time asks its API
	// server whether it serves the same documents (see source.fetch), which in a fleet of alike clusters spares
	// downloading and hashing them.
	hint weak.Pointer[group]
}

// group is one API surface: the RESTMapper built from the discovery documents of its digest.
type group struct {
	digest digest
	// docs are the aggregated discovery documents the group was built from; zero for a server without aggregated
	// discovery.
	docs   [2]document
	mapper meta.RESTMapper
}

// build is a group being built; done is closed once g or err is set.
type build struct {
	done chan struct{}
	g    *group
	err  error
}

// NewPool returns an empty pool.
func NewPool() *Pool {
	return &Pool{groups: map[digest]weak.Pointer[group]{}, building: map[digest]*build{}}
}

// defaultPool is the pool of ClusterOption and NewMapper. It interns API surfaces by content and holds them
// weakly, like client-go's cache of TLS transports: sharing it across providers and managers of one process only
// saves memory, and it never keeps a group alive.
var defaultPool = NewPool()

// ClusterOption returns a cluster.Option that gives the cluster a RESTMapper of the process-wide pool, unless an
// earlier option set cluster.Options.MapperProvider. See the package documentation.
func ClusterOption() cluster.Option {
	return defaultPool.ClusterOption()
}

// NewMapper returns a RESTMapper of the process-wide pool for the API server of cfg, reached through httpClient.
// It has the signature of cluster.Options.MapperProvider and makes no request: the API server is discovered on the
// first lookup.
func NewMapper(cfg *rest.Config, httpClient *http.Client) (meta.RESTMapper, error) {
	return defaultPool.NewMapper(cfg, httpClient)
}

// ClusterOption returns a cluster.Option that gives the cluster a RESTMapper of p, unless an earlier option set
// cluster.Options.MapperProvider.
func (p *Pool) ClusterOption() cluster.Option {
	return func(o *cluster.Options) {
		if o.MapperProvider == nil {
			o.MapperProvider = p.NewMapper
		}
	}
}

// NewMapper returns a RESTMapper of p for the API server of cfg, reached through httpClient (rest.HTTPClientFor(cfg)
// if nil). It has the signature of cluster.Options.MapperProvider and makes no request: the API server is
// discovered on the first lookup. The RESTMapper also implements meta.RESTMapperWithContext, whose context bounds a
// discovery the lookup starts.
func (p *Pool) NewMapper(cfg *rest.Config, httpClient *http.Client) (meta.RESTMapper, error) {
	if httpClient == nil {
		var err error
		if httpClient, err = rest.HTTPClientFor(cfg); err != nil {
			return nil, err
		}
	}
	return &mapper{pool: p, source: &source{config: rest.CopyConfig(cfg), client: httpClient}}, nil
}

// Groups returns how many distinct API surfaces the pool holds: the groups that a live RESTMapper refers to, plus
// those whose last RESTMapper is gone but that the garbage collector has not reclaimed yet.
func (p *Pool) Groups() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, wp := range p.groups {
		if wp.Value() != nil {
			n++
		}
	}
	return n
}

// discover fetches the discovery documents of src and returns the group of their digest, building it if no
// cluster refers to one yet. The requests are conditional on the documents of current, the cluster's group, or for a
// cluster without one on those of the group a cluster was last found to serve.
func (p *Pool) discover(ctx context.Context, src *source, current *group) (*group, error) {
	known := current
	if known == nil {
		p.mu.Lock()
		known = p.hint.Value()
		p.mu.Unlock()
	}
	docs, err := src.fetch(ctx, known)
	if err != nil {
		return nil, err
	}
	g, err := p.intern(docs, known)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	p.hint = weak.Make(g)
	p.mu.Unlock()
	return g, nil
}

// intern returns the group of the documents' digest, building it if there is none. Concurrent calls for the same
// new digest build it once; a failed build is not recorded, so the next call tries again. A cluster whose documents
// are those of known, the group its requests were conditional on, joins known.
func (p *Pool) intern(docs *documents, known *group) (*group, error) {
	d := docs.digest
	if known != nil && known.digest == d {
		return known, nil
	}
	p.mu.Lock()
	if g := p.groups[d].Value(); g != nil {
		p.mu.Unlock()
		return g, nil
	}
	if b, ok := p.building[d]; ok {
		p.mu.Unlock()
		<-b.done
		return b.g, b.err
	}
	b := &build{done: make(chan struct{})}
	p.building[d] = b
	p.mu.Unlock()

	rm, err := docs.restMapper()
	if err == nil {
		b.g = &group{digest: d, docs: docs.docs, mapper: rm}
	}
	b.err = err

	p.mu.Lock()
	delete(p.building, d)
	if b.g != nil {
		p.groups[d] = weak.Make(b.g)
		runtime.AddCleanup(b.g, p.release, d)
	}
	p.mu.Unlock()
	close(b.done)
	return b.g, b.err
}

// release forgets the group of digest d once the garbage collector has reclaimed it, unless the digest has a live
// group again.
func (p *Pool) release(d digest) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if wp, ok := p.groups[d]; ok && wp.Value() == nil {
		delete(p.groups, d)
	}
}
