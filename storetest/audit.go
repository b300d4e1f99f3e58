package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/mcpdir/mcpdir"
)

// The audit trail: records come back newest first with what they said,
// numbered in the order written (also by concurrent writers), paged by
// sequence number, readable from another handle.
func audit(t *testing.T, open Opener) {
	ctx := context.Background()
	db, another := open(t)
	if got, err := db.Audit(ctx, 0, 10); err != nil || len(got) != 0 {
		t.Fatalf("an empty trail: %v %v", got, err)
	}
	at := time.Date(2026, 11, 29, 1, 2, 3, 4, time.UTC)
	first := mcpdir.AuditRecord{At: at, Actor: "key mcpd_ab12… (ops)", Action: "entry.replace", Target: "id-1",
		Changes: json.RawMessage(`{"brief":{"before":"Old","after":"New"}}`)}
	if err := db.AppendAudit(ctx, first); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			if err := db.AppendAudit(ctx, mcpdir.AuditRecord{Actor: "cli", Action: "key.create", Target: fmt.Sprint("k", i)}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	all, err := another().Audit(ctx, 0, mcpdir.MaxAuditPage)
	if err != nil || len(all) != 21 {
		t.Fatalf("the trail: %d records, %v", len(all), err)
	}
	last := all[len(all)-1]
	if last.Actor != first.Actor || last.Action != first.Action || last.Target != first.Target || !last.At.Equal(at) ||
		string(last.Changes) != string(first.Changes) {
		t.Fatalf("the first record read back: %+v", last)
	}
	for i := 1; i < len(all); i++ {
		if all[i].Seq >= all[i-1].Seq {
			t.Fatalf("not newest first: %d after %d", all[i].Seq, all[i-1].Seq)
		}
	}
	if all[0].At.IsZero() || time.Since(all[0].At) > time.Minute || all[0].Changes != nil {
		t.Fatalf("a record the store timed: %+v", all[0])
	}
	page, err := db.Audit(ctx, all[4].Seq, 3)
	if err != nil || len(page) != 3 || page[0].Seq != all[5].Seq || page[2].Seq != all[7].Seq {
		t.Fatalf("a page before %d: %+v %v", all[4].Seq, page, err)
	}
}
