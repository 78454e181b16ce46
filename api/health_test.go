package api

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/hibiken/asynq"
	"go.uber.org/zap/zaptest"
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
