// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package file

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// Provider is a multicluster.Provider whose clusters are the contexts of kubeconfig files on disk. Create it with
// New. Get, IndexField and ClusterNames come from the embedded Clusters, whose ErrorHandler also receives the
// provider's own reports (unreadable or malformed files, clusters that fail to engage) and whose WaitCacheTimeout
// bounds each cluster's cache sync; set them before starting the provider.
type Provider struct {
	clusters.Clusters[cluster.Cluster]

	settings *settings
	// engager engages the clusters the files define, in the embedded Clusters.
	engager *clusters.Engager

	// mu guards active.
	mu sync.Mutex
	// active is "Start" or "RunOnce" while one of them runs; they never overlap.
	active string

	// files remembers the last good contents of each kubeconfig file. It belongs to the goroutine that scans
	// (Start's loop or RunOnce), one at a time.
	files map[string]*fileState

	// reportMu guards reports: the message last reported per subject (a file, a context, a cluster), so that a
	// problem is reported once until it changes or goes away.
	reportMu sync.Mutex
	reports  map[string]string
}

var (
	_ multicluster.Provider         = &Provider{}
	_ multicluster.ProviderRunnable = &Provider{}
)

// New returns a provider for the kubeconfig files that opts designates. It applies the defaults of Options and
// returns an error for invalid options, such as a malformed glob. With neither KubeconfigFiles nor KubeconfigDirs
// set, the provider reads the files listed in $KUBECONFIG (if set), ~/.kube/config, and the files of the working
// directory that match the globs. Relative paths (also those in $KUBECONFIG) are resolved against the working
// directory at the time of the call, so cluster names do not depend on later changes of it. New reads no file.
func New(opts Options) (*Provider, error) {
	s, err := opts.complete()
	if err != nil {
		return nil, err
	}
	p := &Provider{
		Clusters: clusters.New[cluster.Cluster](),
		settings: s,
		files:    map[string]*fileState{},
		reports:  map[string]string{},
	}
	p.engager = clusters.NewEngager(clusters.EngagerOptions{Clusters: &p.Clusters, ClusterOptions: s.clusterOptions})
	return p, nil
}

// ClusterName returns the name of the cluster for the context contextName of the kubeconfig file at path: the
// file's absolute, cleaned path (symbolic links are not resolved), the provider's separator and the context name,
// for example "/home/me/.kube/config+kind-dev". A relative path is made absolute against the current working
// directory. Names are stable: the same context of the same file always has the same name, across edits of the file
// and restarts of the program.
func (p *Provider) ClusterName(path, contextName string) multicluster.ClusterName {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	return p.settings.clusterName(filepath.Clean(path), contextName)
}

// Start engages every context of every kubeconfig file found, all in parallel, and then watches the files and
// directories until ctx is done, keeping the engaged clusters in line with the files:
//
//   - a new file, or a new context in a file, is engaged;
//   - a context whose endpoint, credentials or other connection settings change is replaced (AddOrReplace): the
//     new cluster is engaged before the old one is stopped;
//   - a removed file, a file that no longer matches the globs, and a removed context are disengaged;
//   - a file that cannot be read or parsed is reported with its path (to ErrorHandler if set, else logged) and
//     keeps the clusters of its last good version; every other cluster keeps running.
//
// Files written by renaming a temporary file over them (editors, kubectl, Kubernetes volume updates) are seen, as
// the parent directories are watched rather than the files. Bursts of events are coalesced into one scan. Clusters
// are engaged by a clusters.Engager: a cluster that fails to build, start, sync its cache or engage is retried on its
// backoff policy (clusters.DefaultRetryDelay doubling to clusters.DefaultMaxRetryDelay); it never delays the
// others. Start blocks until ctx is done, then stops every cluster it engaged, waits for its own goroutines and
// returns nil. It returns an error if the file watcher cannot be created, or if Start or RunOnce is already running.
func (p *Provider) Start(ctx context.Context, aware multicluster.Aware) error {
	if err := p.activate("Start"); err != nil {
		return err
	}
	defer p.deactivate()
	log := logf.FromContext(ctx).WithName("file-provider")
	ctx, cancel := context.WithCancel(logf.IntoContext(ctx, log))
	defer cancel()
	engaged := make(chan error, 1)
	go func() { engaged <- p.engager.Start(ctx, aware) }()
	err := p.watch(ctx, log)
	cancel()
	return errors.Join(err, <-engaged)
}

// RunOnce reads the kubeconfig files once and makes the engaged clusters match them, like one scan of Start, without
// watching: new contexts are engaged, changed ones replaced and vanished ones disengaged, all in parallel. It returns
// when every cluster it engages is engaged (or failed), with an error joining the reasons of every file and cluster
// that failed, each naming its path or cluster; the other clusters are engaged regardless. Clusters engaged by
// RunOnce live until ctx is done or a later RunOnce removes or replaces them. Failures are not retried: call RunOnce
// again. It returns an error if Start or RunOnce is already running; use Start or RunOnce, not both.
func (p *Provider) RunOnce(ctx context.Context, aware multicluster.Aware) error {
	if err := p.activate("RunOnce"); err != nil {
		return err
	}
	defer p.deactivate()
	log := logf.FromContext(ctx).WithName("file-provider")
	desired, errs := p.scan(log)
	return errors.Join(append(errs, p.engager.RunOnce(logf.IntoContext(ctx, log), aware, desired))...)
}

// activate marks Start or RunOnce as running, or fails if one of them already is.
func (p *Provider) activate(what string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.active != "" {
		return fmt.Errorf("file provider: cannot run %s: %s is running", what, p.active)
	}
	p.active = what
	return nil
}

func (p *Provider) deactivate() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.active = ""
}

// report hands err to ErrorHandler if set, and logs it otherwise.
func (p *Provider) report(log logr.Logger, err error, msg string, keysAndValues ...any) {
	if p.ErrorHandler != nil {
		p.ErrorHandler(err, msg, keysAndValues...)
		return
	}
	log.Error(err, msg, keysAndValues...)
}

// reportOnce reports err unless the same message was last reported for the same subject key.
func (p *Provider) reportOnce(log logr.Logger, key string, err error, msg string, keysAndValues ...any) {
	p.reportMu.Lock()
	if p.reports[key] == err.Error() {
		p.reportMu.Unlock()
		return
	}
	p.reports[key] = err.Error()
	p.reportMu.Unlock()
	p.report(log, err, msg, keysAndValues...)
}

// clearReport forgets what was reported for a subject, which is fine again.
func (p *Provider) clearReport(key string) {
	p.reportMu.Lock()
	defer p.reportMu.Unlock()
	delete(p.reports, key)
}

// clearReportsOf forgets what was reported for a file and its contexts.
func (p *Provider) clearReportsOf(path string) {
	p.reportMu.Lock()
	defer p.reportMu.Unlock()
	delete(p.reports, "file:"+path)
	prefix := "context:" + path + "\x00"
	for key := range p.reports {
		if strings.HasPrefix(key, prefix) {
			delete(p.reports, key)
		}
	}
}

// clearContextReports forgets what was reported for the contexts of a file that are not in failing.
func (p *Provider) clearContextReports(path string, failing map[string]error) {
	p.reportMu.Lock()
	defer p.reportMu.Unlock()
	prefix := "context:" + path + "\x00"
	for key := range p.reports {
		if c, ok := strings.CutPrefix(key, prefix); ok {
			if _, still := failing[c]; !still {
				delete(p.reports, key)
			}
		}
	}
}
