// Package registry follows the official MCP Registry: it pulls the
// registry's list API page by page and keeps one directory entry per server
// at its latest version.
package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/mcpdir/mcpdir"
)

// PageSize is how many servers a page asks for.
const PageSize = 100

// officialMeta is the _meta key under which the registry says a server
// version's status and times.
const officialMeta = "io.modelcontextprotocol.registry/official"

// stateKey is where the store keeps a source's sync position.
func stateKey(source string) string { return "registry-sync:" + source }

// page is the list API's answer: GET {base}/v0.1/servers.
type page struct {
	Servers []struct {
		Server json.RawMessage            `json:"server"`
		Meta   map[string]json.RawMessage `json:"_meta"`
	} `json:"servers"`
	Metadata struct {
		NextCursor string `json:"nextCursor"`
		Count      int    `json:"count"`
	} `json:"metadata"`
}

// official is a server version's registry status.
type official struct {
	Status    string    `json:"status"` // active, deprecated or deleted
	UpdatedAt time.Time `json:"updatedAt"`
	IsLatest  bool      `json:"isLatest"`
}

// Store is what a sync writes to.
type Store interface {
	mcpdir.EntryStore
	mcpdir.StateStore
}

// Summary is what a sync did.
type Summary struct {
	Added, Updated, Unchanged, Hidden int
	// Kept counts servers whose entry an admin edited: a sync does not
	// overwrite an admin's edit.
	Kept int
	// Skipped counts servers refused, by reason.
	Skipped map[string]int
	// Older counts versions skipped for being other than the latest.
	Older int
	Pages int
}

// Syncer pulls one registry into a store.
type Syncer struct {
	Base   string // the registry's URL, e.g. https://registry.modelcontextprotocol.io
	Client *http.Client
	Store  Store
	Log    *slog.Logger
	// Retries of a page that failed with a 5xx or a network error, with
	// backoff from RetryWait (default 4 tries, 500 ms doubling).
	Tries     int
	RetryWait time.Duration
	// Progress, if set, is told after each page is committed.
	Progress func(Summary)
}

// Sync pulls every server updated since the last successful sync (all of
// them the first time), commits each page as it comes (a failure loses
// nothing committed), and records where it got to.
func (s *Syncer) Sync(ctx context.Context) (Summary, error) {
	sum := Summary{Skipped: map[string]int{}}
	since, err := s.Store.State(ctx, stateKey(s.Base))
	if err != nil {
		return sum, err
	}
	var newest time.Time
	cursor := ""
	for {
		p, err := s.fetch(ctx, cursor, since)
		if err != nil {
			return sum, err
		}
		sum.Pages++
		latest, gone, err := s.apply(ctx, p, &sum, &newest)
		if err != nil {
			return sum, err
		}
		if len(latest) > 0 {
			res, err := s.Store.UpsertEntries(ctx, latest)
			if err != nil {
				return sum, fmt.Errorf("commit page %d: %w", sum.Pages, err)
			}
			sum.Added += res.Added
			sum.Updated += res.Updated
			sum.Unchanged += res.Unchanged
		}
		if len(gone) > 0 {
			n, err := s.Store.DeleteEntries(ctx, gone)
			if err != nil {
				return sum, fmt.Errorf("commit page %d: %w", sum.Pages, err)
			}
			sum.Hidden += n
		}
		if s.Progress != nil {
			s.Progress(sum)
		}
		if p.Metadata.NextCursor == "" || len(p.Servers) == 0 {
			break
		}
		cursor = p.Metadata.NextCursor
	}
	if !newest.IsZero() {
		if err := s.Store.SetState(ctx, stateKey(s.Base), newest.UTC().Format(time.RFC3339Nano)); err != nil {
			return sum, err
		}
	}
	return sum, nil
}

