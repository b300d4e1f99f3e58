//go:build unix

package sqlite

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// Issue 33, finding 9: a backup holds password and key hashes, so it is
// its owner's alone from its first byte: under umask 022 the copy SQLite
// is writing is already 0600 (not 0644 until a chmod at the end), and so
// is the file left at the path.
func TestBackupIsPrivateWhileWritten(t *testing.T) {
	old := syscall.Umask(0o022)
	t.Cleanup(func() { syscall.Umask(old) })
	db, err := Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	out := t.TempDir()
	path := filepath.Join(out, "backup.db")
	var seen []string
	backupWritten = func(tmp string) {
		if filepath.Dir(tmp) != out || !strings.HasPrefix(filepath.Base(tmp), ".backup.db.tmp-") {
			t.Errorf("the copy is written at %s, not beside %s", tmp, path)
		}
		entries, err := os.ReadDir(out)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries { // the copy and any journal of it
			if e.Name() == "backup.db" { // the backup before, replaced at the end
				continue
			}
			fi, err := os.Stat(filepath.Join(out, e.Name()))
			if err != nil {
				continue
			}
			seen = append(seen, e.Name())
			if fi.Mode().Perm() != 0o600 {
				t.Errorf("%s is %v while the backup is written, not -rw-------", e.Name(), fi.Mode().Perm())
			}
		}
	}
	t.Cleanup(func() { backupWritten = nil })
	if _, err := db.Backup(context.Background(), path); err != nil {
		t.Fatal(err)
	}
	if len(seen) == 0 {
		t.Fatal("the hook saw no copy")
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the backup: %v %v", fi, err)
	}
	if entries, _ := os.ReadDir(out); len(entries) != 1 {
		t.Errorf("left beside the backup: %v", entries)
	}
	// Again over the existing file: replaced, and still 0600.
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Backup(context.Background(), path); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the backup over an old one: %v %v", fi, err)
	}
}
