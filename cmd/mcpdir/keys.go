package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/accounts"
	"github.com/mcpdir/mcpdir/auth"
	"github.com/mcpdir/mcpdir/service"
)

func keys(ctx context.Context, args []string, env envLookup, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usageError{"keys needs a subcommand: create, list or revoke"}
	}
	if isHelp(args[0]) {
		return helpRequested{synopsis: groupSynopsis("keys")}
	}
	switch args[0] {
	case "create":
		return keysCreate(ctx, args[1:], env, stdout, stderr)
	case "list":
		return keysList(ctx, args[1:], env, stdout, stderr)
	case "revoke":
		return keysRevoke(ctx, args[1:], env, stdout, stderr)
	}
	return usageError{fmt.Sprintf("unknown keys subcommand %q: use create, list or revoke", args[0])}
}

func keysCreate(ctx context.Context, args []string, env envLookup, stdout, stderr io.Writer) error {
	fs, storeAt := newFlags("keys create", env, stderr)
	name := fs.String("name", "", "what the key is for (required)")
	expires := fs.String("expires", "never", "lifetime: 90d, 12h, 30m or never")
	rate := fs.String("rate-limit", fmt.Sprintf("%d/h", mcpdir.DefaultRateLimit), "requests per rolling hour: 20/h, 20 or unlimited")
	scope := fs.String("scope", string(mcpdir.ScopeSearch), "search or admin")
	owner := fs.String("owner", "", "the email of the account the key belongs to (it shows on their API Keys page); none: the operator's")
	publicURL := fs.String("url", env("MCPDIR_PUBLIC_URL"), "the server's public base URL, for the client configuration (env MCPDIR_PUBLIC_URL; default: the URL the last server on this store announced)")
	args, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(args) > 0 {
		return usageError{fmt.Sprintf("keys create takes no arguments (got %q): give the name with --name", args[0])}
	}
	if strings.TrimSpace(*name) == "" || len(*name) > 100 || terminalSafe(*name) != *name {
		return usageError{"--name is required: at most 100 printable characters"}
	}
	lifetime, err := parseLifetime(*expires)
	if err != nil {
		return err
	}
	limit, err := parseRateLimit(*rate)
	if err != nil {
		return err
	}
	if !mcpdir.Scope(*scope).Valid() {
		return usageError{"--scope must be search or admin"}
	}
	store, err := storeAt.open(ctx)
	if err != nil {
		return err
	}
	defer store.Close()

	ownerID := ""
	if *owner != "" {
		email, err := accounts.NormalizeEmail(*owner)
		if err != nil {
			return usageError{"--owner: " + mcpdir.ErrorMessage(err)}
		}
		a, err := store.AccountByEmail(ctx, email)
		if err != nil {
			return fmt.Errorf("--owner %s: no such account (see mcpdir accounts list)", email)
		}
		ownerID = a.ID
	}
	secret, k, err := auth.CreateKey(ctx, store, auth.KeySpec{Owner: ownerID, Name: strings.TrimSpace(*name), Scope: mcpdir.Scope(*scope), RateLimit: limit, Lifetime: lifetime})
	if err != nil {
		return err
	}
	if err := cliAudit(ctx, store, "key.create", k.Prefix, map[string]any{"name": k.Name, "scope": k.Scope, "owner": *owner, "rate_limit": describeLimit(limit)}); err != nil {
		return err
	}
	base, from := configURL(ctx, store, *publicURL, env)
	// The key alone on the first line, so that scripts can take it with head -1.
	fmt.Fprintln(stdout, secret)
	fmt.Fprintf(stdout, "\nThis key is shown once: store it now. id %s, scope %s, %s, expires %s.\n\n",
		k.Prefix, k.Scope, describeLimit(limit), describeTime(k.ExpiresAt, "never"))
	fmt.Fprintf(stdout, "MCP client configuration for %s (%s); add it to your client's MCP servers:\n", terminalSafe(base), from)
	// The spec's configuration shape (section 1), fields in its order.
	type headers struct {
		Authorization string `json:"Authorization"`
		ContentType   string `json:"Content-Type"`
	}
	type server struct {
		URL          string          `json:"url"`
		Transport    string          `json:"transport"`
		Headers      headers         `json:"headers"`
		Capabilities map[string]bool `json:"capabilities"`
	}
	cfg := map[string]map[string]server{"mcpServers": {"mcpdir": {
		URL:          base + "/api/open/mcp",
		Transport:    "http",
		Headers:      headers{Authorization: "Bearer " + secret, ContentType: "application/json"},
		Capabilities: map[string]bool{"tools": true},
	}}}
	out, _ := json.MarshalIndent(cfg, "", "  ")
	fmt.Fprintf(stdout, "%s\n", out)
	return nil
}

