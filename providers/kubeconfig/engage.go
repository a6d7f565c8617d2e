package kubeconfig

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"sigs.k8s.io/multicluster-runtime/pkg/informer"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	"sigs.k8s.io/multicluster-runtime/pkg/recovery"
	"sigs.k8s.io/multicluster-runtime/pkg/restmapper"
)

// engageRetry paces the attempts to engage a cluster whose Secret has not changed since the last attempt failed.
var engageRetry = wait.Backoff{Duration: time.Second, Factor: 2, Jitter: 0.1, Steps: 1 << 30, Cap: 2 * time.Minute}

// secretState is what the provider knows of the cluster of one Secret. At most one goroutine (a worker) works on it
// at a time, always towards the latest desired cluster, so the operations on one name never overlap.
type secretState struct {
	name multicluster.ClusterName

	// desired is the cluster the Secret describes; nil once it describes none. gen counts its changes.
	desired *desiredCluster
	gen     uint64

	// engaged reports whether a cluster of this Secret is engaged, and applied is the hash of its kubeconfig.
	engaged bool
	applied [32]byte
	// engaging reports whether an attempt's cluster has synced and is being handed to the manager; ListClusters
	// lists it from then on, so a component reacting to the engagement finds the cluster listed.
	engaging bool

	// working reports whether a worker runs for this state; wake tells it that desired changed.
	working bool
	wake    chan struct{}
}

// want records the cluster a Secret describes (nil for none) and has a worker bring the engaged cluster in line.
// A cluster that should go is removed at once, which also aborts an attempt to start it that is in flight.
func (p *Provider) want(name multicluster.ClusterName, d *desiredCluster, why string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.runCtx == nil {
		return errors.New("kubeconfig provider: the watch of Secrets has not started")
	}
	s := p.states[name]

	if d == nil {
		if s == nil {
			return nil
		}
		s.desired = nil
		s.gen++
		if s.engaged {
			p.log.Info("Disengaging cluster", "cluster", name, "reason", why)
		}
		p.clusters.Remove(name)
		s.engaged = false
		if s.working {
			notify(s.wake)
		} else {
			delete(p.states, name)
		}
		return nil
	}

	if s == nil {
		s = &secretState{name: name, wake: make(chan struct{}, 1)}
		p.states[name] = s
	}
	if s.desired != nil && s.desired.hash == d.hash {
		// Unchanged: the cluster is engaged, being engaged or being retried, unless it stopped on its own.
		if s.working || p.present(name) {
			return nil
		}
		s.engaged = false
	}
	s.desired = d
	s.gen++
	if s.working && !s.engaged {
		// An attempt for an earlier kubeconfig is in flight and nothing is engaged under the name: abort it rather
		// than wait for a cache that may never sync.
		p.clusters.Remove(name)
	}
	if s.working {
		notify(s.wake)
		return nil
	}
	if p.runCtx.Err() != nil {
		// The manager is stopping: start nothing more (the watch is waiting for the workers to end).
		return nil
	}
	s.working = true
	p.workers.Add(1)
	go p.work(p.runCtx, s)
	return nil
}

// present reports whether the clusters set holds a cluster under name.
func (p *Provider) present(name multicluster.ClusterName) bool {
	_, err := p.clusters.Get(context.Background(), name)
	return err == nil
}

// notify wakes a worker without blocking.
func notify(wake chan struct{}) {
	select {
	case wake <- struct{}{}:
	default:
	}
}

