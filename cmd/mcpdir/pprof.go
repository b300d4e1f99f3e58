//go:build pprof

package main

// Built with -tags pprof, the binary serves net/http/pprof on
// MCPDIR_PPROF_ADDR (default 127.0.0.1:6060), apart from the service's own
// address: to profile the real server under load (docs/BENCHMARKS.md).
// The default build has no such route.

import (
	"fmt"
	"net/http"
	_ "net/http/pprof"
	"os"
)

func init() {
	addr := os.Getenv("MCPDIR_PPROF_ADDR")
	if addr == "" {
		addr = "127.0.0.1:6060"
	}
	go func() {
		if err := http.ListenAndServe(addr, nil); err != nil {
			fmt.Fprintln(os.Stderr, "pprof:", err)
		}
	}()
}