func keysList(ctx context.Context, args []string, env envLookup, stdout, stderr io.Writer) error {
	fs, storeAt := newFlags("keys list", env, stderr)
	args, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(args) > 0 {
		return usageError{fmt.Sprintf("keys list takes no arguments (got %q)", args[0])}
	}
	store, err := storeAt.open(ctx)
	if err != nil {
		return err
	}
	defer store.Close()
	all, err := store.Keys(ctx)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PREFIX\tNAME\tSCOPE\tRATE LIMIT\tCREATED\tEXPIRES\tLAST USED\tREVOKED")
	for _, k := range all {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", terminalSafe(k.Prefix), terminalSafe(k.Name), terminalSafe(string(k.Scope)), describeLimit(k.RateLimit),
			describeTime(k.CreatedAt, "-"), describeTime(k.ExpiresAt, "never"), describeTime(k.LastUsedAt, "never"), describeTime(k.RevokedAt, "-"))
	}
	return tw.Flush()
}

func keysRevoke(ctx context.Context, args []string, env envLookup, stdout, stderr io.Writer) error {
	fs, storeAt := newFlags("keys revoke", env, stderr)
	args, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(args) != 1 {
		return usageError{"usage: mcpdir keys revoke PREFIX"}
	}
	prefix := args[0]
	if len(prefix) > len(auth.PublicID(strings.Repeat("x", 64))) {
		prefix = auth.PublicID(prefix) // a whole key was given: take its prefix
	}
	store, err := storeAt.open(ctx)
	if err != nil {
		return err
	}
	defer store.Close()
	if err := store.RevokeKey(ctx, prefix, time.Now()); err != nil {
		if errors.Is(err, mcpdir.ErrNotFound) {
			return fmt.Errorf("no key with prefix %q (see mcpdir keys list)", prefix)
		}
		return err
	}
	if err := cliAudit(ctx, store, "key.revoke", prefix, nil); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "revoked %s\n", prefix)
	return nil
}

// cliAudit records an operator's action at the command line.
func cliAudit(ctx context.Context, store mcpdir.AuditStore, action, target string, changes any) error {
	r := mcpdir.AuditRecord{Actor: "cli", Action: action, Target: target}
	if changes != nil {
		r.Changes, _ = json.Marshal(changes)
	}
	return store.AppendAudit(ctx, r)
}

// configURL is the base URL for client configurations, and where it came
// from: --url, else what the server on this store announced, else the
// default address.
func configURL(ctx context.Context, store mcpdir.StateStore, flagURL string, env envLookup) (base, from string) {
	if flagURL != "" {
		return strings.TrimRight(flagURL, "/"), "from --url"
	}
	if u, err := store.State(ctx, service.PublicURLKey); err == nil && u != "" {
		return u, "the URL the server on this store announced; --url to change"
	}
	return "http://" + env.or("MCPDIR_ADDR", "127.0.0.1:8080"), "no server has run on this store yet: the default address; --url to change"
}

// parseLifetime reads "never", a number of days ("90d") or a Go duration.
func parseLifetime(s string) (time.Duration, error) {
	s = strings.TrimSpace(strings.ToLower(s))
	if s == "never" || s == "" {
		return 0, nil
	}
	var d time.Duration
	var err error
	if days, ok := strings.CutSuffix(s, "d"); ok {
		var n int
		n, err = strconv.Atoi(days)
		d = time.Duration(n) * 24 * time.Hour
	} else {
		d, err = time.ParseDuration(s)
	}
	if err != nil || d <= 0 || d > 10*365*24*time.Hour {
		return 0, usageError{fmt.Sprintf("--expires %q: use never, or a lifetime such as 90d, 12h, 30m (at most 10 years)", s)}
	}
	return d, nil
}

// parseRateLimit reads "unlimited", "N" or "N/h".
func parseRateLimit(s string) (int, error) {
	s = strings.TrimSpace(strings.ToLower(s))
	if s == "unlimited" {
		return mcpdir.Unlimited, nil
	}
	n, err := strconv.Atoi(strings.TrimSuffix(s, "/h"))
	if err != nil || n < 1 || n > 1_000_000 {
		return 0, usageError{fmt.Sprintf("--rate-limit %q: use N/h (1 to 1000000 requests per rolling hour) or unlimited", s)}
	}
	return n, nil
}

func describeLimit(n int) string {
	if n == mcpdir.Unlimited {
		return "unlimited"
	}
	return fmt.Sprintf("%d/h", n)
}

func describeTime(t time.Time, zero string) string {
	if t.IsZero() {
		return zero
	}
	return t.UTC().Format(time.RFC3339)
}
