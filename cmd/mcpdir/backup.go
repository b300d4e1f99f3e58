package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/mcpdir/mcpdir/sqlite"
)

// backupCmd writes a consistent copy of the embedded store, also while a
// server uses it.
func backupCmd(ctx context.Context, args []string, env envLookup, stdout, stderr io.Writer) error {
	fs, storeAt := newFlags("backup", env, stderr)
	force := fs.Bool("force", false, "replace FILE if it exists")
	args, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(args) != 1 || args[0] == "" {
		return usageError{"usage: mcpdir backup FILE [--force] [--data-dir DIR]"}
	}
	if storeAt.databaseURL != "" {
		return usageError{"backup copies the embedded SQLite store; back up PostgreSQL with its own tools (pg_dump)"}
	}
	if err := storeExists(storeAt.dataDir); err != nil {
		return err
	}
	file := args[0]
	db := filepath.Join(storeAt.dataDir, sqlite.FileName)
	absFile, err1 := filepath.Abs(file)
	absDB, err2 := filepath.Abs(db)
	if err1 == nil && err2 == nil && slices.Contains([]string{absDB, absDB + "-wal", absDB + "-shm", absDB + "-journal"}, absFile) {
		return usageError{"the backup would overwrite the store itself: name a file outside " + sqlite.FileName}
	}
	if fi, err := os.Stat(file); err == nil && !fi.IsDir() && !*force {
		return usageError{terminalSafe(file) + " exists: name another file, or add --force to replace it"}
	}
	store, err := sqlite.Open(ctx, storeAt.dataDir)
	if err != nil {
		return err
	}
	defer store.Close()
	size, err := store.Backup(ctx, file)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "backed up %s to %s (%d bytes, integrity checked)\n", terminalSafe(db), terminalSafe(file), size)
	fmt.Fprintf(stdout, "to restore: stop the server, remove %s-wal and %s-shm, copy the backup to %s, start it\n", terminalSafe(db), terminalSafe(db), terminalSafe(db))
	return nil
}
