// Command mcpdir is the Open MCP Directory: one binary that serves the REST
// and MCP interfaces and manages keys and entries on the same data.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args, os.Getenv, os.Stdin, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "mcpdir:", err)
		os.Exit(exitCode(err))
	}
}
