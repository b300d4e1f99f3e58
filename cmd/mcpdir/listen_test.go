package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpdir/mcpdir/sqlite"
)

// The port is open from the first moment: while the store is not open yet
// (here another process holds its write lock) /readyz answers 503
// "starting" in JSON, /healthz 200 and the API 503 with Retry-After; then
// /readyz turns 200.
func TestReadyzSaysStartingUntilTheStoreIsOpen(t *testing.T) {
	dir := t.TempDir()
	key := newKey(t, dir) // the store exists, at its schema
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, sqlite.FileName)+"?_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	lock, err := db.BeginTx(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	stderr := &syncBuffer{}
	go func() {
		done <- run(ctx, []string{"mcpdir", "serve", "--addr", addr, "--data-dir", dir}, noEnv, nil, io.Discard, stderr)
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v\n%s", err, stderr)
		}
	}()
	base := "http://" + addr
	var resp *http.Response
	waitFor(t, 5*time.Second, "the port open", func() bool {
		resp, err = http.Get(base + "/readyz")
		return err == nil
	})
	var body struct {
		Status string `json:"status"`
		Error  struct {
			Code, Message string
		} `json:"error"`
	}
	json.NewDecoder(resp.Body).Decode(&body)
	resp.Body.Close()
	if resp.StatusCode != 503 || body.Status != "starting" || body.Error.Code != "unavailable" || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("/readyz while starting: %d %+v", resp.StatusCode, body)
	}
	if resp := get(t, base+"/healthz", ""); resp.StatusCode != 200 {
		t.Errorf("/healthz while starting: %d", resp.StatusCode)
	}
	resp = get(t, base+"/api/open/v1/search?keywords=postgres", "Bearer "+key)
	if resp.StatusCode != 503 || resp.Header.Get("Retry-After") == "" || decode[errorBody](t, resp).Error.Code != "unavailable" {
		t.Errorf("a search while starting: %d %v", resp.StatusCode, resp.Header)
	}
	time.Sleep(300 * time.Millisecond)
	if resp := get(t, base+"/readyz", ""); resp.StatusCode != 503 {
		t.Fatalf("/readyz before the store is open: %d", resp.StatusCode)
	}
	lock.Rollback()
	waitFor(t, 15*time.Second, "/readyz 200", func() bool {
		resp, err := http.Get(base + "/readyz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == 200
	})
	if resp := get(t, base+"/api/open/v1/search?keywords=postgres", "Bearer "+key); resp.StatusCode != 200 {
		t.Errorf("a search once ready: %d", resp.StatusCode)
	}
}

// A busy port is reported at once, before the store is even opened.
func TestBusyPortFailsAtOnce(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	for _, flag := range []string{"--addr", "--metrics-addr"} {
		dir := t.TempDir()
		args := []string{"mcpdir", "serve", "--data-dir", dir, "--addr", freeAddr(t), flag, busy.Addr().String()}
		start := time.Now()
		err := run(t.Context(), args, noEnv, nil, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), "listen on "+busy.Addr().String()) || time.Since(start) > 2*time.Second {
			t.Fatalf("%s busy: %v after %s", flag, err, time.Since(start))
		}
		if _, err := os.Stat(filepath.Join(dir, sqlite.FileName)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s busy: the store was opened before the port was taken (%v)", flag, err)
		}
	}
}
