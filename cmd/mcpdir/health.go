package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

const healthUsage = `Usage: mcpdir health [--timeout 5s] URL

Asks a running server whether it is ready: exits 0 when URL answers 200, 1
otherwise. A URL without a path asks its /readyz. For container health checks,
which have no shell or curl: mcpdir health http://127.0.0.1:8080/readyz
`

// healthCmd is the probe a container runtime runs inside the image, which
// has no shell or curl.
func healthCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("mcpdir health", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(fs.Output(), healthUsage); fs.PrintDefaults() }
	timeout := fs.Duration("timeout", 5*time.Second, "how long to wait for the answer")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageError{"health takes one URL, e.g. http://127.0.0.1:8080/readyz"}
	}
	u, err := url.Parse(pos[0])
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return usageError{fmt.Sprintf("health: %q is not an http:// or https:// URL", pos[0])}
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/readyz"
	}
	if *timeout <= 0 {
		return usageError{"health: --timeout must be positive"}
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	client := &http.Client{
		// The probe asks this server, never a proxy from the environment,
		// and a redirect is not an answer of the server's own.
		Transport:     &http.Transport{Proxy: nil, DisableKeepAlives: true},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return fmt.Errorf("health: %w", err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("health: %w", err)
	}
	defer resp.Body.Close()
	// The body (readiness names each dependency's state) is what a
	// runtime's health log shows; a little of it is enough.
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	text := strings.TrimSpace(string(body))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("health: %s answered %s: %s", u.Redacted(), resp.Status, text)
	}
	fmt.Fprintln(stdout, text)
	return nil
}
