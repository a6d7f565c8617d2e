// Command waiter prints "waiting" and exits with status 0 on SIGINT: the program of exampletest's own test.
package main

import (
	"fmt"
	"os"
	"os/signal"
)

func main() {
	interrupted := make(chan os.Signal, 1)
	signal.Notify(interrupted, os.Interrupt)
	fmt.Println("waiting for", os.Getenv("WAITER_FOR"))
	<-interrupted
}
