package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/hibiken/asynq"

	"github.com/foiaflow/foiaflow/api"
	"github.com/foiaflow/foiaflow/cmd/internal/app"
	"github.com/foiaflow/foiaflow/cmd/internal/browser"
	"github.com/foiaflow/foiaflow/jobs"
	"github.com/foiaflow/foiaflow/store/storetest"
	"github.com/foiaflow/foiaflow/workflow"
)

// TestReviewerDeskInChromium drives the real reviewer desk in headless
// Chromium against the real API wiring, Postgres, Redis and an in-process
// worker with the offline drafter and the .eml sink: sign in with an API
// key, find the parked proposal in the queue, open its case, watch the
// steps of a redraft arrive live over the case's event stream, approve a
// version that changed since the page was loaded (refused, "changed since
// you loaded it"), post a form without the CSRF token (403, nothing
// recorded), then send an edited text and find it in the sent .eml, with
// the reviewer recorded on the decision.
func TestReviewerDeskInChromium(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	chromium, err := browser.Find(ctx)
	if errors.Is(err, browser.ErrUnavailable) {
		t.Skipf("reviewer desk browser test skipped: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	a := app.OpenTest(t, func(c *app.Config) { c.APIAddr = "127.0.0.1:0" })
	m, err := NewAPI(a)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Server.Close()
	rctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- m.Run(rctx) }()
	defer func() { stop(); <-done }()
	startTestWorker(t, a)
	base := "http://" + m.Addr()

	key, hash, err := api.NewAPIKey()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Store.CreateAPIKey(ctx, "ana@newsroom.org", api.RoleReviewer, hash); err != nil {
		t.Fatal(err)
	}
	c := &jsonClient{base: base, key: key}
	var created struct {
		Case struct {
			CaseID int64 `json:"case_id"`
		} `json:"case"`
	}
	c.do(t, "POST", "/v1/cases", map[string]any{"agency_name": "Springfield Police Department",
		"agency_email": "records@springfield.gov", "jurisdiction": "TX", "subject": "Use-of-force reports 2025",
		"requested_records": []string{"use-of-force reports"}, "autopilot_mode": "SUPERVISED",
		"send_initial_request": true}, http.StatusCreated, &created)
	caseID := created.Case.CaseID
	var queue struct {
		Proposals []struct {
			ID int64 `json:"id"`
		} `json:"proposals"`
	}
	storetest.Eventually(t, 20*time.Second, "initial request parked", func() bool {
		c.do(t, "GET", fmt.Sprintf("/v1/proposals?status=PENDING_APPROVAL&case_id=%d", caseID), nil, 200, &queue)
		return len(queue.Proposals) == 1
	})
	pid := queue.Proposals[0].ID
	// A drafting call of gpt-4o (2000×250 + 500×1000 µ¢ = 1 ¢) recorded as
	// the graph's memo records it: the case page shows the case's cost.
	if err := a.Store.Remember(ctx, int64(countRows(t, a, `SELECT min(id) FROM runs WHERE case_id = $1`, caseID)), 99, "draft-cost-fixture",
		workflow.MemoCall{Response: json.RawMessage(`{}`), Usage: &workflow.LLMUsage{Model: "gpt-4o", PromptTokens: 2000, CompletionTokens: 500}}); err != nil {
		t.Fatal(err)
	}

	bctx, closeBrowser := browser.Open(ctx, chromium)
	defer closeBrowser()
	run := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(bctx, steps...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(bctx, chromedp.Text(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("text of %s: %v", sel, err)
		}
		return s
	}

	// Signed out, the queue sends the browser to the sign-in form.
	run("sign in", chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.ID("key")),
		chromedp.SendKeys(chromedp.ID("key"), key), chromedp.Submit(chromedp.ID("key")),
		chromedp.WaitVisible(chromedp.ID("queue")))
	if q := text("#queue"); !strings.Contains(q, "Use-of-force reports 2025") || !strings.Contains(q, "SEND_INITIAL_REQUEST") {
		t.Fatalf("queue shows %q", q)
	}
	if who := text("header.top .who"); !strings.Contains(who, "ana@newsroom.org") {
		t.Fatalf("header %q", who)
	}
	decideForm := fmt.Sprintf("#decide-%d", pid)
	run("open the case", chromedp.Click(chromedp.CSS("#queue tbody a")), chromedp.WaitVisible(chromedp.CSS(decideForm)))
	if cost := text("#llm-cost"); !strings.Contains(cost, "$0.0100") || !strings.Contains(cost, "1 calls") {
		t.Fatalf("case cost shows %q", cost)
	}

	// Someone adjusts the proposal through the API while the page shows v1.
	c.do(t, "POST", fmt.Sprintf("/v1/cases/%d/proposals/%d/adjust", caseID, pid), map[string]any{"version": 1, "instruction": "firmer"},
		http.StatusAccepted, nil, "Idempotency-Key", "adjust-1")
	// The open page follows the case's live events: the redraft's steps
	// arrive as they commit, ending with the park, without a reload.
	run("live step events", chromedp.WaitVisible(chromedp.CSS(`#steps li.live[data-type="parked"]`)))
	live, err := chromedp.Run(bctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#steps li.live")].map(li => li.textContent)`))
	if err != nil || len(live) < 3 || !strings.Contains(strings.Join(live, "\n"), "draft_response") {
		t.Fatalf("live events on the page: %q %v", live, err)
	}
	storetest.Eventually(t, 20*time.Second, "v2 drafted and parked", func() bool {
		var p struct {
			Proposal struct {
				Status         string `json:"status"`
				CurrentVersion int    `json:"current_version"`
			} `json:"proposal"`
		}
		c.do(t, "GET", fmt.Sprintf("/v1/proposals/%d", pid), nil, 200, &p)
		return p.Proposal.CurrentVersion == 2 && p.Proposal.Status == workflow.ProposalPending
	})
	run("approve the stale version", chromedp.Click(chromedp.ID(fmt.Sprintf("approve-%d", pid))), chromedp.WaitVisible(chromedp.ID("error-banner")))
	if b := text("#error-banner"); !strings.Contains(b, "changed since you loaded it") {
		t.Fatalf("stale approve banner %q", b)
	}
	if v := text(fmt.Sprintf("#proposal-%d .letter", pid)); !strings.Contains(v, "formal request") {
		t.Fatalf("the refused page does not show v2 (firmer): %q", v)
	}
	if d := text(fmt.Sprintf("#diff-%d", pid)); !strings.Contains(d, "+") {
		t.Fatalf("no diff between v1 and v2: %q", d)
	}

	// A form post without the session's CSRF token is refused and records
	// nothing, although the browser sends the session cookie.
	status, err := chromedp.Run(bctx, chromedp.Evaluate[int](fmt.Sprintf(`fetch(document.querySelector(%q).getAttribute("action"), {method: "POST",
		body: new URLSearchParams({action: "approve", version: "2", idempotency_key: "forged-1"})}).then(r => r.status)`, decideForm),
		chromedp.EvalAwaitPromise))
	if err != nil || status != http.StatusForbidden {
		t.Fatalf("post without CSRF token: status %d, %v", status, err)
	}
	if n := countRows(t, a, `SELECT count(*) FROM decisions WHERE proposal_id = $1`, pid); n != 1 {
		t.Fatalf("%d decisions after the forged post, want 1 (the adjust)", n)
	}

	// Edit v2 and send it.
	edited := "Dear records officer,\n\nPlease send the use-of-force reports for 2025 (edited on the desk).\n\nThank you."
	run("edit and send", chromedp.SetValue(chromedp.ID(fmt.Sprintf("body-%d", pid)), edited),
		chromedp.Click(chromedp.ID(fmt.Sprintf("edit-%d", pid))), chromedp.WaitVisible(chromedp.ID("notice-banner")))
	var eml string
	storetest.Eventually(t, 20*time.Second, "edited letter in the .eml sink", func() bool {
		files, _ := filepath.Glob(filepath.Join(a.Config.MailSinkDir, "*.eml"))
		for _, f := range files {
			b, _ := os.ReadFile(f)
			if bytes.Contains(b, []byte("edited on the desk")) {
				eml = f
				return true
			}
		}
		return false
	})
	var actor, action string
	if err := a.Store.Pool().QueryRow(ctx, `SELECT actor, action FROM decisions WHERE proposal_id = $1 ORDER BY id DESC LIMIT 1`, pid).Scan(&actor, &action); err != nil {
		t.Fatal(err)
	}
	if actor != "ana@newsroom.org" || action != workflow.DecisionEdit {
		t.Fatalf("last decision %s by %q", action, actor)
	}
	t.Logf("sent %s", eml)

	// An open escalation is assigned and resolved from the escalations page.
	var escID int64
	if err := a.Store.Pool().QueryRow(ctx, `INSERT INTO escalations (case_id, escalation_key, reason)
		VALUES ($1, 'desk-test', 'the agency asked for a phone call') RETURNING id`, caseID).Scan(&escID); err != nil {
		t.Fatal(err)
	}
	run("assign the escalation", chromedp.Navigate(base+"/escalations"), chromedp.WaitVisible(chromedp.ID(fmt.Sprintf("assign-%d", escID))),
		chromedp.Click(chromedp.ID(fmt.Sprintf("assign-%d", escID))), chromedp.WaitVisible(chromedp.ID("notice-banner")))
	if row := text("#escalations tbody"); !strings.Contains(row, "ana@newsroom.org") || !strings.Contains(row, "phone call") {
		t.Fatalf("assigned escalation row %q", row)
	}
	run("resolve the escalation", chromedp.SendKeys(chromedp.ID(fmt.Sprintf("resolution-%d", escID)), "called the clerk"),
		chromedp.Click(chromedp.ID(fmt.Sprintf("resolve-%d", escID))))
	storetest.Eventually(t, 10*time.Second, "escalation resolved by the reviewer", func() bool {
		return countRows(t, a, `SELECT count(*) FROM escalations WHERE id = $1 AND status = 'resolved'
			AND resolved_by = 'ana@newsroom.org' AND resolution = 'called the clerk'`, escID) == 1
	})
}

func countRows(t *testing.T, a *app.App, q string, args ...any) int {
	t.Helper()
	var n int
	if err := a.Store.Pool().QueryRow(context.Background(), q, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// startTestWorker runs the job handlers a worker runs (agent steps,
// resumes, email sends through the App's sender) until the test ends.
func startTestWorker(t *testing.T, a *app.App) {
	t.Helper()
	deps, err := a.Deps()
	if err != nil {
		t.Fatal(err)
	}
	sender, err := a.Sender()
	if err != nil {
		t.Fatal(err)
	}
	dispatch := &jobs.Dispatcher{Client: a.Client, Store: a.Store, Log: a.Log}
	hs := jobs.NewWorker(jobs.WorkerDeps{Store: a.Store, Deps: deps, Dispatch: dispatch, Queues: a.Queues,
		WorkerID: "desk-test", Sender: sender, Log: a.Log})
	srv := jobs.NewServer(a.Redis, jobs.ServerOptions{Concurrency: 4, Queues: a.Queues, ShutdownTimeout: 2 * time.Second,
		PollInterval: 2 * time.Millisecond, LogLevel: asynq.FatalLevel})
	if err := srv.Start(hs.Mux()); err != nil {
		t.Fatalf("start worker: %v", err)
	}
	t.Cleanup(srv.Shutdown)
}

// jsonClient calls the JSON API with a Bearer key.
type jsonClient struct{ base, key string }

func (c *jsonClient) do(t *testing.T, method, path string, body any, want int, out any, header ...string) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	rq, _ := http.NewRequest(method, c.base+path, rd)
	rq.Header.Set("Authorization", "Bearer "+c.key)
	if body != nil {
		rq.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		rq.Header.Set(header[i], header[i+1])
	}
	res, err := http.DefaultClient.Do(rq)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != want {
		t.Fatalf("%s %s: %d %s", method, path, res.StatusCode, b)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
	}
}
