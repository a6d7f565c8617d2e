// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package envtest

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
)

// Ports are reserved outside of the kernel's ephemeral port range: the kernel hands ports of that range to every
// outgoing connection and to every listener asking for port 0 (which is how controller-runtime's envtest picks
// ports), so a port from it could be taken by anyone in the window between stopping an API server and starting it
// again. Ports below minReservedPort are left alone.
const (
	minReservedPort = 10000
	maxReservedPort = 65535
	// minPortPoolSize is the smallest number of candidate ports worth picking from; with fewer the kit falls back
	// to a port of the ephemeral range.
	minPortPoolSize  = 1000
	portPickAttempts = 200
)

// portReservation is a TCP port on the loopback address that nobody else listens on and that the kit keeps for one
// control plane's API server, across restarts, until it is released.
type portReservation struct {
	host string
	port int
	// lock keeps other processes that use this kit from picking the same port. It is nil when the port came from
	// the ephemeral range or the platform has no file locks.
	lock *portLock
}

// reservePort reserves a port on host (an IP address) for an API server.
func reservePort(host string) (*portReservation, error) {
	lo, hi := ephemeralPortRange()
	below := max(0, lo-minReservedPort) // candidates [minReservedPort, lo)
	above := max(0, maxReservedPort-hi) // candidates (hi, maxReservedPort]
	if below+above >= minPortPoolSize {
		for range portPickAttempts {
			n := rand.IntN(below + above)
			port := minReservedPort + n
			if n >= below {
				port = hi + 1 + n - below
			}
			lock, err := lockPort(port)
			if errors.Is(err, errPortLocked) {
				continue
			}
			if err != nil {
				return nil, err
			}
			if !portFree(host, port) {
				lock.release()
				continue
			}
			return &portReservation{host: host, port: port, lock: lock}, nil
		}
	}
	// Fall back to a port the kernel picks. It is still kept across API server restarts, only with a higher risk
	// that another socket takes it while the API server is stopped.
	l, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return nil, fmt.Errorf("unable to find a free port on %s: %w", host, err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	if err := l.Close(); err != nil {
		return nil, fmt.Errorf("unable to close the listener that found port %d: %w", port, err)
	}
	return &portReservation{host: host, port: port}, nil
}

// release gives the port up. It is safe to call more than once.
func (r *portReservation) release() {
	if r.lock != nil {
		r.lock.release()
		r.lock = nil
	}
}

// portFree reports whether nothing listens on host:port right now.
func portFree(host string, port int) bool {
	l, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		return false
	}
	return l.Close() == nil
}

// ephemeralPortRange returns the kernel's range of ephemeral ports, inclusive. It reads Linux's setting and falls
// back to the defaults of Linux and of the BSDs (IANA's range), whichever is wider.
func ephemeralPortRange() (lo, hi int) {
	lo, hi = 32768, 65535
	data, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return lo, hi
	}
	fields := strings.Fields(string(data))
	if len(fields) != 2 {
		return lo, hi
	}
	l, errLo := strconv.Atoi(fields[0])
	h, errHi := strconv.Atoi(fields[1])
	if errLo != nil || errHi != nil || l > h {
		return lo, hi
	}
	return l, h
}
