// Package informer holds the tests of pkg/informer that need the rest of the library (a manager, a provider and a
// controller), which pkg/informer's own tests cannot import: pkg/clusters builds every cluster with pkg/informer.
package informer
