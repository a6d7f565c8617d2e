// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package multi

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// DefaultSeparator is the default of Options.Separator.
const DefaultSeparator = "#"

// DefaultChannelSize is the default of Options.ChannelSize.
const DefaultChannelSize = 10

// loggerName is the name of the provider's logger, before Options.LoggerSuffix.
const loggerName = "multi-provider"

// Options configures a composed provider. The zero value is valid; New applies the defaults documented on each
// field.
type Options struct {
	// Separator joins the name of an inner provider and the name of one of its clusters into the name of a cluster
	// of the composed provider: "kind" + "#" + "dev" is "kind#dev". Defaults to DefaultSeparator ("#"). The names of
	// inner providers must not contain it; the names of their clusters may, since a name is split at the first
	// separator.
	Separator string

	// ChannelSize is the initial capacity of the registry of inner providers. It is a sizing hint only: any number
	// of providers can be added, before and after Start, and none is ever dropped. Zero or less means
	// DefaultChannelSize.
	ChannelSize int

	// LoggerSuffix is appended to the name of the provider's logger ("multi-provider"), as in
	// "multi-provider.fleet-a", to tell several composed providers of one program apart in the logs. Defaults to no
	// suffix.
	LoggerSuffix string
}

// complete returns a copy of o with the defaults applied.
func (o Options) complete() Options {
	if o.Separator == "" {
		o.Separator = DefaultSeparator
	}
	if o.ChannelSize <= 0 {
		o.ChannelSize = DefaultChannelSize
	}
	return o
}

// Provider composes providers under name prefixes. Build it with New. All methods are safe for concurrent use.
type Provider struct {
	opts Options
	log  logr.Logger

	// opMu serialises Start, AddProvider and RemoveProvider, so that every inner provider gets the recorded
	// indexes before it starts, is started at most once, and is stopped before RemoveProvider returns.
	opMu sync.Mutex

	// mu guards the fields below; it is never held while calling an inner provider.
	mu        sync.RWMutex
	providers map[string]*innerProvider
	indexes   []index
	started   bool
	runCtx    context.Context
	aware     multicluster.Aware
}

var (
	_ multicluster.Provider         = &Provider{}
	_ multicluster.ProviderRunnable = &Provider{}
	_ multicluster.ClusterLister    = &Provider{}
)

// innerProvider is one provider added under a name.
type innerProvider struct {
	name     string
	provider multicluster.Provider

	// indexMu serialises index registration on this provider; indexed counts the recorded indexes (a prefix of
	// Provider.indexes, which only grows) handed to it so far, so that it receives each exactly once.
	indexMu sync.Mutex
	indexed int

	// Set by startInner, under Provider.opMu and Provider.mu. done is closed once the provider's Start has returned
	// (at once for a provider that is not a multicluster.ProviderRunnable).
	aware *prefixedAware
	done  chan struct{}
}

// index is a field index recorded by IndexField, handed to every inner provider added later.
type index struct {
	obj     client.Object
	field   string
	extract client.IndexerFunc
}

// New returns a composed provider without inner providers.
func New(opts Options) *Provider {
	opts = opts.complete()
	log := logf.Log.WithName(loggerName)
	if opts.LoggerSuffix != "" {
		log = log.WithName(opts.LoggerSuffix)
	}
	return &Provider{
		opts:      opts,
		log:       log,
		providers: make(map[string]*innerProvider, opts.ChannelSize),
	}
}

// Start starts every inner provider added so far that is a multicluster.ProviderRunnable, each with a context of
// its own derived from ctx and an Aware that engages its clusters with aware under prefixed names. Providers added
// later are started by AddProvider. Start blocks until ctx is done, then waits for the inner providers to return.
//
// An inner provider whose Start fails is logged with its name and its clusters are disengaged; the other inner
// providers carry on (remove it and add it again to restart it). Starting a composed provider a second time
// returns an error.
func (p *Provider) Start(ctx context.Context, aware multicluster.Aware) error {
	p.opMu.Lock()
	p.mu.Lock()
	if p.started {
		p.mu.Unlock()
		p.opMu.Unlock()
		return errors.New("multi provider: already started")
	}
	p.started, p.runCtx, p.aware = true, ctx, aware
	inners := p.sortedLocked()
	p.mu.Unlock()
	for _, in := range inners {
		p.startInner(in)
	}
	p.opMu.Unlock()

	<-ctx.Done()

	// Providers added after ctx ended are not started (see startInner), so these are all that run.
	p.opMu.Lock()
	p.mu.RLock()
	inners = p.sortedLocked()
	p.mu.RUnlock()
	p.opMu.Unlock()
	for _, in := range inners {
		if in.done != nil {
			<-in.done
		}
	}
	return nil
}

