// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package restmapper

import (
	"context"
	"net/http"
	"runtime"
	"slices"
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
	// building holds the groups being built, so that clusters discovering the same new document at once build it
	// once.
	building map[digest]*build
	// hints are the groups a cluster was last found to serve, one for each part: a cluster discovered for the first
	// time asks its API server whether it serves the same document (see source.fetch), which in a fleet of alike
	// clusters spares downloading and hashing it.
	hints [2]weak.Pointer[group]
	// combined holds the RESTMappers of both parts of a surface together, weakly, by the digests of the parts.
	combined map[[2]digest]weak.Pointer[combined]
}

// group is one part of an API surface: the RESTMapper built from the discovery document of its digest.
type group struct {
	digest digest
	// doc is the aggregated discovery document the group was built from; zero for a server without aggregated
	// discovery.
	doc    document
	mapper meta.RESTMapper
}

// combined is the RESTMapper of both parts of an API surface together, for the lookups that may match in any API
// group (see mapper.combined). It holds the groups it was built from.
type combined struct {
	legacy, named *group
	mapper        meta.RESTMapper
}

// build is a group being built; done is closed once g or err is set.
type build struct {
	done chan struct{}
	g    *group
	err  error
}

// NewPool returns an empty pool.
func NewPool() *Pool {
	return &Pool{groups: map[digest]weak.Pointer[group]{}, building: map[digest]*build{}, combined: map[[2]digest]weak.Pointer[combined]{}}
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

// Groups returns how many distinct discovery documents the pool holds: each API server has two, its legacy group's
// (/api) and its named groups' (/apis), and each is held once for all the clusters that serve it identically and
// have needed it. It counts the documents that a live RESTMapper refers to, plus those whose last RESTMapper is gone
// but that the garbage collector has not reclaimed yet.
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

// discover fetches the discovery document of part pt of src and returns the group of its digest, building it if no
// cluster refers to one yet. The request is conditional on the document of current, the cluster's group of that
// part, or for a cluster without one on that of the group a cluster was last found to serve.
func (p *Pool) discover(ctx context.Context, src *source, pt part, current *group) (*group, error) {
	known := current
	if known == nil {
		p.mu.Lock()
		known = p.hints[pt].Value()
		p.mu.Unlock()
	}
	docs, err := src.fetch(ctx, pt, known)
	if err != nil {
		return nil, err
	}
	g, err := p.intern(docs, known)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	p.hints[pt] = weak.Make(g)
	p.mu.Unlock()
	return g, nil
}

// intern returns the group of the documents' digest, building it if there is none. Concurrent calls for the same
// new digest build it once; a failed build is not recorded, so the next call tries again. A cluster whose document
// is that of known, the group its request was conditional on, joins known.
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
		b.g = &group{digest: d, doc: docs.doc, mapper: rm}
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

// combine returns the RESTMapper of the groups legacy and named together, building it if no cluster refers to one
// yet. It answers as client-go's RESTMapper of an API server's whole discovery does: both groups' mappers are
// asked, and ambiguous matches are resolved by the legacy group's priorities, then the named groups'.
func (p *Pool) combine(legacy, named *group) *combined {
	key := [2]digest{legacy.digest, named.digest}
	p.mu.Lock()
	defer p.mu.Unlock()
	if c := p.combined[key].Value(); c != nil {
		return c
	}
	c := &combined{legacy: legacy, named: named, mapper: combineMappers(legacy.mapper, named.mapper)}
	p.combined[key] = weak.Make(c)
	runtime.AddCleanup(c, p.releaseCombined, key)
	return c
}

// combineMappers returns one RESTMapper of two RESTMappers of client-go's discovery (restmapper.NewDiscoveryRESTMapper),
// the first one's groups first. Each lists the legacy group's version v1 first, then its groups' preferred versions,
// then its groups in order; the legacy group has the one version v1, so the two lists one after the other resolve
// every ambiguous match as the list of one RESTMapper of all the groups would. (Any other RESTMapper, which the
// pool never builds, is combined without priorities.)
func combineMappers(first, second meta.RESTMapper) meta.RESTMapper {
	a, aok := first.(*meta.PriorityRESTMapper)
	b, bok := second.(*meta.PriorityRESTMapper)
	if !aok || !bok {
		return meta.MultiRESTMapper{first, second}
	}
	return &meta.PriorityRESTMapper{
		Delegate:         meta.MultiRESTMapper{a.Delegate, b.Delegate},
		ResourcePriority: append(slices.Clip(a.ResourcePriority), b.ResourcePriority...),
		KindPriority:     append(slices.Clip(a.KindPriority), b.KindPriority...),
	}
}

// releaseCombined forgets the combined RESTMapper of key once the garbage collector has reclaimed it, unless key
// has a live one again.
func (p *Pool) releaseCombined(key [2]digest) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if wp, ok := p.combined[key]; ok && wp.Value() == nil {
		delete(p.combined, key)
	}
}
