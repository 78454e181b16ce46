package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/foiaflow/foiaflow/cmd/internal/app"
)

// The real wiring: the API serves on a real socket from app.Config, creates
// a case that starts an initial_request run, and shuts down gracefully when
// its context ends.
func TestAPIServesAndShutsDown(t *testing.T) {
	t.Parallel()
	a := app.OpenTest(t, func(c *app.Config) {
		c.APIAddr, c.BootstrapAdminKey = "127.0.0.1:0", "e2e-admin-key"
	})
	m, err := NewAPI(a)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Server.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	base := "http://" + m.Addr()

	for _, p := range []string{"/healthz", "/readyz"} {
		res, err := http.Get(base + p)
		if err != nil || res.StatusCode != http.StatusOK {
			t.Fatalf("%s: %v %v", p, res, err)
		}
		res.Body.Close()
	}
	body, _ := json.Marshal(map[string]any{"agency_name": "Austin Police Department", "agency_email": "records@austintexas.gov",
		"jurisdiction": "TX", "subject": "Body camera policy", "requested_records": []string{"body camera policy"},
		"send_initial_request": true})
	rq, _ := http.NewRequest("POST", base+"/v1/cases", bytes.NewReader(body))
	rq.Header.Set("Authorization", "Bearer e2e-admin-key")
	rq.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(rq)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	var created struct {
		RunID *int64 `json:"run_id"`
	}
	if res.StatusCode != http.StatusCreated || json.Unmarshal(b, &created) != nil || created.RunID == nil {
		t.Fatalf("create case: %d %s", res.StatusCode, b)
	}
	var n int
	if err := a.Store.Pool().QueryRow(ctx, `SELECT count(*) FROM outbox WHERE dispatched_at IS NOT NULL`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("dispatched outbox rows %d: %v", n, err)
	}

	// A request already sent gets its statutory due date and first follow-up
	// at creation: Texas, 10 business days from Friday 2026-11-20 (the day
	// before Thanksgiving week) is Monday 2026-12-07.
	body, _ = json.Marshal(map[string]any{"agency_name": "Austin Police Department", "agency_email": "records@austintexas.gov",
		"jurisdiction": "TX", "subject": "Use of force", "agency_timezone": "America/Chicago",
		"requested_records": []string{"use of force reports"},
		"sent_at":           "2026-11-20T16:00:00Z"})
	rq, _ = http.NewRequest("POST", base+"/v1/cases", bytes.NewReader(body))
	rq.Header.Set("Authorization", "Bearer e2e-admin-key")
	rq.Header.Set("Content-Type", "application/json")
	res, err = http.DefaultClient.Do(rq)
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(res.Body)
	res.Body.Close()
	var sent struct {
		Case struct {
			CaseID int64 `json:"case_id"`
		} `json:"case"`
	}
	if res.StatusCode != http.StatusCreated || json.Unmarshal(b, &sent) != nil {
		t.Fatalf("create sent case: %d %s", res.StatusCode, b)
	}
	var due, next time.Time
	if err := a.Store.Pool().QueryRow(ctx, `SELECT due_at, next_followup_at FROM cases WHERE id=$1`, sent.Case.CaseID).Scan(&due, &next); err != nil {
		t.Fatalf("due dates not set: %v", err)
	}
	chicago, _ := time.LoadLocation("America/Chicago")
	if d := due.In(chicago).Format("2006-01-02"); d != "2026-12-07" {
		t.Fatalf("due %s, want 2026-12-07", d)
	}
	if !next.Equal(due) {
		t.Fatalf("first follow-up %s, want the due date %s", next, due)
	}

	cancel()
	if err := <-done; err != nil {
		t.Fatalf("run: %v", err)
	}
	if _, err := http.Get(base + "/healthz"); err == nil {
		t.Fatal("still serving after shutdown")
	}
}
