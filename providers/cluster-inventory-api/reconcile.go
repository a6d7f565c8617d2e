package clusterinventoryapi

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"time"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/event"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"sigs.k8s.io/multicluster-runtime/internal/retry"
	"sigs.k8s.io/multicluster-runtime/pkg/informer"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	"sigs.k8s.io/multicluster-runtime/pkg/recovery"
	"sigs.k8s.io/multicluster-runtime/pkg/restmapper"
	clusterinventoryv1alpha1 "sigs.k8s.io/multicluster-runtime/providers/cluster-inventory-api/apis/v1alpha1"
)

// notRunningRequeue is how soon a profile reconciled before the manager runs is looked at again.
const notRunningRequeue = time.Second

// Reconcile brings the cluster of one ClusterProfile in line with it: a ready profile whose rest.Config is new or
// changed is engaged in the background; a profile that is not ready or is gone is disengaged. When the rest.Config
// cannot be obtained (no configured access provider, a malformed entry, a missing Secret), the error names the
// profile's cluster, a Warning event is recorded on the profile and the profile is retried with backoff; a cluster it already has engaged
// stays engaged with its last config until the profile stops being ready or is deleted. It is the provider's
// controller's reconciler on the hub; it is not meant to be called otherwise.
func (p *Provider) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	key := req.String()
	log := logf.FromContext(ctx).WithValues("clusterProfile", key)

	p.mu.Lock()
	running := p.ctx != nil
	p.mu.Unlock()
	if !running {
		return reconcile.Result{RequeueAfter: notRunningRequeue}, nil
	}

	clp := &clusterinventoryv1alpha1.ClusterProfile{}
	if err := p.client.Get(ctx, req.NamespacedName, clp); err != nil {
		if apierrors.IsNotFound(err) {
			p.disengage(log, key, "the ClusterProfile is gone")
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, fmt.Errorf("cluster profile %s: %w", key, err)
	}
	name := p.opts.ClusterName(clp)
	log = log.WithValues("cluster", name)
	if !p.opts.IsReady(ctx, clp) {
		p.disengage(log, key, "the ClusterProfile is not ready")
		return reconcile.Result{}, nil
	}
	if p.isBusy(key) {
		return reconcile.Result{}, nil // the engaging goroutine brings the profile back when it is done
	}

	cfg, err := p.strategy.GetKubeConfig(ctx, p.client, clp)
	if err != nil {
		p.warnf(clp, reasonKubeconfigUnavailable, actionBuildClientConfig, "cannot build a client config for cluster %s: %v", name, err)
		return reconcile.Result{}, fmt.Errorf("cluster %q: %w", name, err)
	}
	cfgKey := configKey(cfg)

	p.mu.Lock()
	defer p.mu.Unlock()
	m := p.members[key]
	if m == nil {
		m = &member{}
		p.members[key] = m
	}
	if m.busy || (m.name == name && m.cfgKey == cfgKey) {
		return reconcile.Result{}, nil
	}
	m.busy = true
	p.workers.Add(1)
	go p.engage(p.ctx, p.aware, log, clp.DeepCopy(), key, name, cfg, cfgKey, m)
	return reconcile.Result{}, nil
}

func (p *Provider) isBusy(key string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	m := p.members[key]
	return m != nil && m.busy
}

// engage checks cfg against the cluster, builds and engages the cluster under name (replacing what the profile had
// engaged, under this or another name), and hands the profile back to the controller: at once on success, after a
// backoff on failure.
func (p *Provider) engage(ctx context.Context, aware multicluster.Aware, log logr.Logger, clp *clusterinventoryv1alpha1.ClusterProfile, key string, name multicluster.ClusterName, cfg *rest.Config, cfgKey string, m *member) {
	defer p.workers.Done()

	err := p.probe(cfg)
	if err == nil {
		cl, newErr := p.opts.NewCluster(ctx, clp, cfg, slices.Concat(p.opts.ClusterOptions,
			[]cluster.Option{informer.ClusterOption(), recovery.ClusterOption(name, cfg), restmapper.ClusterOption()})...)
		if newErr != nil {
			err = fmt.Errorf("creating the cluster: %w", newErr)
		} else {
			err = p.clusters.AddOrReplace(ctx, name, cl, aware)
		}
	}

	p.mu.Lock()
	m.busy = false
	oldName, replaced := m.name, m.name != ""
	var delay time.Duration
	if err != nil {
		m.failures++
		delay = retry.Delay(retry.EngageBackoff, m.failures)
	} else {
		m.name, m.cfgKey, m.failures = name, cfgKey, 0
	}
	p.mu.Unlock()

	switch {
	case ctx.Err() != nil:
		return
	case err != nil:
		err = fmt.Errorf("cluster %q of cluster profile %s: %w", name, key, err)
		log.Error(err, "Cannot engage cluster, retrying", "retryAfter", delay)
		p.warnf(clp, reasonEngageFailed, actionEngage, "%v", err)
	case replaced && oldName != name:
		p.clusters.Remove(oldName)
		log.Info("Engaged cluster under its new name", "oldName", oldName)
	case replaced:
		log.Info("Replaced cluster: its client config changed")
	default:
		log.Info("Engaged cluster")
	}

	retry.HandBack(ctx, delay, p.retry, event.TypedGenericEvent[*clusterinventoryv1alpha1.ClusterProfile]{Object: clp})
}

// probe asks the cluster for its version with cfg, so that wrong credentials, a failing credential plugin or an
// unreachable endpoint keep the cluster from being engaged.
func (p *Provider) probe(cfg *rest.Config) error {
	cfg = rest.CopyConfig(cfg)
	cfg.Timeout = p.opts.ProbeTimeout
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return fmt.Errorf("building a client: %w", err)
	}
	if _, err := dc.ServerVersion(); err != nil {
		if cfg.ExecProvider != nil {
			return fmt.Errorf("reaching the cluster with credential plugin %s: %w", cfg.ExecProvider.Command, err)
		}
		return fmt.Errorf("reaching the cluster: %w", err)
	}
	return nil
}

// disengage stops the profile's cluster, unless it is being engaged (the engaging goroutine hands the profile back
// when it is done).
func (p *Provider) disengage(log logr.Logger, key, why string) {
	p.mu.Lock()
	m := p.members[key]
	if m == nil || m.busy {
		p.mu.Unlock()
		return
	}
	delete(p.members, key)
	p.mu.Unlock()
	if m.name != "" {
		p.clusters.Remove(m.name)
		log.Info("Disengaged cluster: "+why, "cluster", m.name)
	}
}

// configKey identifies a rest.Config by what reaches the cluster and who it is, without keeping credentials in
// memory beyond the config itself.
func configKey(cfg *rest.Config) string {
	exec := ""
	if cfg.ExecProvider != nil {
		exec = fmt.Sprintf("%s|%v|%v|%v", cfg.ExecProvider.Command, cfg.ExecProvider.Args, cfg.ExecProvider.Env, cfg.ExecProvider.Config)
	}
	return fmt.Sprintf("%s|%s|%s|%s|%s|%s|%s|%s|%s", cfg.Host, cfg.ServerName, hash(cfg.CAData), hash(cfg.CertData), hash(cfg.KeyData),
		hash([]byte(cfg.BearerToken)), cfg.BearerTokenFile, cfg.Username, exec)
}

func hash(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}
