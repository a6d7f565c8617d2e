/*
Package nop provides a provider that never has clusters.

A manager built with it runs in single-cluster mode: controllers built with the multi-cluster builder watch the host
cluster, so multi-cluster-aware reconciler code runs unchanged against one cluster.
*/
package nop
