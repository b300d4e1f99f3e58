package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mcpdir/mcpdir/sqlite"
)

// `mcpdir backup` while the server serves and the CLI writes, then the
// documented restore (stop, remove the WAL files, copy the backup in as
// mcpdir.db, start): the keys and entries of the moment of the backup are
// back, and a key made after it is not.
func TestBackupWhileServingThenRestore(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(t.TempDir(), "mcpdir-backup.db")
	var before, after string
	var imported atomic.Int32
	t.Run("serving", func(t *testing.T) { // the server stops at the end of this
		s := startServer(t, dir)
		before = newKey(t, dir, "--rate-limit", "unlimited")
		cli(t, dir, "import", writeLines(t, `{"name": "zebrafish-mcp", "brief": "Zebrafish genome lookups", "website_url": "https://example.com/zebrafish"}`))
		waitFor(t, 5e9, "the import on the server", func() bool { return s.search(t, before, "zebrafish").Total == 1 })
		// Searches (the server writes the key's last use) and imports go on
		// while the backup runs.
		var stop atomic.Bool
		var wg sync.WaitGroup
		wg.Go(func() {
			for !stop.Load() {
				resp := get(t, s.URL+"/api/open/v1/search?keywords=zebrafish", "Bearer "+before)
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		})
		wg.Go(func() {
			for i := 0; !stop.Load(); i++ {
				var out bytes.Buffer
				line := fmt.Sprintf(`{"name": "busy-%d", "brief": "Written during the backup", "website_url": "https://example.com/busy-%d"}`, i, i)
				if err := run(context.Background(), []string{"mcpdir", "import", "-", "--data-dir", dir}, noEnv, strings.NewReader(line+"\n"), &out, io.Discard); err != nil {
					t.Error(err)
					return
				}
				imported.Store(int32(i + 1))
			}
		})
		waitFor(t, 10e9, "imports beside the server", func() bool { return imported.Load() >= 3 })
		out := cli(t, dir, "backup", file)
		stop.Store(true)
		wg.Wait()
		t.Logf("mcpdir backup (%d imports beside it):\n%s", imported.Load(), out)
		if !strings.Contains(out, "integrity checked") || !strings.Contains(out, "to restore") {
			t.Fatalf("backup output:\n%s", out)
		}
		if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
			t.Fatalf("the backup file: %v %v", fi, err)
		}
		after = newKey(t, dir, "--rate-limit", "unlimited")
		if code := get(t, s.URL+"/api/open/v1/search?keywords=zebrafish", "Bearer "+after).StatusCode; code != 200 {
			t.Fatalf("the key made after the backup, before the restore: %d", code)
		}
	})

	// The restore, as docs/deploy.md says.
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := os.Remove(filepath.Join(dir, sqlite.FileName+suffix)); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, sqlite.FileName), data, 0o600); err != nil {
		t.Fatal(err)
	}
	s := startServer(t, dir)
	if got := s.search(t, before, "zebrafish").Total; got != 1 {
		t.Fatalf("after the restore, zebrafish: %d", got)
	}
	resp := get(t, s.URL+"/api/open/v1/search?keywords=zebrafish", "Bearer "+after)
	resp.Body.Close()
	if resp.StatusCode != 401 {
		t.Fatalf("a key made after the backup works after the restore: %d", resp.StatusCode)
	}
	// The busy imports committed before the backup began are there, those
	// after are not: a consistent copy has some prefix of them, and no gap.
	var n int
	for i := range int(imported.Load()) {
		if s.search(t, before, fmt.Sprintf(`"busy-%d"`, i)).Total > 0 {
			if i != n {
				t.Fatalf("busy-%d is in the backup but busy-%d is not", i, n)
			}
			n++
		}
	}
	if n < 3 {
		t.Fatalf("the backup holds %d of the imports committed before it began (at least 3)", n)
	}
	t.Logf("the backup holds %d of the %d imports made beside it", n, imported.Load())
	store, err := sqlite.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if err := store.CheckIntegrity(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// Mistakes are told: no FILE, a PostgreSQL store, no store, the store's
// own file.
func TestBackupRefusals(t *testing.T) {
	dir := t.TempDir()
	cli(t, dir, "keys", "list") // makes the store
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--data-dir", dir}, "usage: mcpdir backup"},
		{[]string{"x.db", "--data-dir", dir, "--database-url", "postgres://x/y"}, "pg_dump"},
		{[]string{filepath.Join(t.TempDir(), "x.db"), "--data-dir", t.TempDir()}, "no embedded store"},
		{[]string{filepath.Join(dir, sqlite.FileName), "--data-dir", dir}, "overwrite the store"},
		{[]string{t.TempDir(), "--data-dir", dir}, "is a directory"},
	} {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), append([]string{"mcpdir", "backup"}, tc.args...), noEnv, nil, &stdout, &stderr)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.args, err, tc.want)
		}
	}
}