// work brings the engaged cluster of one Secret in line with its desired cluster until they match, retrying failed
// attempts with backoff, and exits when they match, when the Secret describes no cluster, or when runCtx ends.
func (p *Provider) work(runCtx context.Context, s *secretState) {
	defer p.workers.Done()
	backoff := engageRetry
	log := p.log.WithValues("cluster", s.name)
	for {
		p.mu.Lock()
		select {
		case <-s.wake: // this attempt sees the latest change
		default:
		}
		d, gen := s.desired, s.gen
		switch {
		case runCtx.Err() != nil:
			s.working = false
			p.mu.Unlock()
			return
		case d == nil:
			// An attempt that finished after the Secret went may have engaged a cluster: remove it.
			p.clusters.Remove(s.name)
			s.engaged, s.working = false, false
			delete(p.states, s.name)
			p.mu.Unlock()
			return
		case s.engaged && s.applied == d.hash:
			s.working = false
			p.mu.Unlock()
			return
		}
		replacing := s.engaged
		p.mu.Unlock()

		began := time.Now()
		err := p.engage(runCtx, s, d)

		p.mu.Lock()
		s.engaging = false
		current := s.gen == gen
		if err == nil {
			s.engaged, s.applied = true, d.hash
		}
		p.mu.Unlock()

		switch {
		case err == nil && current:
			what := "Engaged cluster"
			if replacing {
				what = "Replaced cluster"
			}
			log.Info(what, "secret", d.secret.Namespace+"/"+d.secret.Name, "duration", time.Since(began).Round(time.Millisecond))
			p.recorder.Eventf(d.secret, nil, corev1.EventTypeNormal, ReasonEngaged, actionEngage, "%s %q from key %q of Secret %s/%s", what,
				s.name, p.opts.KubeconfigSecretKey, d.secret.Namespace, d.secret.Name)
			backoff = engageRetry
		case err == nil, !current:
			// The Secret changed meanwhile: go on with its latest version.
			backoff = engageRetry
		case runCtx.Err() != nil:
		default:
			err = redactedError(err, d.config)
			delay := backoff.Step()
			log.Error(err, "Failed to engage cluster; retrying", "secret", d.secret.Namespace+"/"+d.secret.Name,
				"retryIn", delay.Round(time.Millisecond))
			p.recorder.Eventf(d.secret, nil, corev1.EventTypeWarning, ReasonEngageFailed, actionEngage,
				"Failed to engage cluster %q from key %q of Secret %s/%s, retrying in %s: %v", s.name,
				p.opts.KubeconfigSecretKey, d.secret.Namespace, d.secret.Name, delay.Round(time.Second), err)
			timer := time.NewTimer(delay)
			select {
			case <-timer.C:
			case <-s.wake:
				backoff = engageRetry
			case <-runCtx.Done():
			}
			timer.Stop()
		}
	}
}

// engage builds the cluster of d and adds it under name, replacing a different cluster of that name, and returns
// once it is engaged or the attempt failed. The cluster's context derives from runCtx, the manager's.
func (p *Provider) engage(runCtx context.Context, s *secretState, d *desiredCluster) error {
	cfg := rest.CopyConfig(d.config)
	cl, err := cluster.New(cfg, append(p.clusterOptions(s.name), recovery.ClusterOption(s.name, cfg))...)
	if err != nil {
		return fmt.Errorf("building cluster %q from Secret %s/%s: %w", s.name, d.secret.Namespace, d.secret.Name, err)
	}
	return p.clusters.AddOrReplace(runCtx, s.name, cl, &listingAware{p: p, s: s})
}

// listingAware engages a synced cluster with the manager, after marking it listed by ListClusters.
type listingAware struct {
	p *Provider
	s *secretState
}

// Engage marks the cluster as being engaged and hands it to the manager.
func (a *listingAware) Engage(ctx context.Context, name multicluster.ClusterName, cl cluster.Cluster) error {
	a.p.mu.Lock()
	a.s.engaging = true
	a.p.mu.Unlock()
	return a.p.aware.Engage(ctx, name, cl)
}

// clusterOptions are the options of the cluster named name: the provider's defaults, then Options.ClusterOptions,
// then informers that call their handlers synchronously (informer.ClusterOption) unless an option chose an informer
// constructor, then discovery shared with the clusters that serve the same APIs unless an option chose a RESTMapper.
func (p *Provider) clusterOptions(name multicluster.ClusterName) []cluster.Option {
	defaults := func(o *cluster.Options) {
		o.Scheme = p.scheme
		o.Logger = p.log.WithValues("cluster", name)
	}
	return append(append([]cluster.Option{defaults}, p.opts.ClusterOptions...), informer.ClusterOption(),
		restmapper.ClusterOption())
}

// redactedError returns err with every credential of cfg redacted from its message. Errors of client-go and
// controller-runtime do not quote credentials; this keeps it so whatever a future version prints.
func redactedError(err error, cfg *rest.Config) error {
	creds := map[string][]byte{
		"token":    []byte(cfg.BearerToken),
		"password": []byte(cfg.Password),
		"cert":     cfg.CertData,
		"key":      cfg.KeyData,
	}
	return errors.New(redact(err.Error(), creds))
}
