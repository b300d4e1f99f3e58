package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/livecheck"
	"github.com/mcpdir/mcpdir/service"
	"github.com/mcpdir/mcpdir/toolscan"
)

// checkCmd connects to every entry with a remote endpoint (or to the
// entries whose ids it is given) as an MCP client and records what it
// finds.
func checkCmd(ctx context.Context, args []string, env envLookup, stdout, stderr io.Writer) error {
	fs, storeAt := newFlags("check", env, stderr)
	concurrency := fs.Int("concurrency", livecheck.DefaultConcurrency, "servers checked at once, 1..64")
	timeout := seconds(livecheck.DefaultTimeout)
	fs.Var(&timeout, "timeout", "time a server has for the whole check: a Go duration (10s, 1m) or seconds")
	allowPrivate := fs.Bool("allow-private", false, "let checks reach loopback, private and other non-public addresses (for tests)")
	args, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	only := map[string]bool{}
	for _, id := range args {
		if id = strings.ToLower(id); !mcpdir.IsUUID(id) {
			return usageError{fmt.Sprintf("check takes entry ids (UUIDs), got %q", terminalSafe(id))}
		}
		only[id] = true
	}
	if *concurrency < 1 || *concurrency > 64 {
		return usageError{"--concurrency must be between 1 and 64"}
	}
	if timeout < seconds(100*time.Millisecond) || timeout > seconds(10*time.Minute) {
		return usageError{"--timeout must be between 100ms and 10m"}
	}
	store, err := storeAt.open(ctx)
	if err != nil {
		return err
	}
	defer store.Close()
	targets, err := livecheck.Targets(ctx, store, 0, time.Now())
	if err != nil {
		return fmt.Errorf("check: %w", err)
	}
	if len(only) > 0 {
		targets = slices.DeleteFunc(targets, func(t livecheck.Target) bool { return !only[t.ID] })
		if len(targets) < len(only) {
			return usageError{fmt.Sprintf("%d of the %d ids given are not entries with a remote endpoint", len(only)-len(targets), len(only))}
		}
	}
	c := service.NewChecker(*allowPrivate, time.Duration(timeout), *concurrency, version)
	if tried := livecheck.Unresolved(ctx, c.Guard, targets); len(tried) > 0 {
		fmt.Fprintf(stdout, "no name resolves (tried %s): no network or no DNS here? If no check gets through, none is recorded.\n", terminalSafe(strings.Join(tried, ", ")))
	}
	start := time.Now()
	terminal := isTerminal(stdout)
	done := 0
	sum := c.Run(ctx, store, targets, slog.New(slog.NewTextHandler(stderr, nil)), func(t livecheck.Target, r livecheck.Result) {
		done++
		line := checkLine(t, r)
		if terminal {
			line = fmt.Sprintf("[%d/%d] %s", done, len(targets), line)
		}
		fmt.Fprintln(stdout, line)
	})
	fmt.Fprintln(stdout, checkSummary(sum, done, time.Since(start)))
	if n := sum[livecheck.NotRecorded]; n > 0 {
		return fmt.Errorf("no check reached the network (no name resolved, no route to any server): no network here? "+
			"Nothing was recorded: the %d servers keep their last status", n)
	}
	return ctx.Err()
}

// checkLine is one entry's result: status, latency, name, endpoint, and
// the tools or the reason. Everything from the server or the directory is
// escaped for the terminal.
func checkLine(t livecheck.Target, r livecheck.Result) string {
	detail := r.Reason
	switch {
	case r.Status == mcpdir.LiveUp:
		detail = fmt.Sprintf("%d tools, protocol %s", len(r.Tools), r.ProtocolVersion)
		if len(r.Tools) == 1 {
			detail = "1 tool, protocol " + r.ProtocolVersion
		}
		if len(r.ProtocolVersions) > 1 {
			detail += " (speaks " + strings.Join(r.ProtocolVersions, ", ") + ")"
		}
		if ws := toolscan.Scan(r.Tools, r.Instructions); len(ws) > 0 {
			detail += fmt.Sprintf("; %d tool warnings (possible tool poisoning: see its page)", len(ws))
		}
	case r.Auth != nil && len(r.Auth.AuthorizationServers) > 0:
		var ways []string
		if r.Auth.ClientIDMetadataDocuments {
			ways = append(ways, "client ID metadata documents")
		}
		if r.Auth.DynamicRegistration {
			ways = append(ways, "dynamic registration")
		}
		detail += "; authorization server " + strings.Join(r.Auth.AuthorizationServers, ", ")
		if len(ways) > 0 {
			detail += " (" + strings.Join(ways, ", ") + ")"
		}
	}
	return fmt.Sprintf("%-13s %6dms  %s  %s  %s", r.Status, r.Latency.Milliseconds(),
		terminalSafe(t.Name), terminalSafe(t.Remote.URL), terminalSafe(detail))
}

func checkSummary(sum livecheck.Summary, n int, took time.Duration) string {
	return fmt.Sprintf("checked %d servers in %s: %d up, %d auth_required, %d down",
		n, took.Round(time.Millisecond), sum[mcpdir.LiveUp], sum[mcpdir.LiveAuthRequired], sum[mcpdir.LiveDown])
}

// seconds is a duration flag that takes a Go duration ("10s", "1h30m") or
// a plain number of seconds ("10", "2.5").
type seconds time.Duration

func (s *seconds) String() string { return time.Duration(*s).String() }

func (s *seconds) Set(v string) error {
	d, err := parseSeconds(v)
	if err != nil {
		return err
	}
	*s = seconds(d)
	return nil
}

func parseSeconds(v string) (time.Duration, error) {
	v = strings.TrimSpace(v)
	if f, err := strconv.ParseFloat(v, 64); err == nil && f >= 0 && f < 1e9 {
		return time.Duration(f * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%q is neither a duration (10s, 5m, 1h) nor a number of seconds", v)
	}
	return d, nil
}
