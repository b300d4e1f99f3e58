package service

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/mcpdir/mcpdir/memory"
)

// failingWindows is a window store whose first writes fail, as a write on
// a context the shutdown cancels does.
type failingWindows struct {
	fails int
	saved map[string][]time.Time
}

func (f *failingWindows) SaveRateWindows(_ context.Context, _ string, logs map[string][]time.Time) error {
	if f.fails > 0 {
		f.fails--
		return errors.New("context canceled")
	}
	for k, v := range logs {
		f.saved[k] = v
	}
	return nil
}

func (f *failingWindows) RateWindows(context.Context, string) (map[string][]time.Time, error) {
	return f.saved, nil
}

// TestSaveWindowsRetries: windows a round could not write are written by
// the next round (the job's Stop after a round the shutdown cut short),
// not forgotten.
func TestSaveWindowsRetries(t *testing.T) {
	l := memory.NewLimiter(nil)
	ctx := context.Background()
	for range 3 {
		l.Allow(ctx, "mcpd_a", 20, time.Hour)
	}
	store := &failingWindows{fails: 1, saved: map[string][]time.Time{}}
	save := saveWindows(store, map[string]*memory.Limiter{"keys": l}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	save(ctx) // fails
	if len(store.saved) != 0 {
		t.Fatalf("saved %v through a failing write", store.saved)
	}
	save(ctx) // the Stop's round, no request since
	if got := len(store.saved["mcpd_a"]); got != 3 {
		t.Errorf("after a failed round and a good one, %d requests of the key kept, want 3", got)
	}
}