// startInner starts an inner provider, if the composed provider runs. The caller holds opMu.
func (p *Provider) startInner(in *innerProvider) {
	p.mu.RLock()
	runCtx, aware := p.runCtx, p.aware
	p.mu.RUnlock()
	if runCtx == nil || runCtx.Err() != nil || in.done != nil {
		return
	}
	ctx, cancel := context.WithCancel(runCtx)
	log := p.log.WithValues("provider", in.name)
	prefixed := newPrefixedAware(ctx, cancel, in.name, in.name+p.opts.Separator, aware, log)
	p.mu.Lock()
	in.aware = prefixed
	p.mu.Unlock()
	in.done = make(chan struct{})

	runnable, ok := in.provider.(multicluster.ProviderRunnable)
	if !ok {
		close(in.done)
		return
	}
	log.V(1).Info("Starting inner provider")
	go func() {
		defer close(in.done)
		err := runnable.Start(ctx, in.aware)
		switch {
		case err != nil && ctx.Err() == nil:
			log.Error(err, "Inner provider failed; disengaging its clusters")
			in.aware.stop()
		case err != nil && !errors.Is(err, context.Canceled):
			log.Error(err, "Inner provider stopped with an error")
		default:
			log.V(1).Info("Inner provider stopped")
		}
	}()
}

