// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

// Command waiter prints what it waits for and, on SIGINT, exits with the status in WAITER_EXIT (0 if unset): the
// program of package program's own tests.
package main

import (
	"fmt"
	"os"
	"os/signal"
	"strconv"
)

func main() {
	interrupted := make(chan os.Signal, 1)
	signal.Notify(interrupted, os.Interrupt)
	fmt.Println("waiting for", os.Getenv("WAITER_FOR"))
	fmt.Println("args:", os.Args[1:])
	<-interrupted
	code, _ := strconv.Atoi(os.Getenv("WAITER_EXIT"))
	os.Exit(code)
}
