// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package suite

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// memSnapshot is the memory of this process at one point.
type memSnapshot struct {
	// Heap is the live Go heap after a full collection, in bytes (runtime.MemStats.HeapAlloc).
	Heap float64
	// HeapInuse is the heap's spans in use then, in bytes (runtime.MemStats.HeapInuse): the live heap plus the free
	// space of spans that hold live objects.
	HeapInuse float64
	// RSS is the resident set size after memory was returned to the OS, in bytes (0 where unknown).
	RSS float64
}

// snapshot waits for the process to settle (see settled), collects garbage, returns freed memory to the OS and
// reads the live heap, the heap spans in use and the RSS.
func snapshot(ctx context.Context) memSnapshot {
	settled(ctx)
	runtime.GC()
	debug.FreeOSMemory()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return memSnapshot{Heap: float64(m.HeapAlloc), HeapInuse: float64(m.HeapInuse), RSS: float64(rss())}
}

func (m memSnapshot) sub(o memSnapshot) memSnapshot {
	return memSnapshot{Heap: m.Heap - o.Heap, HeapInuse: m.HeapInuse - o.HeapInuse, RSS: m.RSS - o.RSS}
}

func (m memSnapshot) div(n int) memSnapshot {
	d := float64(n)
	return memSnapshot{Heap: m.Heap / d, HeapInuse: m.HeapInuse / d, RSS: m.RSS / d}
}

// rss reads VmRSS from /proc/self/status, in bytes; 0 where there is none.
func rss() uint64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer func() { _ = f.Close() }()
	s := bufio.NewScanner(f)
	for s.Scan() {
		fields := strings.Fields(s.Text())
		if len(fields) >= 2 && fields[0] == "VmRSS:" {
			kb, err := strconv.ParseUint(fields[1], 10, 64)
			if err != nil {
				return 0
			}
			return kb * 1024
		}
	}
	return 0
}

// measure waits for the process to settle and returns its memory (as snapshot does) and its goroutines then.
func measure(ctx context.Context) (memSnapshot, int) {
	m := snapshot(ctx)
	_, g := heapAndGoroutines()
	return m, g
}

// writeProfiles writes the heap profile (heap-<name>.pprof) and the goroutines, grouped by stack
// (goroutines-<name>.txt), to dir: what a cluster's memory and goroutines are.
func writeProfiles(dir, name string) error {
	if dir == "" {
		return nil
	}
	if err := writeHeapProfile(dir, "heap-"+name+".pprof"); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(dir, "goroutines-"+name+".txt"))
	if err != nil {
		return err
	}
	if err := pprof.Lookup("goroutine").WriteTo(f, 1); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

// writeHeapProfile writes the heap profile to dir/name, for `go tool pprof` to tell what a cluster's memory is.
func writeHeapProfile(dir, name string) error {
	if dir == "" {
		return nil
	}
	runtime.GC()
	f, err := os.Create(filepath.Join(dir, name))
	if err != nil {
		return err
	}
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

const kib = 1024.0

// settled waits (bounded) until the number of goroutines has stayed the same for 50 polls (half a second or more), so that goroutines
// winding down or starting up (idle connections, informers stopping) are not counted, and returns the live heap and
// the goroutines then.
func settled(ctx context.Context) (uint64, int) {
	var (
		last   = -1
		stable int
	)
	_ = waitUntil(ctx, 30*time.Second, "goroutines settled", func() bool {
		_, g := heapAndGoroutines()
		if g == last {
			stable++
		} else {
			last, stable = g, 0
		}
		return stable >= 50
	})
	return heapAndGoroutines()
}

// heapAndGoroutines returns the live heap after a GC, and the number of goroutines.
func heapAndGoroutines() (uint64, int) {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc, runtime.NumGoroutine()
}

// descriptorMetric is the process figure that goroutineDescriptors measures.
const descriptorMetric = "goroutine descriptor (heap per goroutine)"

// withDescriptors returns heap plus the descriptors of goroutines goroutines, as the run measured them.
func withDescriptors(r *Report, heap, goroutines float64) float64 {
	d, _ := r.Get("process", "runtime", descriptorMetric)
	return heap + goroutines*d
}

// peakGoroutines samples the number of goroutines every millisecond until the returned function is called, which
// returns the highest number seen.
func peakGoroutines() (stop func() int) {
	var peak atomic.Int64
	peak.Store(int64(runtime.NumGoroutine()))
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if g := int64(runtime.NumGoroutine()); g > peak.Load() {
					peak.Store(g)
				}
			}
		}
	}()
	return func() int {
		close(done)
		<-stopped
		return int(peak.Load())
	}
}

// goroutineDescriptors starts n goroutines that block until they are released, releases them and returns the heap
// each took while it ran: the runtime's descriptor of a goroutine (its stack is not heap). The runtime keeps the
// descriptors of goroutines that have ended, to reuse them, and never frees them; so once this has run, no later
// scenario that runs at most n goroutines at once allocates descriptors, and the heap figures of every scenario
// leave them out alike, whatever ran before (the goroutine counts are reported apart, and a figure "incl. goroutine
// descriptors" adds them back).
func goroutineDescriptors(ctx context.Context, n int) float64 {
	before, g0 := heapAndGoroutines()
	release := make(chan struct{})
	var started sync.WaitGroup
	var ended sync.WaitGroup
	for range n {
		started.Add(1)
		ended.Add(1)
		go func() {
			defer ended.Done()
			started.Done()
			<-release
		}()
	}
	started.Wait()
	during, _ := heapAndGoroutines()
	close(release)
	ended.Wait()
	_ = waitUntil(ctx, time.Minute, "the descriptor goroutines gone", func() bool { return runtime.NumGoroutine() <= g0 })
	return (float64(during) - float64(before)) / float64(n)
}
