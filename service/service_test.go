package service_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/service"
	"github.com/mcpdir/mcpdir/sqlite"
)

func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// Open answers on its port before the store is open: /readyz 503
// "starting", then 200 once Open returns; Run serves until its context
// ends and stops cleanly.
func TestOpenListensFirst(t *testing.T) {
	addr, dir := freeAddr(t), t.TempDir()
	release := make(chan struct{})
	cfg := service.Config{
		Addr:      addr,
		StoreName: "--data-dir " + dir,
		OpenStore: func(ctx context.Context) (mcpdir.Store, error) {
			<-release
			return sqlite.Open(ctx, dir)
		},
		FeedInterval: 100 * time.Millisecond,
		RegistryAPI:  "public",
		Logger:       slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	opened := make(chan *service.Service, 1)
	go func() {
		s, err := service.Open(t.Context(), cfg)
		if err != nil {
			t.Error(err)
		}
		opened <- s
	}()
	status := func() (int, string) {
		for range 100 {
			resp, err := http.Get("http://" + addr + "/readyz")
			if err != nil {
				time.Sleep(20 * time.Millisecond)
				continue
			}
			defer resp.Body.Close()
			var body struct{ Status string }
			json.NewDecoder(resp.Body).Decode(&body)
			return resp.StatusCode, body.Status
		}
		t.Fatal("the port never opened")
		return 0, ""
	}
	if code, s := status(); code != 503 || s != "starting" {
		t.Fatalf("/readyz before the store is open: %d %q", code, s)
	}
	close(release)
	s := <-opened
	if s == nil {
		t.FailNow()
	}
	defer s.Close()
	if code, st := status(); code != 200 || st != "ready" {
		t.Fatalf("/readyz after Open: %d %q", code, st)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	resp, err := http.Get("http://" + addr + "/")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("the front page once ready: %v %v", err, resp)
	}
	resp.Body.Close()
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
}

// A busy port fails Open at once, without opening the store.
func TestOpenBusyPort(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	opened := false
	_, err = service.Open(t.Context(), service.Config{Addr: busy.Addr().String(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		OpenStore: func(context.Context) (mcpdir.Store, error) { opened = true; return nil, nil }})
	if err == nil || !strings.Contains(err.Error(), "listen on") || opened {
		t.Fatalf("busy port: %v (store opened: %v)", err, opened)
	}
}
