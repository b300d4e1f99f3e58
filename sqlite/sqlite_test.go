package sqlite_test

import (
	"context"
	"testing"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/sqlite"
	"github.com/mcpdir/mcpdir/storetest"
)

func open(t *testing.T, dir string) *sqlite.DB {
	t.Helper()
	db, err := sqlite.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestStore(t *testing.T) {
	storetest.Run(t, func(t *testing.T) (mcpdir.Store, func() mcpdir.Store) {
		dir := t.TempDir()
		return open(t, dir), func() mcpdir.Store { return open(t, dir) }
	})
}

func TestIntegrity(t *testing.T) {
	db := open(t, t.TempDir())
	if err := db.CheckIntegrity(context.Background()); err != nil {
		t.Fatal(err)
	}
}
