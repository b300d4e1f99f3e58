package postgres_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/postgres"
	"github.com/mcpdir/mcpdir/storetest"
)

func open(t *testing.T, url string) *postgres.DB {
	t.Helper()
	db, err := postgres.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestStore(t *testing.T) {
	storetest.Run(t, func(t *testing.T) (mcpdir.Store, func() mcpdir.Store) {
		url := storetest.PostgresURL(t)
		return open(t, url), func() mcpdir.Store { return open(t, url) }
	})
}

// Replicas starting at once on an empty database: the migrations run once,
// under the advisory lock, and every replica comes up.
func TestConcurrentMigrations(t *testing.T) {
	url := storetest.PostgresURL(t)
	var wg sync.WaitGroup
	errs := make(chan error, 5)
	for range 5 {
		wg.Go(func() {
			db, err := postgres.Open(context.Background(), url)
			if err != nil {
				errs <- err
				return
			}
			db.Close()
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("a replica failed to start: %v", err)
	}
	db := open(t, url)
	if n, err := db.CountEntries(context.Background()); err != nil || n != 0 {
		t.Fatalf("after concurrent migrations: %d %v", n, err)
	}
}

// A write on one handle wakes a follower on another (LISTEN/NOTIFY), so a
// replica need not wait for its next poll.
func TestNotifications(t *testing.T) {
	url := storetest.PostgresURL(t)
	reader, writer := open(t, url), open(t, url)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	wake := reader.Notifications(ctx)
	time.Sleep(200 * time.Millisecond) // let it LISTEN
	if _, err := writer.UpsertEntries(ctx, []*mcpdir.Entry{{Name: "a", WebsiteURL: "https://e.com/a"}}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-wake:
	case <-time.After(5 * time.Second):
		t.Fatal("no notification of the write")
	}
}

// One replica at a time: while one holds a job's lock, another's try fails,
// and succeeds once it is let go.
func TestTryLock(t *testing.T) {
	url := storetest.PostgresURL(t)
	a, b := open(t, url), open(t, url)
	ctx := context.Background()
	unlock, ok, err := a.TryLock(ctx, 42)
	if err != nil || !ok {
		t.Fatalf("first: %v %v", ok, err)
	}
	if _, ok, err := b.TryLock(ctx, 42); err != nil || ok {
		t.Fatalf("second while held: %v %v", ok, err)
	}
	unlock()
	unlock2, ok, err := b.TryLock(ctx, 42)
	if err != nil || !ok {
		t.Fatalf("second after: %v %v", ok, err)
	}
	unlock2()
}
