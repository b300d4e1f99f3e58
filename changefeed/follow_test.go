package changefeed_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/changefeed"
	"github.com/mcpdir/mcpdir/sqlite"
)

// Follow delivers every change exactly once in order, across batch
// boundaries, and retries a batch whose apply failed.
func TestFollowDeliversEveryChangeAndRetries(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	db, err := sqlite.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	entries := make([]*mcpdir.Entry, changefeed.BatchSize+500)
	for i := range entries {
		entries[i] = &mcpdir.Entry{Name: fmt.Sprint("e", i), WebsiteURL: fmt.Sprintf("https://e.com/%d", i)}
	}
	if _, err := db.UpsertEntries(ctx, entries); err != nil {
		t.Fatal(err)
	}

	var mu sync.Mutex
	var seen []int64
	failOnce := true
	apply := func(_ context.Context, cs []mcpdir.Change) error {
		mu.Lock()
		defer mu.Unlock()
		if failOnce {
			failOnce = false
			return errors.New("transient")
		}
		for _, c := range cs {
			seen = append(seen, c.Seq)
		}
		return nil
	}
	done := make(chan int64)
	go func() {
		done <- changefeed.Follow(ctx, db, 0, 10*time.Millisecond, apply, slog.New(slog.NewTextHandler(io.Discard, nil)), nil)
	}()
	deadline := time.Now().Add(5 * time.Second)
	for {
		mu.Lock()
		n := len(seen)
		mu.Unlock()
		if n >= len(entries) || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	last := <-done
	if len(seen) != len(entries) {
		t.Fatalf("saw %d changes, want %d", len(seen), len(entries))
	}
	for i, s := range seen {
		if s != int64(i+1) {
			t.Fatalf("change %d has seq %d: out of order or repeated", i, s)
		}
	}
	if last != int64(len(entries)) {
		t.Fatalf("Follow returned %d, want %d", last, len(entries))
	}
}
