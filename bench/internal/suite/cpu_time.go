// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package suite

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// clockTicks is the unit of the CPU times in /proc/<pid>/stat (USER_HZ), 100 on every Linux this runs on.
const clockTicks = 100

// cpuTimes is the CPU time used so far by this process (the controller) and by its child processes that are still
// running (the control planes of the fleet: kube-apiserver and etcd), user and system time together.
type cpuTimes struct {
	self, children time.Duration
	// apiservers is the part of children used by the kube-apiserver processes (the rest is etcd's).
	apiservers time.Duration
	// known is false where /proc is not there to read the children's times.
	known bool
}

// readCPUTimes reads the CPU time of this process (getrusage) and of its running children (/proc/<pid>/stat).
func readCPUTimes() cpuTimes {
	var ru syscall.Rusage
	var t cpuTimes
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err == nil {
		t.self = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	t.children, t.apiservers, t.known = childrenCPU(os.Getpid())
	return t
}

func (t cpuTimes) sub(o cpuTimes) cpuTimes {
	return cpuTimes{self: t.self - o.self, children: t.children - o.children, apiservers: t.apiservers - o.apiservers,
		known: t.known && o.known}
}

// childrenCPU sums the user and system time of the running processes whose parent is pid, and of those of them
// that are kube-apiservers.
func childrenCPU(pid int) (all, apiservers time.Duration, ok bool) {
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil || len(stats) == 0 {
		return 0, 0, false
	}
	var ticks, apiserverTicks uint64
	for _, path := range stats {
		b, err := os.ReadFile(path)
		if err != nil {
			continue // the process ended meanwhile
		}
		command, ppid, used, ok := parseStat(string(b))
		if ok && ppid == pid {
			ticks += used
			if command == "kube-apiserver" {
				apiserverTicks += used
			}
		}
	}
	return time.Duration(ticks) * time.Second / clockTicks, time.Duration(apiserverTicks) * time.Second / clockTicks, true
}

// parseStat returns the command name, the parent pid and the user plus system ticks of a /proc/<pid>/stat line. The
// command name, in parentheses, may hold spaces and parentheses, so the fields are counted after the last ')'.
func parseStat(line string) (command string, ppid int, ticks uint64, ok bool) {
	start, end := strings.IndexByte(line, '('), strings.LastIndexByte(line, ')')
	if start < 0 || end < start {
		return "", 0, 0, false
	}
	command = line[start+1 : end]
	// After ") ": state(3) ppid(4) ... utime(14) stime(15), numbered as in proc(5).
	fields := strings.Fields(line[end+1:])
	if len(fields) < 13 {
		return "", 0, 0, false
	}
	ppid, err := strconv.Atoi(fields[1])
	if err != nil {
		return "", 0, 0, false
	}
	utime, err1 := strconv.ParseUint(fields[11], 10, 64)
	stime, err2 := strconv.ParseUint(fields[12], 10, 64)
	if err1 != nil || err2 != nil {
		return "", 0, 0, false
	}
	return command, ppid, utime + stime, true
}

// quietWindow and quietShare define quiet control planes: less than quietShare of one core used over quietWindow.
const (
	quietWindow = 500 * time.Millisecond
	quietShare  = 0.2
)

// quietControlPlanes waits, at most quietTimeout, until the control planes are quiet (quietWindow, quietShare), so
// that what an arm measures does not include what the arm before it left the members to do (closing its watches,
// collecting its garbage, deleting its objects). It returns how long it waited and the share of a core the control
// planes used over the last window; where /proc cannot be read it does not wait.
func quietControlPlanes(ctx context.Context) (waited time.Duration, share float64) {
	start := time.Now()
	last, lastAt := readCPUTimes(), start
	if !last.known {
		return 0, 0
	}
	_ = waitUntil(ctx, quietTimeout, "the control planes quiet", func() bool {
		if time.Since(lastAt) < quietWindow {
			return false
		}
		now, at := readCPUTimes(), time.Now()
		share = float64(now.children-last.children) / float64(at.Sub(lastAt))
		last, lastAt = now, at
		return share < quietShare
	})
	return time.Since(start), share
}

// quietTimeout bounds quietControlPlanes: control planes that stay busy longer are measured as they are.
const quietTimeout = time.Minute
