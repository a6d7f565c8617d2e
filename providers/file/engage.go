package file

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
	"sigs.k8s.io/multicluster-runtime/pkg/informer"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	"sigs.k8s.io/multicluster-runtime/pkg/recovery"
	"sigs.k8s.io/multicluster-runtime/pkg/restmapper"
)

// Retry backoff for clusters that fail to start, sync or engage (Start only).
const (
	initialRetryDelay = 500 * time.Millisecond
	maxRetryDelay     = time.Minute
)

// member is what the provider wants and has for one cluster name. Each name has at most one worker goroutine at a
// time, which makes what is engaged follow what is wanted; the watch loop only changes want and wakes the worker.
// All fields are guarded by Provider.mu.
type member struct {
	// want is what the last scan found for the name; nil means the name must go.
	want *target
	// gen counts the changes of want, so that a worker knows whether what it applied is still wanted.
	gen uint64
	// busy is set while a worker owns the name.
	busy bool
	// wake interrupts the worker's retry backoff when want changes.
	wake chan struct{}
	// abort cancels the worker's attempt in flight, whose target is no longer wanted; nil when none is in flight.
	abort context.CancelFunc

	// engaged is the cluster engaged under the name and config the config it was built from; nil when none. It
	// lives in life, a child of the run context of the Start or RunOnce that engaged it.
	engaged    cluster.Cluster
	config     *rest.Config
	life       context.Context
	cancelLife context.CancelFunc
}

// permanentError marks a failure that retrying with backoff cannot fix, such as a rest.Config no cluster can be
// built from; the next scan tries again.
type permanentError struct{ err error }

func (e *permanentError) Error() string { return e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }

// reconcile makes the members follow desired: names with a new or changed target, or missing their cluster, and
// names no longer desired get a worker (or wake the one they have). Workers run in parallel, one per name.
func (p *Provider) reconcile(r *run, desired map[multicluster.ClusterName]*target) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for name, t := range desired {
		p.wantLocked(r, name, t)
	}
	for name, m := range p.members {
		if _, ok := desired[name]; !ok && m.want != nil {
			p.wantLocked(r, name, nil)
		}
	}
}

// wantLocked records t (nil: remove) as what name must be, and sees that a worker applies it.
func (p *Provider) wantLocked(r *run, name multicluster.ClusterName, t *target) {
	m := p.members[name]
	if m == nil {
		if t == nil {
			return
		}
		m = &member{wake: make(chan struct{}, 1)}
		p.members[name] = m
	}
	if sameTarget(m.want, t) && !p.missingLocked(name, m) {
		return
	}
	m.want = t
	m.gen++
	if m.busy {
		if m.abort != nil {
			m.abort()
		}
		select {
		case m.wake <- struct{}{}:
		default:
		}
		return
	}
	m.busy = true
	p.workers.Add(1)
	go p.work(r, name, m)
}

// missingLocked reports whether a member that no worker is handling lacks the cluster it wants: engaging it failed
// (RunOnce does not retry; a cluster that cannot be built waits for a change), or the engaged cluster stopped behind
// the provider's back, because its run ended (a RunOnce context) or the cluster failed and left the set.
func (p *Provider) missingLocked(name multicluster.ClusterName, m *member) bool {
	if m.busy || m.want == nil {
		return false
	}
	if m.engaged == nil || m.life.Err() != nil {
		return true
	}
	cur, err := p.Clusters.GetTyped(context.Background(), name)
	return err != nil || cur != m.engaged
}

// sameTarget reports whether two targets (either may be nil) define the same cluster.
func sameTarget(a, b *target) bool {
	if a == nil || b == nil {
		return a == b
	}
	return clusters.EqualConfigs(a.config, b.config)
}

// work applies what is wanted for name until it holds, then returns. In Start, failures are retried with backoff
// until they succeed, what is wanted changes, or the run ends; in RunOnce they are recorded.
func (p *Provider) work(r *run, name multicluster.ClusterName, m *member) {
	defer p.workers.Done()
	delay := initialRetryDelay
	for {
		select {
		case <-m.wake:
		default:
		}
		p.mu.Lock()
		t, gen := m.want, m.gen
		p.mu.Unlock()

		err := p.apply(r, name, m, t, gen)

		p.mu.Lock()
		superseded := m.gen != gen
		if !superseded && (err == nil || !r.retry || r.ctx.Err() != nil || isPermanent(err)) {
			m.busy = false
			if m.want == nil && m.engaged == nil && p.members[name] == m {
				delete(p.members, name)
			}
			p.mu.Unlock()
			switch {
			case err == nil:
				p.clearReport("cluster:" + name.String())
			case r.ctx.Err() != nil:
			case r.errs != nil:
				r.errs.add(err)
			default:
				p.reportOnce(r.log, "cluster:"+name.String(), err, "Failed to engage cluster", "cluster", name)
			}
			return
		}
		p.mu.Unlock()
		if superseded {
			delay = initialRetryDelay
			continue
		}

		p.reportOnce(r.log, "cluster:"+name.String(), err, "Failed to engage cluster; retrying", "cluster", name, "after", delay)
		timer := time.NewTimer(delay)
		select {
		case <-r.ctx.Done():
		case <-m.wake:
		case <-timer.C:
		}
		timer.Stop()
		delay = min(2*delay, maxRetryDelay)
	}
}

