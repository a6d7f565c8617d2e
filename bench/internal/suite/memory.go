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
	"time"
)

// memSnapshot is the memory of this process at one point.
type memSnapshot struct {
	// Heap is the live Go heap after a full collection, in bytes.
	Heap float64
	// RSS is the resident set size after memory was returned to the OS, in bytes (0 where unknown).
	RSS float64
}

// snapshot waits for the process to settle (see settled), collects garbage, returns freed memory to the OS and
// reads the live heap and the RSS.
func snapshot(ctx context.Context) memSnapshot {
	settled(ctx)
	runtime.GC()
	debug.FreeOSMemory()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return memSnapshot{Heap: float64(m.HeapAlloc), RSS: float64(rss())}
}

func (m memSnapshot) sub(o memSnapshot) memSnapshot {
	return memSnapshot{Heap: m.Heap - o.Heap, RSS: m.RSS - o.RSS}
}

func (m memSnapshot) div(n int) memSnapshot {
	return memSnapshot{Heap: m.Heap / float64(n), RSS: m.RSS / float64(n)}
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
