package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/migrate"
	"github.com/mcpdir/mcpdir/postgres"
	"github.com/mcpdir/mcpdir/redis"
	"github.com/mcpdir/mcpdir/sqlite"
)

const migrateUsage = "usage: mcpdir migrate --from-data-dir DIR --to postgres://… [--redis-url redis://…] [--merge]"

// migrateCmd copies the embedded SQLite store into PostgreSQL.
func migrateCmd(ctx context.Context, args []string, env envLookup, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("mcpdir migrate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	from := fs.String("from-data-dir", env("MCPDIR_DATA_DIR"), "the data directory of the embedded SQLite store to copy (env MCPDIR_DATA_DIR)")
	to := fs.String("to", env("MCPDIR_DATABASE_URL"), "the PostgreSQL database to copy into, postgres://… (env MCPDIR_DATABASE_URL)")
	merge := fs.Bool("merge", false, "add to a database that holds rows already, keeping its rows where both have one")
	redisURL := fs.String("redis-url", env("MCPDIR_REDIS_URL"), "the Redis the replicas will count budgets in: the rate windows are copied there, so that keys' and logins' budgets carry on (env MCPDIR_REDIS_URL; unset: they start afresh)")
	args, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(args) > 0 || *from == "" || *to == "" {
		return usageError{migrateUsage}
	}
	if !strings.HasPrefix(*to, "postgres://") && !strings.HasPrefix(*to, "postgresql://") {
		return usageError{"--to must be a postgres:// URL"}
	}
	if err := storeExists(*from); err != nil {
		return err
	}
	release, err := sqlite.Migrate(*from)
	if err != nil {
		return err
	}
	defer release()
	if *redisURL != "" {
		if _, err := redis.CopyWindows(ctx, *redisURL, nil, mcpdir.RateWindow); err != nil {
			return fmt.Errorf("--redis-url: %w", err) // before anything is written
		}
	}
	src, err := sqlite.Open(ctx, *from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := postgres.Open(ctx, *to)
	if err != nil {
		return err
	}
	defer dst.Close()
	snap, err := src.Snapshot(ctx)
	if err != nil {
		return err
	}
	defer snap.Close()
	target := "PostgreSQL"
	if u, err := url.Parse(*to); err == nil {
		target = u.Redacted()
	}
	fmt.Fprintf(stdout, "migrating %s to %s\n", filepath.Join(*from, sqlite.FileName), target)
	start := time.Now()
	counts, err := migrate.Run(ctx, snap, dst, migrate.Options{Merge: *merge})
	if len(counts) > 0 {
		printCounts(stdout, counts, *merge)
	}
	if err != nil {
		if migrate.IsNotEmpty(err) {
			return err
		}
		return fmt.Errorf("migrate: %w", err)
	}
	fmt.Fprintf(stdout, "migrated in %s; verified: each table's count read back from PostgreSQL after the commit is what it held plus what was copied\n", time.Since(start).Round(time.Millisecond))
	if *redisURL == "" {
		fmt.Fprintln(stdout, "rate windows: the keys' and logins' budgets are in PostgreSQL: a server on it without Redis carries them on")
		fmt.Fprintln(stdout, "next: serve with --database-url (MCPDIR_DATABASE_URL) and, for rate budgets shared by replicas, --redis-url (give migrate --redis-url to carry the budgets on there)")
		return nil
	}
	windows, err := src.AllRateWindows(ctx)
	if err != nil {
		return err
	}
	n, err := redis.CopyWindows(ctx, *redisURL, windows, mcpdir.RateWindow)
	if err != nil {
		return fmt.Errorf("the database is migrated, the rate windows are not (run again with --merge to copy them): %w", err)
	}
	fmt.Fprintf(stdout, "rate windows: %d keys' budgets of the last %s copied to Redis: they carry on\n", n, mcpdir.RateWindow)
	fmt.Fprintln(stdout, "next: serve with --database-url (MCPDIR_DATABASE_URL) and --redis-url (MCPDIR_REDIS_URL)")
	return nil
}

func printCounts(w io.Writer, counts []migrate.Count, merge bool) {
	name := len("table")
	for _, c := range counts {
		name = max(name, len(c.Table))
	}
	if merge {
		fmt.Fprintf(w, "%-*s %8s %8s %8s %16s %15s\n", name, "table", "sqlite", "copied", "kept", "postgres before", "postgres after")
	} else {
		fmt.Fprintf(w, "%-*s %8s %8s %8s\n", name, "table", "sqlite", "copied", "postgres")
	}
	for _, c := range counts {
		switch {
		case c.Skipped != "":
		case merge:
			fmt.Fprintf(w, "%-*s %8d %8d %8d %16d %15d\n", name, c.Table, c.Source, c.Copied, c.Kept(), c.Before, c.After)
		default:
			fmt.Fprintf(w, "%-*s %8d %8d %8d\n", name, c.Table, c.Source, c.Copied, c.After)
		}
	}
	for _, c := range counts {
		if c.Skipped != "" {
			fmt.Fprintf(w, "not copied: %s (%d rows): %s\n", c.Table, c.Source, c.Skipped)
		}
	}
}

// storeExists makes sure dir holds an embedded store, so that a mistyped
// directory is not taken for an empty new one.
func storeExists(dir string) error {
	path := filepath.Join(dir, sqlite.FileName)
	if _, err := os.Stat(path); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("no embedded store in %s (no %s there): name the directory `mcpdir serve --data-dir` used", dir, sqlite.FileName)
		}
		return err
	}
	return nil
}
