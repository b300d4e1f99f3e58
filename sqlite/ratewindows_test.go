package sqlite_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/mcpdir/mcpdir/memory"
	"github.com/mcpdir/mcpdir/sqlite"
)

// A limiter's windows written to the store and read back in a new process
// (a new limiter) continue where they were; an emptied window is removed.
func TestRateWindowsRoundTrip(t *testing.T) {
	dir := t.TempDir()
	db, err := sqlite.Open(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	l := memory.NewLimiter(func() time.Time { return now })
	for range 3 {
		l.Allow(t.Context(), "mcpd_a", 5, time.Hour)
	}
	l.Allow(t.Context(), "mcpd_b", 5, time.Hour)
	if err := db.SaveRateWindows(t.Context(), "keys", l.TakeChanged()); err != nil {
		t.Fatal(err)
	}
	if again := l.TakeChanged(); len(again) != 0 {
		t.Errorf("changed twice: %v", again)
	}
	if err := db.SaveRateWindows(t.Context(), "keys", map[string][]time.Time{"mcpd_b": nil}); err != nil {
		t.Fatal(err)
	}
	db.Close()

	db, err = sqlite.Open(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	logs, err := db.RateWindows(t.Context(), "keys")
	if err != nil {
		t.Fatal(err)
	}
	if len(logs) != 1 || len(logs["mcpd_a"]) != 3 || !logs["mcpd_a"][0].Equal(now) {
		t.Fatalf("read back %v", logs)
	}
	if other, _ := db.RateWindows(t.Context(), "logins"); len(other) != 0 {
		t.Errorf("another limiter's windows: %v", other)
	}
	restarted := memory.NewLimiter(func() time.Time { return now.Add(time.Minute) })
	restarted.Restore(logs)
	d, _ := restarted.Allow(t.Context(), "mcpd_a", 5, time.Hour)
	if !d.Allowed || d.Remaining != 1 {
		t.Errorf("after the restart: %+v, want 1 remaining", d)
	}
	if !reflect.DeepEqual(restarted.TakeChanged()["mcpd_a"][:3], logs["mcpd_a"]) {
		t.Error("the restored times were not kept")
	}
}
