// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package file

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/go-logr/logr"
	"k8s.io/client-go/rest"

	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// fileState is what the provider remembers of one kubeconfig file between scans: the contexts of the last version
// of it that could be read, so that a file caught half written, or edited into something invalid, keeps its
// clusters until it is valid again or removed.
type fileState struct {
	contexts map[string]*rest.Config
}

// scan reads every kubeconfig file of the sources and returns the clusters they define, by name. It is called by
// one goroutine at a time (the watch loop of Start, or RunOnce).
//
// A file that cannot be read or parsed, and a context that cannot be turned into a rest.Config, is reported once
// (until it changes) and keeps what the last good version of it defined. A file that no longer exists, or no longer
// matches the globs of its directory, defines nothing. errs holds what was reported during this scan.
func (p *Provider) scan(log logr.Logger) (desired map[multicluster.ClusterName]clusters.Target, errs []error) {
	paths, listErrs := p.candidates(log)
	errs = append(errs, listErrs...)

	desired = map[multicluster.ClusterName]clusters.Target{}
	present := make(map[string]bool, len(paths))
	for _, path := range paths {
		state, err := p.readFile(log, path)
		if err != nil {
			errs = append(errs, err)
		}
		if state == nil {
			continue
		}
		present[path] = true
		contexts := make([]string, 0, len(state.contexts))
		for c := range state.contexts {
			contexts = append(contexts, c)
		}
		slices.Sort(contexts)
		for _, c := range contexts {
			name := p.settings.clusterName(path, c)
			if other, taken := desired[name]; taken {
				err := fmt.Errorf("cluster %q: context %q of %s has the same name as %s; ignoring the former",
					name, c, path, other.Source)
				p.reportOnce(log, "name:"+name.String(), err, "Duplicate cluster name", "cluster", name)
				errs = append(errs, err)
				continue
			}
			p.clearReport("name:" + name.String())
			desired[name] = p.target(path, c, state)
		}
	}
	for path := range p.files {
		if !present[path] {
			delete(p.files, path)
			p.clearReportsOf(path)
		}
	}
	return desired, errs
}

// candidates lists the files to read: every configured file, and the files of every directory whose names match
// the globs. Paths are absolute, sorted and unique.
func (p *Provider) candidates(log logr.Logger) ([]string, []error) {
	var errs []error
	set := map[string]bool{}
	for _, f := range p.settings.files {
		set[f] = true
	}
	for _, dir := range p.settings.dirs {
		entries, err := os.ReadDir(dir)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			p.clearReport("dir:" + dir)
			continue
		case err != nil:
			// Keep the files known from before: they are read one by one below and keep their clusters if they
			// cannot be read either.
			err = fmt.Errorf("unable to list kubeconfig directory %s: %w", dir, err)
			p.reportOnce(log, "dir:"+dir, err, "Failed to list kubeconfig directory", "path", dir)
			errs = append(errs, err)
			for path := range p.files {
				if filepath.Dir(path) == dir {
					set[path] = true
				}
			}
			continue
		}
		p.clearReport("dir:" + dir)
		for _, e := range entries {
			if !p.settings.matches(e.Name()) {
				continue
			}
			path := filepath.Join(dir, e.Name())
			// Follow symbolic links; only regular files are kubeconfigs.
			if info, err := os.Stat(path); err == nil && !info.Mode().IsRegular() {
				continue
			}
			set[path] = true
		}
	}
	paths := make([]string, 0, len(set))
	for path := range set {
		paths = append(paths, path)
	}
	slices.Sort(paths)
	return paths, errs
}

// readFile reads and parses one kubeconfig file and updates what the provider remembers of it. It returns the
// file's state, or nil if the file does not exist (or, never having been valid, defines nothing), and the error it
// reported, if any.
func (p *Provider) readFile(log logr.Logger, path string) (*fileState, error) {
	last := p.files[path]
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		p.clearReportsOf(path)
		return nil, nil
	}
	if err != nil {
		err = fmt.Errorf("unable to read kubeconfig %s: %w", path, err)
		p.reportOnce(log, "file:"+path, err, "Failed to read kubeconfig; keeping the clusters of its last good version, if any", "path", path)
		return last, err
	}
	if len(bytes.TrimSpace(data)) == 0 {
		// Perhaps caught being written (truncated, not yet filled), perhaps emptied by mistake: keep what the file
		// defined before, and say so as an error naming the file and the clusters it keeps (once, until it changes).
		err = fmt.Errorf("kubeconfig %s is empty", path)
		var kept []string
		if last != nil {
			for c := range last.contexts {
				kept = append(kept, p.settings.clusterName(path, c).String())
			}
			slices.Sort(kept)
		}
		p.reportOnce(log, "file:"+path, err, "Kubeconfig is empty; keeping the clusters of its last good version, if any",
			"path", path, "keptClusters", kept)
		return last, err
	}

	configs, contextErrs, err := parseKubeconfig(path, data, p.settings.policy)
	if err != nil {
		p.reportOnce(log, "file:"+path, err, "Failed to load kubeconfig; keeping the clusters of its last good version, if any", "path", path)
		return last, err
	}
	p.clearReport("file:" + path)

	var errs []error
	state := &fileState{contexts: configs}
	p.clearContextReports(path, contextErrs)
	for c, cerr := range contextErrs {
		p.reportOnce(log, "context:"+path+"\x00"+c, cerr, "Failed to load kubeconfig context; keeping the cluster of its last good version, if any",
			"path", path, "context", c)
		errs = append(errs, cerr)
		if last != nil {
			if cfg, ok := last.contexts[c]; ok {
				state.contexts[c] = cfg
			}
		}
	}
	p.files[path] = state
	return state, errors.Join(errs...)
}
