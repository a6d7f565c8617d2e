package capi

import (
	"context"
	"fmt"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/rest"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/event"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"sigs.k8s.io/multicluster-runtime/internal/retry"
	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// notStartedRequeue is how soon a Cluster reconciled before the provider is started is looked at again.
const notStartedRequeue = time.Second

// Reconcile brings the cluster of one Cluster object in line with it: a provisioned Cluster whose kubeconfig is new
// or changed is engaged (in the background), a deleted or unprovisioned one is disengaged. Errors (no kubeconfig
// Secret, a malformed kubeconfig) name the cluster and make the controller retry with backoff. It is the provider's
// controller's reconciler on the host manager; it is not meant to be called otherwise.
func (p *Provider) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	name := req.String()
	log := logf.FromContext(ctx).WithValues("cluster", name)

	p.mu.Lock()
	started := p.ctx != nil
	p.mu.Unlock()
	if !started {
		return reconcile.Result{RequeueAfter: notStartedRequeue}, nil
	}

	ccl := &clusterv1.Cluster{}
	if err := p.client.Get(ctx, req.NamespacedName, ccl); err != nil {
		if apierrors.IsNotFound(err) {
			p.disengage(log, name, "the Cluster is gone")
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, fmt.Errorf("cluster %q: reading the Cluster: %w", name, err)
	}
	if !p.opts.IsProvisioned(ccl) {
		p.disengage(log, name, "the Cluster is not provisioned or is being deleted")
		return reconcile.Result{}, nil
	}
	if p.isBusy(name) {
		return reconcile.Result{}, nil // the engaging goroutine brings the Cluster back when it is done
	}

	cfg, err := p.opts.GetSecret(ctx, ccl)
	if err != nil {
		p.recorder.Eventf(ccl, corev1.EventTypeWarning, "KubeconfigUnavailable", "cannot build a client config for cluster %s: %v", name, err)
		return reconcile.Result{}, fmt.Errorf("cluster %q: %w", name, err)
	}

	p.mu.Lock()
	defer p.mu.Unlock()
	m := p.members[name]
	if m == nil {
		m = &member{}
		p.members[name] = m
	}
	if m.busy || (m.cfg != nil && clusters.EqualConfigs(m.cfg, cfg)) {
		return reconcile.Result{}, nil
	}
	m.busy = true
	p.workers.Add(1)
	go p.engage(p.ctx, p.aware, log, ccl.DeepCopy(), name, cfg, m)
	return reconcile.Result{}, nil
}

func (p *Provider) isBusy(name string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	m := p.members[name]
	return m != nil && m.busy
}

// engage builds and engages the cluster of ccl with cfg, replacing the one engaged before if any, and then hands
// the Cluster back to the controller: at once on success (to catch changes made meanwhile), after a backoff on
// failure.
func (p *Provider) engage(ctx context.Context, aware multicluster.Aware, log logr.Logger, ccl *clusterv1.Cluster, name string, cfg *rest.Config, m *member) {
	defer p.workers.Done()

	cl, err := p.opts.NewCluster(ctx, ccl, cfg, p.opts.ClusterOptions...)
	if err != nil {
		err = fmt.Errorf("cluster %q: creating the cluster: %w", name, err)
	} else {
		err = p.clusters.AddOrReplace(ctx, name, cl, aware)
	}

	p.mu.Lock()
	m.busy = false
	replaced := m.cfg != nil
	var delay time.Duration
	if err != nil {
		m.failures++
		delay = retry.Delay(retry.EngageBackoff, m.failures)
	} else {
		m.cfg, m.failures = cfg, 0
	}
	p.mu.Unlock()

	switch {
	case ctx.Err() != nil:
		return
	case err != nil:
		log.Error(err, "Cannot engage cluster, retrying", "retryAfter", delay)
		p.recorder.Eventf(ccl, corev1.EventTypeWarning, "EngageFailed", "cannot engage cluster %s: %v", name, err)
	case replaced:
		log.Info("Replaced cluster: its kubeconfig changed")
	default:
		log.Info("Engaged cluster")
	}

	retry.HandBack(ctx, delay, p.retry, event.TypedGenericEvent[*clusterv1.Cluster]{Object: ccl})
}

// disengage stops the named cluster, unless it is being engaged: the engaging goroutine hands the Cluster back to
// the controller when it is done, and the Cluster is looked at again then.
func (p *Provider) disengage(log logr.Logger, name, why string) {
	p.mu.Lock()
	m := p.members[name]
	if m == nil || m.busy {
		p.mu.Unlock()
		return
	}
	delete(p.members, name)
	p.mu.Unlock()
	p.clusters.Remove(name)
	log.Info("Disengaged cluster: " + why)
}
