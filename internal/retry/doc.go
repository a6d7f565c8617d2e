// Package retry holds what the providers that engage clusters in the background share to retry a failed
// engagement: the backoff between attempts and handing the object that names the cluster back to the provider's
// controller once it is due.
package retry