// apply maps a page's servers to entries to write and ids to hide.
func (s *Syncer) apply(ctx context.Context, p *page, sum *Summary, newest *time.Time) (latest []*mcpdir.Entry, gone []string, _ error) {
	var candidates []*mcpdir.Entry
	for _, item := range p.Servers {
		var meta official
		if raw, ok := item.Meta[officialMeta]; ok {
			if json.Unmarshal(raw, &meta) != nil {
				sum.Skipped["invalid _meta"]++
				continue
			}
		} else {
			meta = official{Status: "active", IsLatest: true}
		}
		if meta.UpdatedAt.After(*newest) {
			*newest = meta.UpdatedAt
		}
		if !meta.IsLatest {
			sum.Older++
			continue
		}
		e, err := mcpdir.ParseRecord(item.Server)
		if re, ok := errors.AsType[*mcpdir.RecordError](err); ok {
			sum.Skipped[re.Reason]++
			continue
		} else if err != nil {
			return nil, nil, err
		}
		e.Source = mcpdir.SourceRegistry
		e.CreatedAt, e.UpdatedAt = time.Time{}, time.Time{}
		if e.Extra == nil {
			e.Extra = map[string]json.RawMessage{}
		}
		e.Extra["registry_status"], _ = json.Marshal(meta.Status)
		if raw, ok := item.Meta[officialMeta]; ok {
			// The registry's times of the version, served again as it gave them.
			e.Extra["registry_meta"] = raw
		}
		// The record models what search and detail need; the registry's
		// own record stays whole beside it (environment variables, icons…).
		e.Extra["server"] = item.Server
		if meta.Status == "deleted" {
			gone = append(gone, mcpdir.EntryID(e.NaturalKey()))
			continue
		}
		candidates = append(candidates, e)
	}
	// An entry an admin edited stays as the admin left it.
	ids := make([]string, len(candidates))
	for i, e := range candidates {
		ids[i] = mcpdir.EntryID(e.NaturalKey())
	}
	stored, err := s.Store.EntriesByID(ctx, ids)
	if err != nil {
		return nil, nil, err
	}
	edited := map[string]bool{}
	for _, e := range stored {
		if e.Edited {
			edited[e.ID] = true
		}
	}
	for i, e := range candidates {
		if edited[ids[i]] {
			sum.Kept++
			continue
		}
		latest = append(latest, e)
	}
	return latest, gone, nil
}

// fetch gets one page, retrying 5xx answers and network errors with
// backoff; a 4xx is final.
func (s *Syncer) fetch(ctx context.Context, cursor, since string) (*page, error) {
	q := url.Values{"limit": {strconv.Itoa(PageSize)}}
	if cursor != "" {
		q.Set("cursor", cursor)
	}
	if since != "" {
		q.Set("updated_since", since)
	}
	u := strings.TrimRight(s.Base, "/") + "/v0.1/servers?" + q.Encode()
	tries, wait := max(1, s.Tries), s.RetryWait
	if s.Tries == 0 {
		tries = 4
	}
	if wait == 0 {
		wait = 500 * time.Millisecond
	}
	client := s.Client
	if client == nil {
		client = &http.Client{Timeout: 30 * time.Second}
	}
	var lastErr error
	for try := range tries {
		if try > 0 {
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(wait << (try - 1)):
			}
		}
		p, retry, err := s.get(ctx, client, u)
		if err == nil {
			return p, nil
		}
		lastErr = err
		if !retry {
			break
		}
		if s.Log != nil {
			s.Log.WarnContext(ctx, "registry sync: retrying a page", "try", try+1, "err", err)
		}
	}
	return nil, fmt.Errorf("registry %s: %w", s.Base, lastErr)
}

func (s *Syncer) get(ctx context.Context, client *http.Client, u string) (_ *page, retry bool, _ error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, false, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return nil, ctx.Err() == nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
		return nil, true, fmt.Errorf("status %d", resp.StatusCode)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, false, fmt.Errorf("status %d", resp.StatusCode)
	}
	var p page
	if err := json.NewDecoder(io.LimitReader(resp.Body, 64<<20)).Decode(&p); err != nil {
		return nil, true, fmt.Errorf("a page that is not the list API's JSON: %w", err)
	}
	return &p, false, nil
}
