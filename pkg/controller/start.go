// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package controller

import (
	"context"

	"k8s.io/client-go/util/workqueue"
)

// Start runs the controller until ctx ends: the inner controller creates the queue, starts the host sources and
// the workers, and the sources of every engaged cluster start as soon as the queue exists.
func (c *mcController[request]) Start(ctx context.Context) error {
	c.setRunContext(ctx)
	return c.TypedController.Start(ctx)
}

// Warmup starts the sources (of the host and of every engaged cluster) before leader election is won, when the
// controller's EnableWarmup option is set. Without it, Warmup does nothing, and the controller runs with the
// context of Start.
func (c *mcController[request]) Warmup(ctx context.Context) error {
	warmup, ok := c.TypedController.(interface{ Warmup(context.Context) error })
	if !ok || !c.warmup {
		return nil
	}
	c.setRunContext(ctx)
	return warmup.Warmup(ctx)
}

// NeedLeaderElection reports whether the controller runs only on the elected leader (the NeedLeaderElection
// option; true by default).
func (c *mcController[request]) NeedLeaderElection() bool {
	le, ok := c.TypedController.(interface{ NeedLeaderElection() bool })
	return !ok || le.NeedLeaderElection()
}

func (c *mcController[request]) setRunContext(ctx context.Context) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.runCtx == nil {
		c.runCtx, c.runDone = ctx, ctx.Done()
	}
}

// queueCreated is called by the inner controller when it creates its queue, as it starts: the sources of clusters
// engaged before that start now, and every engagement ends when the controller stops.
func (c *mcController[request]) queueCreated(q workqueue.TypedRateLimitingInterface[request]) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.queue = q
	if c.runCtx != nil {
		context.AfterFunc(c.runCtx, c.stopAll)
	}
	for _, eng := range c.engagements.All() {
		pending := eng.Value.pending
		eng.Value.pending = nil
		for _, cs := range pending {
			c.runSourceLocked(eng, cs)
		}
	}
}

// stopAll ends and forgets every engagement; it runs when the controller stops.
func (c *mcController[request]) stopAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, eng := range c.engagements.All() {
		c.engagements.Forget(eng)
		eng.Value.stopLocked()
	}
}
