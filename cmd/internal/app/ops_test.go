package app

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// Issue 10 "Errors that tell the truth": the unauthenticated /readyz of the
// worker and scheduler names the failing dependency but never its error
// (which can carry hosts, users, passwords).
func TestOpsReadyzRevealsNoDriverErrors(t *testing.T) {
	t.Parallel()
	core, logs := observer.New(zap.WarnLevel)
	leak := errors.New(`failed to connect to user=foiaflow database=foiaflow: db.internal:5432 (postgres://foiaflow:s3cret@db.internal)`)
	srv, _ := OpsServer("127.0.0.1:0", prometheus.NewRegistry(), zap.New(core),
		Check{Name: "postgres", Ping: func(context.Context) error { return nil }},
		Check{Name: "redis", Ping: func(context.Context) error { return leak }})
	rec := httptest.NewRecorder()
	srv.Handler.ServeHTTP(rec, httptest.NewRequest("GET", "/readyz", nil))
	body := rec.Body.String()
	if rec.Code != http.StatusServiceUnavailable || strings.TrimSpace(body) != "redis: unavailable" {
		t.Fatalf("readyz: %d %q", rec.Code, body)
	}
	for _, s := range []string{"db.internal", "s3cret", "user=", "5432"} {
		if strings.Contains(body, s) {
			t.Fatalf("readyz leaks %q", s)
		}
	}
	if logs.FilterMessage("readyz: dependency check failed").Len() != 1 {
		t.Fatal("the cause is not logged")
	}
	rec = httptest.NewRecorder()
	srv.Handler.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("metrics: %d", rec.Code)
	}
}
