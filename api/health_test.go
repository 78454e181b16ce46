package api

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"go.uber.org/zap/zaptest"

	"github.com/foiaflow/foiaflow/store"
	"github.com/foiaflow/foiaflow/store/storetest"
)

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func TestReadyzFailsWithoutRedis(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	srv, err := New(e.srv.cfg, Deps{Store: e.st, Queues: e.queues, Dispatch: e.dispatch,
		Redis: asynq.RedisClientOpt{Addr: "127.0.0.1:1"}, Log: zaptest.NewLogger(t), Blobs: e.blobs})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	rec := newRecorder()
	srv.Handler().ServeHTTP(rec, mustRequest(t, "GET", "/readyz"))
	if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), "not_ready") {
		t.Fatalf("readyz without redis: %d %s", rec.Code, rec.Body)
	}
	rec = newRecorder()
	srv.Handler().ServeHTTP(rec, mustRequest(t, "GET", "/healthz"))
	if rec.Code != http.StatusOK {
		t.Fatalf("healthz: %d", rec.Code)
	}
}

func TestMetrics(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	caseID, _ := e.newCase()
	e.pendingProposal(caseID, 1)
	if _, err := e.client.Enqueue(asynq.NewTask("metrics:probe", nil), asynq.Queue(e.queues.Agent)); err != nil {
		t.Fatal(err)
	}
	e.req("GET", "/v1/cases/"+itoa(caseID), e.reviewerKey, nil).expect(http.StatusOK, "")
	body := string(e.req("GET", "/metrics", e.reviewerKey, nil).expect(http.StatusOK, "").Body)
	for _, want := range []string{
		`foiaflow_http_requests_total{route="GET /v1/cases/{id}",status="200"} 1`,
		`foiaflow_http_request_duration_seconds_bucket{route="GET /v1/cases/{id}"`,
		`foiaflow_runs{status="parked"} 1`,
		`foiaflow_parked_runs 1`,
		`foiaflow_proposals{status="PENDING_APPROVAL"} 1`,
		`foiaflow_ops_scrape_error 0`,
		`asynq_tasks_enqueued_total{queue="` + e.queues.Agent + `",state="pending"} 1`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
	e.db.Exec(t, `INSERT INTO run_steps (run_id, seq, node, outcome, started_at, finished_at)
		SELECT id, 0, 'load_context', 'next', now(), now() FROM runs LIMIT 1`)
	body = string(e.req("GET", "/metrics", e.reviewerKey, nil).Body)
	if !strings.Contains(body, `foiaflow_run_steps{node="load_context",outcome="next"} 1`) {
		t.Error("step gauge missing")
	}
}

// Issue 10 "Errors that tell the truth": with the database gone the API
// answers 503 database_unavailable with Retry-After within a second, and
// neither that answer nor /readyz names a host, user or driver error.
func TestDatabaseDownIsAFast503ThatLeaksNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	proxy := storetest.NewProxy(t)
	st, err := store.Open(context.Background(), store.Config{URL: proxy.URL(), Schema: e.db.Schema, MaxConns: 4})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	d := e.deps()
	d.Store = st
	srv, err := New(e.srv.cfg, d)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	get := func(path, key string) (resp, time.Duration) {
		rq, _ := http.NewRequest("GET", ts.URL+path, nil)
		if key != "" {
			rq.Header.Set("Authorization", "Bearer "+key)
		}
		start := time.Now()
		r := e.send(rq)
		return r, time.Since(start)
	}
	if r, _ := get("/v1/cases", e.reviewerKey); r.Status != http.StatusOK {
		t.Fatalf("before the cut: %d %s", r.Status, r.Body)
	}
	proxy.Cut()
	leaks := []string{"127.0.0.1", "postgres@", "postgres://", "user=", "database=", "dial", "connect", e.db.Schema, "5432"}
	for _, key := range []string{testAdminKey, e.reviewerKey} { // the reviewer key is looked up in the database
		r, took := get("/v1/cases", key)
		r.expect(http.StatusServiceUnavailable, "database_unavailable")
		if took > time.Second || r.Header.Get("Retry-After") == "" {
			t.Fatalf("503 after %s, Retry-After %q", took, r.Header.Get("Retry-After"))
		}
		for _, l := range leaks {
			if strings.Contains(strings.ToLower(string(r.Body)), l) {
				t.Fatalf("503 body leaks %q: %s", l, r.Body)
			}
		}
	}
	r, took := get("/readyz", "")
	r.expect(http.StatusServiceUnavailable, "not_ready")
	if took > 3*time.Second || !strings.Contains(string(r.Body), "postgres: unavailable") {
		t.Fatalf("readyz after %s: %s", took, r.Body)
	}
	for _, l := range leaks {
		if strings.Contains(strings.ToLower(string(r.Body)), l) {
			t.Fatalf("readyz leaks %q: %s", l, r.Body)
		}
	}
}
