// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package file

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/go-logr/logr"
)

// coalesceWindow is how long the watch loop gathers file events after the first of a burst before it scans once
// for all of them. Writers that replace a file in several steps (write a temporary file, rename it over the target;
// truncate, then write) finish well within it.
const coalesceWindow = 100 * time.Millisecond

// atomicWriterLink is the symbolic link Kubernetes swaps to update Secret and ConfigMap volumes at once: the
// files of such a volume are links through it, so an update shows up as an event for this name only.
const atomicWriterLink = "..data"

// watch runs Start's loop: watch the directories, scan once, then scan again after every burst of relevant events
// until the run ends.
func (p *Provider) watch(ctx context.Context, log logr.Logger) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("file provider: unable to create a file watcher: %w", err)
	}
	defer w.Close()

	log.Info("Starting", "files", p.settings.files, "directories", p.settings.dirs, "globs", p.settings.globs)
	scan := func() {
		// Watch first, so that nothing that changes while scanning goes unnoticed.
		p.syncWatches(log, w)
		desired, _ := p.scan(log)
		p.engager.WantOnly(desired)
	}
	scan()

	var (
		timer   *time.Timer
		pending <-chan time.Time
	)
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	arm := func() {
		if pending != nil {
			return
		}
		if timer == nil {
			timer = time.NewTimer(coalesceWindow)
		} else {
			timer.Reset(coalesceWindow)
		}
		pending = timer.C
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.Events:
			if !ok {
				return errors.New("file provider: the file watcher stopped")
			}
			if p.relevant(ev) {
				log.V(2).Info("File event", "path", ev.Name, "op", ev.Op.String())
				arm()
			}
		case err, ok := <-w.Errors:
			if !ok {
				return errors.New("file provider: the file watcher stopped")
			}
			// Most likely an overflow of the kernel's event queue: events were lost, so scan everything.
			p.report(log, fmt.Errorf("file provider: file watcher error: %w", err), "File watcher error; rescanning")
			arm()
		case <-pending:
			pending = nil
			scan()
		}
	}
}

// neededDirs returns the directories whose entries the provider must see change: the configured directories and
// the parent directory of each configured file. Files are watched through their directories so that a file
// replaced by a rename, which a watch on the file itself would lose track of, is still seen.
func (p *Provider) neededDirs() []string {
	dirs := slices.Clone(p.settings.dirs)
	for _, f := range p.settings.files {
		if d := filepath.Dir(f); !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	return dirs
}

// syncWatches watches every needed directory, or, for one that does not exist, its nearest existing ancestor, so
// that its creation is seen; and stops watching what is no longer needed. Watches are re-added on every call: a
// directory deleted and created anew under the same path is watched again.
func (p *Provider) syncWatches(log logr.Logger, w *fsnotify.Watcher) {
	wanted := map[string]bool{}
	for _, d := range p.neededDirs() {
		dir := nearestExistingDir(d)
		if dir == "" {
			continue
		}
		wanted[dir] = true
		if err := w.Add(dir); err != nil {
			p.reportOnce(log, "watch:"+dir, fmt.Errorf("unable to watch directory %s: %w", dir, err),
				"Failed to watch directory", "path", dir)
			continue
		}
		p.clearReport("watch:" + dir)
	}
	for _, dir := range w.WatchList() {
		if !wanted[dir] {
			_ = w.Remove(dir)
		}
	}
}

// nearestExistingDir returns dir if it is an existing directory, else its nearest ancestor that is; "" if none is.
func nearestExistingDir(dir string) string {
	for {
		if info, err := os.Stat(dir); err == nil && info.IsDir() {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// relevant reports whether a file event may change what the sources define: an event on a configured file, on a
// file of a configured directory that matches the globs, on a Kubernetes atomic-writer link, or on a needed
// directory or one of its ancestors (created, removed or renamed). Attribute changes alone are not relevant.
func (p *Provider) relevant(ev fsnotify.Event) bool {
	if ev.Op&^fsnotify.Chmod == 0 {
		return false
	}
	path := filepath.Clean(ev.Name)
	if slices.Contains(p.settings.files, path) {
		return true
	}
	dir, base := filepath.Dir(path), filepath.Base(path)
	if slices.Contains(p.settings.dirs, dir) && (p.settings.matches(base) || base == atomicWriterLink) {
		return true
	}
	if base == atomicWriterLink {
		for _, f := range p.settings.files {
			if filepath.Dir(f) == dir {
				return true
			}
		}
	}
	prefix := path
	if !strings.HasSuffix(prefix, string(filepath.Separator)) {
		prefix += string(filepath.Separator)
	}
	for _, d := range p.neededDirs() {
		if d == path || strings.HasPrefix(d, prefix) {
			return true
		}
	}
	return false
}
