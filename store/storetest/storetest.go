// Package storetest gives tests an isolated, migrated Postgres schema and an
// isolated Redis database, against the real services (STYLE.md §9).
//
// FOIAFLOW_TEST_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test)
// and FOIAFLOW_TEST_REDIS_ADDR (default 127.0.0.1:6379) select the services.
package storetest

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/foiaflow/foiaflow/migrations"
	"github.com/foiaflow/foiaflow/store"
)

// DatabaseURL is the test database URL.
func DatabaseURL() string {
	if u := os.Getenv("FOIAFLOW_TEST_DATABASE_URL"); u != "" {
		return u
	}
	return "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"
}

// RedisAddr is the test Redis address.
func RedisAddr() string {
	if a := os.Getenv("FOIAFLOW_TEST_REDIS_ADDR"); a != "" {
		return a
	}
	return "127.0.0.1:6379"
}

// Suffix returns a random lowercase hex string of n bytes.
func Suffix(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// DB is an isolated schema.
type DB struct {
	Store  *store.Store
	Schema string
	Config store.Config
}

// New creates a fresh schema, migrates it, and returns a store using it with
// a random advisory-lock namespace (so parallel tests never contend on each
// other's case locks). The schema is dropped when the test ends.
func New(t testing.TB) *DB {
	t.Helper()
	ctx := context.Background()
	schema := "t_" + Suffix(6)
	admin, err := pgx.Connect(ctx, DatabaseURL())
	if err != nil {
		t.Fatalf("storetest: connect %s: %v (is Postgres running? `make services`)", DatabaseURL(), err)
	}
	if _, err := admin.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatalf("storetest: create schema: %v", err)
	}
	_ = admin.Close(ctx)
	var nsb [4]byte
	_, _ = rand.Read(nsb[:])
	cfg := store.Config{URL: DatabaseURL(), Schema: schema, MaxConns: 12,
		LockNamespace: int32(binary.BigEndian.Uint32(nsb[:])&0x3fffffff) + 1}
	st, err := store.Open(ctx, cfg)
	if err != nil {
		t.Fatalf("storetest: open: %v", err)
	}
	if _, err := migrations.Up(ctx, st.Pool()); err != nil {
		st.Close()
		t.Fatalf("storetest: migrate: %v", err)
	}
	t.Cleanup(func() {
		st.Close()
		c, err := pgx.Connect(context.Background(), DatabaseURL())
		if err != nil {
			return
		}
		defer c.Close(context.Background())
		_, _ = c.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE")
	})
	return &DB{Store: st, Schema: schema, Config: cfg}
}

// Exec runs SQL in the test schema (assertions and fixtures).
func (d *DB) Exec(t testing.TB, sql string, args ...any) {
	t.Helper()
	if _, err := d.Store.Pool().Exec(context.Background(), sql, args...); err != nil {
		t.Fatalf("exec %q: %v", sql, err)
	}
}

// Int returns a single integer from a query.
func (d *DB) Int(t testing.TB, sql string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := d.Store.Pool().QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatalf("query %q: %v", sql, err)
	}
	return n
}

// String returns a single string from a query.
func (d *DB) String(t testing.TB, sql string, args ...any) string {
	t.Helper()
	var s string
	if err := d.Store.Pool().QueryRow(context.Background(), sql, args...).Scan(&s); err != nil {
		t.Fatalf("query %q: %v", sql, err)
	}
	return s
}

// Eventually polls cond every 10ms until it is true or timeout passes, then
// fails the test with msg. Tests never sleep to wait (STYLE.md §9).
func Eventually(t testing.TB, timeout time.Duration, msg string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		if cond() {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for: %s", timeout, msg)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// QueuePrefix returns a per-test asynq queue name prefix, so parallel tests
// sharing one Redis never take each other's tasks.
func QueuePrefix(t testing.TB) string {
	name := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, strings.ToLower(t.Name()))
	if len(name) > 20 {
		name = name[:20]
	}
	return fmt.Sprintf("t%s%s-", name, Suffix(3))
}
