package capi

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/event"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"sigs.k8s.io/multicluster-runtime/internal/retry"
	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
	"sigs.k8s.io/multicluster-runtime/pkg/informer"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	"sigs.k8s.io/multicluster-runtime/pkg/recovery"
	"sigs.k8s.io/multicluster-runtime/pkg/restmapper"
)

// notStartedRequeue is how soon an object reconciled before the provider is started is looked at again.
const notStartedRequeue = time.Second

// Event reasons and the action of the Warning Events the provider records on watched objects.
const (
	reasonKubeconfigUnavailable = "KubeconfigUnavailable"
	reasonEngageFailed          = "EngageFailed"
	actionEngage                = "Engage"
)

// Reconcile brings the cluster of one watched object in line with it: a ready object (Options.IsReady) whose
// kubeconfig is new or changed has its cluster engaged, in the background; an object that is gone, being deleted
// or not ready has its cluster disengaged. Errors (no kubeconfig, a malformed one) name the cluster, are recorded
// as a Warning Event on the object and make the controller retry with backoff. It is the reconciler of the
// provider's controller on the host manager; it is not meant to be called otherwise.
func (p *Provider) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	name := multicluster.ClusterName(req.NamespacedName.String())
	log := logf.FromContext(ctx).WithValues("cluster", name)

	p.mu.Lock()
	started := p.ctx != nil
	p.mu.Unlock()
	if !started {
		return reconcile.Result{RequeueAfter: notStartedRequeue}, nil
	}

	obj := p.opts.ObjectToWatch.DeepCopyObject().(client.Object)
	if err := p.client.Get(ctx, req.NamespacedName, obj); err != nil {
		if apierrors.IsNotFound(err) {
			p.disengage(log, name, "its object is gone")
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, fmt.Errorf("cluster %q: reading its object: %w", name, err)
	}
	if !obj.GetDeletionTimestamp().IsZero() {
		p.disengage(log, name, "its object is being deleted")
		return reconcile.Result{}, nil
	}
	if !p.selected(obj) {
		p.disengage(log, name, "its object is filtered out by the provider's predicates")
		return reconcile.Result{}, nil
	}
	if !p.opts.IsReady(ctx, obj) {
		p.disengage(log, name, "its object is not ready")
		return reconcile.Result{}, nil
	}
	if p.isBusy(name) {
		return reconcile.Result{}, nil // the engaging goroutine hands the object back when it is done
	}

	cfg, err := p.restConfig(ctx, obj)
	if err != nil {
		p.recorder.Eventf(obj, nil, corev1.EventTypeWarning, reasonKubeconfigUnavailable, actionEngage,
			"cannot build a client config for cluster %s: %v", name, err)
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
	go p.engage(p.ctx, p.aware, log, obj, name, cfg, m)
	return reconcile.Result{}, nil
}

// selected reports whether every one of Options.Predicates accepts obj as a generic event. Events of watched
// objects are filtered by the predicates before they are queued, but an object also comes back through its
// kubeconfig Secret and through retries: it must pass the predicates then too.
func (p *Provider) selected(obj client.Object) bool {
	for _, pred := range p.opts.Predicates {
		if !pred.Generic(event.GenericEvent{Object: obj}) {
			return false
		}
	}
	return true
}

func (p *Provider) isBusy(name multicluster.ClusterName) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	m := p.members[name]
	return m != nil && m.busy
}

// restConfig returns the rest.Config of obj's cluster, from the kubeconfig GetSecret returns.
func (p *Provider) restConfig(ctx context.Context, obj client.Object) (*rest.Config, error) {
	data, err := p.opts.GetSecret(ctx, p.direct, obj)
	if err != nil {
		return nil, err
	}
	return parseKubeconfig(data)
}

// parseKubeconfig builds a rest.Config from the current context of a kubeconfig. Its errors never echo the
// kubeconfig: it carries credentials.
func parseKubeconfig(data []byte) (*rest.Config, error) {
	kubeconfig, err := clientcmd.Load(data)
	if err != nil {
		return nil, errors.New("cannot parse the kubeconfig")
	}
	cfg, err := clientcmd.NewDefaultClientConfig(*kubeconfig, nil).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("invalid kubeconfig: %w", err)
	}
	return cfg, nil
}

// engage builds and engages the cluster of obj with cfg, replacing the one engaged before if any, and then hands
// the object back to the controller: at once on success (to catch changes made meanwhile), after a backoff on
// failure.
func (p *Provider) engage(ctx context.Context, aware multicluster.Aware, log logr.Logger, obj client.Object, name multicluster.ClusterName, cfg *rest.Config, m *member) {
	defer p.workers.Done()

	cl, err := p.opts.NewCluster(ctx, obj, cfg, slices.Concat(p.opts.ClusterOptions,
		[]cluster.Option{informer.ClusterOption(), recovery.ClusterOption(name, cfg), restmapper.ClusterOption()})...)
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
		p.recorder.Eventf(obj, nil, corev1.EventTypeWarning, reasonEngageFailed, actionEngage,
			"cannot engage cluster %s: %v", name, err)
	case replaced:
		log.Info("Replaced cluster: its kubeconfig changed")
	default:
		log.Info("Engaged cluster")
	}

	retry.HandBack(ctx, delay, p.retry, event.GenericEvent{Object: obj})
}

// disengage stops the named cluster, unless it is being engaged: the engaging goroutine hands the object back to
// the controller when it is done, and the object is looked at again then.
func (p *Provider) disengage(log logr.Logger, name multicluster.ClusterName, why string) {
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
