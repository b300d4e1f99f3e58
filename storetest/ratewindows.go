package storetest

import (
	"context"
	"testing"
	"time"
)

// windowStore is a store that keeps a server's rate windows across
// restarts (when no Redis holds them).
type windowStore interface {
	SaveRateWindows(ctx context.Context, limiter string, logs map[string][]time.Time) error
	RateWindows(ctx context.Context, limiter string) (map[string][]time.Time, error)
}

// rateWindows: what one handle saves another reads back, per limiter, to
// the nanosecond; an empty window is removed, and a key idle for a day is
// forgotten.
func rateWindows(t *testing.T, open Opener) {
	ctx := context.Background()
	db, another := open(t)
	w, ok := db.(windowStore)
	if !ok {
		t.Fatalf("%T keeps no rate windows: a restart would hand every key a fresh budget", db)
	}
	now := time.Now()
	a := []time.Time{now.Add(-50 * time.Minute), now.Add(-time.Minute), now.Add(-time.Minute + 7)}
	if err := w.SaveRateWindows(ctx, "keys", map[string][]time.Time{"mcpd_a": a, "mcpd_b": {now}, "mcpd_old": {now.Add(-25 * time.Hour)}}); err != nil {
		t.Fatal(err)
	}
	if err := w.SaveRateWindows(ctx, "logins", map[string][]time.Time{"192.0.2.1": {now}}); err != nil {
		t.Fatal(err)
	}
	if err := w.SaveRateWindows(ctx, "keys", map[string][]time.Time{"mcpd_b": nil}); err != nil {
		t.Fatal(err)
	}
	got, err := another().(windowStore).RateWindows(ctx, "keys")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || len(got["mcpd_a"]) != 3 {
		t.Fatalf("kept %v, want mcpd_a's three times alone", got)
	}
	for i, at := range got["mcpd_a"] {
		if !at.Equal(a[i]) {
			t.Errorf("time %d: %v, want %v", i, at, a[i])
		}
	}
	if logins, _ := w.RateWindows(ctx, "logins"); len(logins) != 1 {
		t.Errorf("logins: %v", logins)
	}
}
