package suite

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	toolscache "k8s.io/client-go/tools/cache"

	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
)

// Floor measures write → event delivered to a bare client-go informer on the same control plane: the latency no
// controller can beat. It returns the p50, which other scenarios report ratios to.
func Floor(ctx context.Context, fleet *mcenvtest.Fleet, r *Report, o Options) (time.Duration, error) {
	writes := 200
	if o.Quick {
		writes = 20
	}
	cs, err := kubernetes.NewForConfig(fleet.Host())
	if err != nil {
		return 0, err
	}
	const ns = "bench-floor"
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		return 0, err
	}
	seen := newFirsts()
	factory := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace(ns))
	inf := factory.Core().V1().ConfigMaps().Informer()
	if _, err := inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{AddFunc: func(obj any) {
		if cm, ok := obj.(*corev1.ConfigMap); ok {
			seen.mark(cm.Name)
		}
	}}); err != nil {
		return 0, err
	}
	infCtx, cancel := context.WithCancel(ctx)
	defer func() {
		cancel()
		factory.Shutdown()
	}()
	factory.Start(infCtx.Done())
	factory.WaitForCacheSync(infCtx.Done())

	lat := make([]time.Duration, 0, writes)
	for i := range writes {
		name := fmt.Sprintf("floor-%04d", i)
		start := time.Now()
		if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
			return 0, err
		}
		if err := waitUntil(ctx, 30*time.Second, "the informer to see "+name, func() bool {
			seen.mu.Lock()
			defer seen.mu.Unlock()
			_, ok := seen.seen[name]
			return ok
		}); err != nil {
			return 0, err
		}
		seen.mu.Lock()
		lat = append(lat, seen.seen[name].Sub(start))
		seen.mu.Unlock()
	}
	p50 := percentile(lat, 50)
	r.Add("floor", "informer", "write→event p50", ms(p50), "ms")
	r.Add("floor", "informer", "write→event p99", ms(percentile(lat, 99)), "ms")
	return p50, nil
}
