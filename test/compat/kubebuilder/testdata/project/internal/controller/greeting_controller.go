/*
Copyright 2026 The Kubernetes Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/
// SPDX-License-Identifier: Apache-2.0

package controller

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"

	fleetv1alpha1 "example.com/fleet-operator/api/v1alpha1"
)

// GreetingReconciler reconciles a Greeting object in every cluster of the fleet.
type GreetingReconciler struct {
	Manager mcmanager.Manager
}

// +kubebuilder:rbac:groups=fleet.example.com,resources=greetings,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=fleet.example.com,resources=greetings/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=fleet.example.com,resources=greetings/finalizers,verbs=update
// +kubebuilder:rbac:groups="",resources=configmaps,verbs=get;list;watch;create;update;patch;delete

// Reconcile writes the Greeting's message to a ConfigMap next to it, in the cluster the request names, and
// reports that in the Greeting's status.
//
// For more details, check Reconcile and its Result here:
// - https://pkg.go.dev/sigs.k8s.io/controller-runtime@v0.25.0/pkg/reconcile
func (r *GreetingReconciler) Reconcile(ctx context.Context, req mcreconcile.Request) (ctrl.Result, error) {
	log := logf.FromContext(ctx).WithValues("cluster", req.ClusterName)

	cl, err := r.Manager.GetCluster(ctx, req.ClusterName)
	if err != nil {
		return ctrl.Result{}, err
	}
	c := cl.GetClient()

	greeting := &fleetv1alpha1.Greeting{}
	if err := c.Get(ctx, req.NamespacedName, greeting); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}

	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: greeting.Namespace, Name: greeting.Name + "-greeting"}}
	op, err := controllerutil.CreateOrUpdate(ctx, c, cm, func() error {
		cm.Data = map[string]string{
			"message": greeting.Spec.Message,
			"cluster": req.ClusterName.String(),
		}
		return controllerutil.SetControllerReference(greeting, cm, cl.GetScheme())
	})
	if err != nil {
		return ctrl.Result{}, err
	}

	// A merge patch of the status does not conflict with the updates the cache has not seen yet.
	patch := client.MergeFrom(greeting.DeepCopy())
	meta.SetStatusCondition(&greeting.Status.Conditions, metav1.Condition{
		Type:               "Available",
		Status:             metav1.ConditionTrue,
		Reason:             "ConfigMapWritten",
		Message:            fmt.Sprintf("ConfigMap %s written in cluster %q", cm.Name, req.ClusterName),
		ObservedGeneration: greeting.Generation,
	})
	if err := c.Status().Patch(ctx, greeting, patch); err != nil {
		return ctrl.Result{}, err
	}

	log.Info("Greeting reconciled", "configMap", cm.Name, "operation", op)
	return ctrl.Result{}, nil
}

// SetupWithManager sets up the controller with the Manager.
func (r *GreetingReconciler) SetupWithManager(mgr mcmanager.Manager) error {
	return mcbuilder.ControllerManagedBy(mgr).
		For(&fleetv1alpha1.Greeting{}).
		Owns(&corev1.ConfigMap{}).
		Named("greeting").
		Complete(r)
}
