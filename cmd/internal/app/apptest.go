package app

import (
	"context"
	"testing"

	"go.uber.org/zap/zaptest"

	"github.com/foiaflow/foiaflow/store/storetest"
)

// OpenTest opens an App on a fresh isolated schema and per-test queues, with
// the file sink in a temp dir and business-hours sending off, for end-to-end
// tests of the real wiring. mutate may adjust the config first.
func OpenTest(t testing.TB, mutate func(*Config)) *App {
	t.Helper()
	db := storetest.New(t)
	c, err := Load()
	if err != nil {
		t.Fatalf("config: %v", err)
	}
	c.DatabaseURL, c.DatabaseSchema = storetest.DatabaseURL(), db.Schema
	c.RedisAddr, c.QueuePrefix = storetest.RedisAddr(), storetest.QueuePrefix(t)
	c.MailSinkDir = t.TempDir()
	c.SendBusinessHours, c.SendMaxJitter = false, 0
	c.WorkerMetricsAddr, c.SchedulerMetricsAddr = "", ""
	c.WorkerConcurrency = 4
	if mutate != nil {
		mutate(&c)
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	a, err := Open(context.Background(), c, zaptest.NewLogger(t), false)
	if err != nil {
		t.Fatalf("open app: %v", err)
	}
	t.Cleanup(a.Close)
	return a
}
