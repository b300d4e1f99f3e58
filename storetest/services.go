package storetest

import (
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// PostgresAdminURL is where the integration tests find PostgreSQL:
// MCPDIR_TEST_POSTGRES, or this machine's server (trust auth as postgres).
func PostgresAdminURL() string {
	if u := os.Getenv("MCPDIR_TEST_POSTGRES"); u != "" {
		return u
	}
	return "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
}

// unavailable skips the test where the service is missing, and fails it in
// CI (CI=true), where .ci/run starts the services and a skip would hide a
// broken setup.
func unavailable(t testing.TB, service string, err error) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is not reachable in CI: %v", service, err)
	}
	t.Skipf("%s is not reachable (%v): start it to run this test (the README says how)", service, err)
}

// PostgresURL creates a fresh database for the test, dropped at its end,
// and returns its URL.
func PostgresURL(t testing.TB) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	admin := PostgresAdminURL()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		unavailable(t, "PostgreSQL", err)
	}
	defer conn.Close(ctx)
	name := "mcpdir_test_" + strings.ToLower(rand.Text()[:12])
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("create test database: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if c, err := pgx.Connect(ctx, admin); err == nil {
			c.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
			c.Close(ctx)
		}
	})
	u, err := url.Parse(admin)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

// RedisAddr is where the integration tests find Redis: MCPDIR_TEST_REDIS
// (host:port), or this machine's server.
func RedisAddr() string {
	if a := os.Getenv("MCPDIR_TEST_REDIS"); a != "" {
		return a
	}
	return "127.0.0.1:6379"
}

// RedisURL checks that Redis answers and returns its URL, or skips (fails
// in CI). Tests keep apart by key prefix.
func RedisURL(t testing.TB) string {
	t.Helper()
	c, err := net.DialTimeout("tcp", RedisAddr(), 2*time.Second)
	if err == nil {
		c.SetDeadline(time.Now().Add(2 * time.Second))
		_, err = io.WriteString(c, "PING\r\n")
		buf := make([]byte, 7)
		if err == nil {
			_, err = io.ReadFull(c, buf)
		}
		if err == nil && string(buf) != "+PONG\r\n" {
			err = fmt.Errorf("answered %q", buf)
		}
		c.Close()
	}
	if err != nil {
		unavailable(t, "Redis", err)
	}
	return "redis://" + RedisAddr() + "/0"
}
