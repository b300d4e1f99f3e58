package http

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpdir/mcpdir"
)

// panickingIndex stands for a bug deep in search: the server must answer a
// clean 500 and reveal nothing of it.
type panickingIndex struct{}

func (panickingIndex) Find(mcpdir.Query) mcpdir.SearchResult {
	panic("index corrupted at /var/lib/secret/path")
}

func (panickingIndex) Generation() uint64 { return 0 }

func (panickingIndex) Get(string) (*mcpdir.Entry, bool) {
	panic("index corrupted at /var/lib/secret/path")
}

type allowAll struct{}

func (allowAll) Authenticate(context.Context, string) (*mcpdir.APIKey, error) {
	return &mcpdir.APIKey{Prefix: "mcpd_test1234", RateLimit: mcpdir.Unlimited}, nil
}

func (allowAll) Check(*mcpdir.APIKey) error { return nil }

func (allowAll) Spend(context.Context, *mcpdir.APIKey) (mcpdir.RateDecision, error) {
	return mcpdir.RateDecision{Allowed: true, Limit: mcpdir.Unlimited}, nil
}

func TestInternalErrorsLeakNothing(t *testing.T) {
	var logs strings.Builder
	srv := httptest.NewServer(NewServer(Config{
		Logger: slog.New(slog.NewTextHandler(&logs, nil)),
		Index:  panickingIndex{},
		Guard:  allowAll{},
	}))
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/api/open/v1/search?keywords=x")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var e errorBody
	if err := json.Unmarshal(body, &e); err != nil || resp.StatusCode != 500 || e.Error.Code != "internal" {
		t.Fatalf("got %d %s", resp.StatusCode, body)
	}
	if strings.Contains(string(body), "secret") || strings.Contains(string(body), "panic") {
		t.Fatalf("500 body leaks internals: %s", body)
	}
	if !strings.Contains(logs.String(), "index corrupted") {
		t.Fatal("the panic was not logged for the operator")
	}
}

func TestReadyzReportsNotReady(t *testing.T) {
	srv := httptest.NewServer(NewServer(Config{
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Index:  panickingIndex{}, Guard: allowAll{},
		Ready: func(context.Context) Readiness {
			return Readiness{Checks: map[string]string{"index": "building"}}
		},
	}))
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 503 || strings.Contains(string(body), "EOF") {
		t.Fatalf("got %d %s", resp.StatusCode, body)
	}
}