// ProviderNames returns the names of the inner providers, sorted.
func (p *Provider) ProviderNames() []string {
	p.mu.RLock()
	defer p.mu.RUnlock()
	names := make([]string, 0, len(p.providers))
	for name := range p.providers {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// ClusterNames returns, sorted, the names (providerName<Separator>clusterName) of the clusters the inner providers
// have engaged through the composed provider and not yet disengaged.
func (p *Provider) ClusterNames() []multicluster.ClusterName {
	p.mu.RLock()
	awares := make([]*prefixedAware, 0, len(p.providers))
	for _, in := range p.providers {
		if in.aware != nil {
			awares = append(awares, in.aware)
		}
	}
	p.mu.RUnlock()
	var names []multicluster.ClusterName
	for _, a := range awares {
		names = a.names(names)
	}
	slices.Sort(names)
	return names
}

// GetProvider returns the inner provider added under providerName, and whether there is one.
func (p *Provider) GetProvider(providerName string) (multicluster.Provider, bool) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	in, ok := p.providers[providerName]
	if !ok {
		return nil, false
	}
	return in.provider, true
}

// AddProvider adds provider under providerName, before or after Start. Every field index recorded so far is
// registered with it first; then, if the composed provider runs and provider is a multicluster.ProviderRunnable,
// it is started, and its clusters are engaged as providerName<Separator>clusterName.
//
// It returns an error, and adds nothing, if providerName is empty, contains the separator, ends in a way that makes
// providerName<Separator> contain the separator earlier (with the separator "::", the name ":" would make ":::"
// split as "" and ":"), or is already taken, if provider is nil, or if registering a recorded index with provider
// fails. So every name of its clusters splits back, at the first separator, into providerName and the inner name.
func (p *Provider) AddProvider(providerName string, provider multicluster.Provider) error {
	switch {
	case providerName == "":
		return errors.New("multi provider: the name of an inner provider must not be empty")
	case strings.Index(providerName+p.opts.Separator, p.opts.Separator) != len(providerName):
		return fmt.Errorf("multi provider: the name of inner provider %q must not contain the separator %q, "+
			"nor end in its beginning", providerName, p.opts.Separator)
	case provider == nil:
		return fmt.Errorf("multi provider: inner provider %q is nil", providerName)
	}

	p.opMu.Lock()
	defer p.opMu.Unlock()

	p.mu.Lock()
	if _, ok := p.providers[providerName]; ok {
		p.mu.Unlock()
		return fmt.Errorf("multi provider: there is already an inner provider named %q", providerName)
	}
	in := &innerProvider{name: providerName, provider: provider}
	p.providers[providerName] = in
	ctx := p.runCtx
	p.mu.Unlock()

	if ctx == nil || ctx.Err() != nil {
		ctx = context.Background()
	}
	if err := p.applyIndexes(ctx, in); err != nil {
		p.mu.Lock()
		delete(p.providers, providerName)
		p.mu.Unlock()
		return fmt.Errorf("multi provider: adding inner provider %q: %w", providerName, err)
	}

	p.startInner(in)
	p.log.Info("Added inner provider", "provider", providerName)
	return nil
}

// RemoveProvider removes the inner provider added under providerName, if any. If it was started, its context is
// cancelled, the contexts of all the clusters it engaged end before RemoveProvider returns (so they are
// disengaged everywhere and Get no longer finds them), and RemoveProvider waits for its Start to return. It must
// not be called from within that inner provider's Start.
func (p *Provider) RemoveProvider(providerName string) {
	p.opMu.Lock()
	defer p.opMu.Unlock()

	p.mu.Lock()
	in, ok := p.providers[providerName]
	delete(p.providers, providerName)
	p.mu.Unlock()
	if !ok {
		return
	}
	if in.aware != nil {
		in.aware.stop()
		<-in.done
	}
	p.log.Info("Removed inner provider", "provider", providerName)
}

// Get returns the cluster named providerName<Separator>clusterName: clusterName of the inner provider added as
// providerName. The name is split at the first separator. It returns an error matching
// multicluster.ErrClusterNotFound, naming the cluster, for a name without separator, for a provider name that is
// not known, and for whatever the inner provider does not know.
func (p *Provider) Get(ctx context.Context, input multicluster.ClusterName) (cluster.Cluster, error) {
	providerName, clusterName, ok := strings.Cut(input.String(), p.opts.Separator)
	if !ok {
		return nil, fmt.Errorf("cluster %q: the name has no provider prefix (<provider>%s<cluster>): %w",
			input, p.opts.Separator, multicluster.ErrClusterNotFound)
	}
	p.mu.RLock()
	in := p.providers[providerName]
	p.mu.RUnlock()
	if in == nil {
		return nil, fmt.Errorf("cluster %q: no inner provider named %q: %w",
			input, providerName, multicluster.ErrClusterNotFound)
	}
	cl, err := in.provider.Get(ctx, multicluster.ClusterName(clusterName))
	if err != nil {
		return nil, fmt.Errorf("cluster %q: %w", input, err)
	}
	return cl, nil
}

// IndexField records the field index and registers it with every inner provider, in parallel; providers added
// later receive it in AddProvider. Each inner provider receives each index exactly once, whatever the order of
// IndexField and AddProvider calls, so no cache sees the same index twice ("indexer conflict"). The inner
// providers are responsible for their clusters, current and future. Errors name the inner providers they concern;
// the index stays recorded either way.
func (p *Provider) IndexField(ctx context.Context, obj client.Object, field string, extractValue client.IndexerFunc) error {
	p.mu.Lock()
	p.indexes = append(p.indexes, index{obj: obj, field: field, extract: extractValue})
	inners := p.sortedLocked()
	p.mu.Unlock()

	errs := make([]error, len(inners))
	var wg sync.WaitGroup
	for i, in := range inners {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = p.applyIndexes(ctx, in)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// applyIndexes hands the inner provider every recorded index it has not received yet. An index counts as
// received even if the inner provider returns an error for it, since providers keep the indexes they are given
// for later clusters either way; handing it over again would register it twice.
func (p *Provider) applyIndexes(ctx context.Context, in *innerProvider) error {
	in.indexMu.Lock()
	defer in.indexMu.Unlock()
	p.mu.RLock()
	missing := slices.Clone(p.indexes[in.indexed:])
	p.mu.RUnlock()

	var errs []error
	for _, idx := range missing {
		in.indexed++
		if err := in.provider.IndexField(ctx, idx.obj, idx.field, idx.extract); err != nil {
			errs = append(errs, fmt.Errorf("inner provider %q: indexing field %q of %T: %w", in.name, idx.field,
				idx.obj, err))
		}
	}
	return errors.Join(errs...)
}

// sortedLocked returns the inner providers sorted by name. The caller holds mu.
func (p *Provider) sortedLocked() []*innerProvider {
	inners := make([]*innerProvider, 0, len(p.providers))
	for _, in := range p.providers {
		inners = append(inners, in)
	}
	slices.SortFunc(inners, func(a, b *innerProvider) int { return strings.Compare(a.name, b.name) })
	return inners
}