func isPermanent(err error) bool {
	var perm *permanentError
	return errors.As(err, &perm)
}

// apply makes name be t (nil: absent) once. gen is the generation of want that t belongs to.
func (p *Provider) apply(r *run, name multicluster.ClusterName, m *member, t *target, gen uint64) error {
	if t == nil {
		p.disengage(r, name, m)
		return nil
	}
	if r.ctx.Err() != nil {
		return r.ctx.Err()
	}

	p.mu.Lock()
	if m.engaged != nil {
		cur, err := p.Clusters.GetTyped(r.ctx, name)
		current := err == nil && cur == m.engaged
		switch {
		case m.life.Err() != nil:
			// Its run is over (a RunOnce whose context ended): forget it now rather than when the set notices.
			if current {
				p.Clusters.Remove(name)
			}
			m.engaged, m.config, m.life, m.cancelLife = nil, nil, nil, nil
		case current && clusters.EqualConfigs(m.config, t.config):
			p.mu.Unlock()
			return nil
		}
	}
	p.mu.Unlock()

	cfg := rest.CopyConfig(t.config)
	cl, err := cluster.New(cfg, slices.Concat(p.settings.clusterOptions,
		[]cluster.Option{informer.ClusterOption(), recovery.ClusterOption(name, cfg), restmapper.ClusterOption()})...)
	if err != nil {
		return &permanentError{fmt.Errorf("cluster %q (context %q of %s): unable to build the cluster: %w",
			name, t.context, t.path, err)}
	}

	life, cancelLife := context.WithCancel(r.ctx)
	p.mu.Lock()
	if m.gen != gen {
		p.mu.Unlock()
		cancelLife()
		return nil
	}
	m.abort = cancelLife
	replacing := m.engaged != nil
	p.mu.Unlock()

	began := time.Now()
	err = p.Clusters.AddOrReplace(life, name, cl, r.aware)

	p.mu.Lock()
	m.abort = nil
	cur, getErr := p.Clusters.GetTyped(r.ctx, name)
	isOurs := getErr == nil && cur == cl
	var stale context.CancelFunc
	switch {
	case err != nil:
		// Nothing of cl is left running; the cluster engaged before, if any, still is.
	case life.Err() != nil:
		// Aborted (superseded) or the run ended after cl was engaged: cl is stopping, and so is the cluster it
		// replaced.
		stale = m.cancelLife
		m.engaged, m.config, m.life, m.cancelLife = nil, nil, nil, nil
	case !isOurs:
		// An equal cluster was already engaged; cl was never started.
	default:
		stale = m.cancelLife
		m.engaged, m.config, m.life, m.cancelLife = cl, t.config, life, cancelLife
	}
	p.mu.Unlock()

	if err != nil || life.Err() != nil || !isOurs {
		cancelLife()
		if isOurs {
			p.Clusters.Remove(name)
		}
	}
	if stale != nil {
		stale()
	}
	if err != nil {
		return err
	}
	if isOurs && life.Err() == nil {
		verb := "Engaged cluster"
		if replacing {
			verb = "Replaced cluster"
		}
		r.log.Info(verb, "cluster", name, "path", t.path, "context", t.context,
			"duration", time.Since(began).Round(time.Millisecond))
	}
	return nil
}

// disengage stops the cluster engaged under name, if any.
func (p *Provider) disengage(r *run, name multicluster.ClusterName, m *member) {
	p.mu.Lock()
	engaged, cancelLife := m.engaged, m.cancelLife
	m.engaged, m.config, m.life, m.cancelLife = nil, nil, nil, nil
	p.mu.Unlock()
	if engaged == nil {
		return
	}
	// Remove forgets the name at once, cancelling the cluster's context; cancelLife releases the context it
	// lived in.
	p.Clusters.Remove(name)
	cancelLife()
	r.log.Info("Disengaged cluster", "cluster", name)
}
