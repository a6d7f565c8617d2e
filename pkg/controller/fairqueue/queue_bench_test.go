// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package fairqueue

import (
	"strconv"
	"sync"
	"testing"

	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	_ "sigs.k8s.io/controller-runtime/pkg/metrics" // installs the workqueue metrics provider, as controllers do

	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
)

// BenchmarkInitialLists measures what a controller's queue costs per request when its clusters' caches list their
// objects: one goroutine adds 100 requests of each of 1,000 clusters at handler.LowPriority (as controller-runtime's
// handlers add a cache's initial list), while two workers get them and mark them done. One op is one request through
// Add, Get and Done. controller-runtime's priority queue, unfair, is measured beside the fair queues.
func BenchmarkInitialLists(b *testing.B) {
	const clusters, perCluster, workers = 1000, 100, 2
	reqs := make([]mcreconcile.Request, 0, clusters*perCluster)
	for c := range clusters {
		for i := range perCluster {
			reqs = append(reqs, req("cluster-"+strconv.Itoa(c), "cm-"+strconv.Itoa(i)))
		}
	}
	queues := []struct {
		name string
		new  newQueueFunc
	}{
		{"NewPriority", NewPriority[mcreconcile.Request]},
		{"New", New[mcreconcile.Request]},
		{"controller-runtime priorityqueue", func(name string, rl workqueue.TypedRateLimiter[mcreconcile.Request]) workqueue.TypedRateLimitingInterface[mcreconcile.Request] {
			return priorityqueue.New(name, func(o *priorityqueue.Opts[mcreconcile.Request]) { o.RateLimiter = rl })
		}},
	}
	for _, queue := range queues {
		b.Run(queue.name, func(b *testing.B) {
			b.ReportAllocs()
			done := 0
			for b.Loop() {
				q := queue.new("bench", workqueue.DefaultTypedControllerRateLimiter[mcreconcile.Request]())
				pq, _ := q.(priorityqueue.PriorityQueue[mcreconcile.Request])
				var wg sync.WaitGroup
				var mu sync.Mutex
				left := len(reqs)
				for range workers {
					wg.Go(func() {
						for {
							item, shutdown := q.Get()
							if shutdown {
								return
							}
							q.Forget(item)
							q.Done(item)
							mu.Lock()
							left--
							if left == 0 {
								q.ShutDown()
							}
							mu.Unlock()
						}
					})
				}
				for _, r := range reqs {
					if pq != nil {
						pq.AddWithOpts(priorityqueue.AddOpts{Priority: ptr.To(handler.LowPriority)}, r)
					} else {
						q.Add(r)
					}
				}
				wg.Wait()
				done += len(reqs)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(done), "ns/request")
		})
	}
}
