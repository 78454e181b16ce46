package api

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/foiaflow/foiaflow/store"
	"github.com/foiaflow/foiaflow/store/storetest"
	"github.com/foiaflow/foiaflow/workflow"
)

// usageAnalyzer answers like ackAnalyzer and reports the tokens an LLM
// would have used, as the OpenAI analyzer does.
type usageAnalyzer struct{ ackAnalyzer }

func (u usageAnalyzer) Analyze(ctx context.Context, r workflow.Reply, c workflow.CaseContext) (workflow.Analysis, error) {
	a, err := u.ackAnalyzer.Analyze(ctx, r, c)
	a.Usage = &workflow.LLMUsage{Model: "gpt-4o-mini-2024-07-18", PromptTokens: 1200, CompletionTokens: 300, Attempts: 1}
	return a, err
}

// usageDrafter drafts like plainDrafter with gpt-4o's usage.
type usageDrafter struct{ plainDrafter }

func (u usageDrafter) Draft(ctx context.Context, req workflow.DraftRequest) (workflow.Draft, error) {
	d, err := u.plainDrafter.Draft(ctx, req)
	d.Usage = &workflow.LLMUsage{Model: "gpt-4o", PromptTokens: 2000, CompletionTokens: 500, Attempts: 1}
	return d, err
}

// workedCase runs a case through the real worker with memoized LLM calls:
// the initial request is drafted (gpt-4o), approved by the reviewer and
// sent; the agency's reply is analysed (gpt-4o-mini). It returns the case
// and the proposal approved.
func workedCase(t *testing.T, e *env) (caseID, proposalID int64, sender *recordingSender) {
	t.Helper()
	sender = e.startWorkerWith(func(d *workflow.Deps) {
		d.Analyzer, d.Drafter, d.MemoAnalysis, d.MemoDrafts = usageAnalyzer{}, usageDrafter{}, true, true
	})
	body := validCase()
	body["send_initial_request"] = true
	var created createdCase
	e.req("POST", "/v1/cases", e.reviewerKey, body).expect(http.StatusCreated, "").decode(&created)
	caseID = created.Case.CaseID
	var gate workflow.GatePayload
	storetest.Eventually(t, 15*time.Second, "initial request parked at the gate", func() bool {
		var st AgentState
		e.req("GET", "/v1/cases/"+itoa(caseID)+"/agent-state", e.reviewerKey, nil).expect(200, "").decode(&st)
		return st.IsInterrupted && jsonUnmarshal(st.Interrupt, &gate) == nil && gate.ProposalID != 0
	})
	e.decide(caseID, gate.ProposalID, "approve", map[string]any{"version": gate.Version}, "").expect(202, "")
	storetest.Eventually(t, 15*time.Second, "initial request emailed", func() bool { return len(sender.Sent()) == 1 })
	reply := rawEmail("Records <records@springfield.gov>", "requests@"+testDomain, msgID(), sender.Sent()[0].MessageID,
		"We received your request; reference 2026-0042.")
	e.postRaw(reply, testRawSecret, time.Now()).expect(202, "")
	storetest.Eventually(t, 15*time.Second, "reply analysed", func() bool {
		return e.db.String(t, `SELECT tracking_number FROM cases WHERE id = $1`, caseID) == "2026-0042"
	})
	storetest.Eventually(t, 15*time.Second, "decision applied", func() bool {
		return e.db.String(t, `SELECT status FROM decisions WHERE proposal_id = $1`, gate.ProposalID) == "applied"
	})
	return caseID, gate.ProposalID, sender
}

// The LLM calls a case's steps made are recorded once each in llm_calls
// (through the memo the graph uses) and GET /v1/costs sums them per UTC day
// at the price table's rates: snapshots priced under their base model, a
// model the table does not know counted as unpriced, other cases and
// other days apart.
func TestCostsPerCaseAndDay(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	caseID, _, _ := workedCase(t, e)
	other, _ := e.newCase()
	ctx := context.Background()

	// Yesterday, a self-hosted model the price table does not know drafted
	// for this case, and gpt-4o-mini analysed a reply of another case.
	yesterday := time.Now().UTC().AddDate(0, 0, -1)
	var runOfCase, runOfOther int64
	runOfCase = e.db.Int(t, `SELECT min(id) FROM runs WHERE case_id = $1`, caseID)
	if _, err := e.st.InTx(ctx, func(tx *store.Tx) error {
		r, _, err := tx.CreateRun(ctx, store.NewRun{CaseID: other, Trigger: workflow.TriggerAgencyReply,
			TriggerKey: "cost-fixture:" + storetest.Suffix(6), StartNode: workflow.NodeLoadContext, State: json.RawMessage("{}")})
		runOfOther = r.ID
		return err
	}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		run   int64
		usage *workflow.LLMUsage
	}{
		{runOfCase, &workflow.LLMUsage{Model: "llama3.1:8b", PromptTokens: 700, CompletionTokens: 100}},
		{runOfOther, &workflow.LLMUsage{Model: "gpt-4o-mini", PromptTokens: 1_000_000, CompletionTokens: 0}},
		{runOfOther, nil}, // an offline result memoized: not an LLM call
	} {
		purpose := "fixture-" + storetest.Suffix(4)
		if err := e.st.Remember(ctx, c.run, 900, purpose, workflow.MemoCall{Response: json.RawMessage(`{}`), Usage: c.usage}); err != nil {
			t.Fatal(err)
		}
		e.db.Exec(t, `UPDATE llm_calls SET created_at = $2 WHERE purpose = $1`, purpose, yesterday)
	}

	var rep CostReport
	e.req("GET", "/v1/costs?case_id="+itoa(caseID), e.reviewerKey, nil).expect(200, "").decode(&rep)
	today := time.Now().UTC().Format(time.DateOnly)
	if len(rep.Days) != 2 || rep.Days[0].Day != yesterday.Format(time.DateOnly) || rep.Days[1].Day != today {
		t.Fatalf("days %+v", rep.Days)
	}
	y, d := rep.Days[0], rep.Days[1]
	if y.Calls != 1 || y.UnpricedCalls != 1 || y.CostMicroCents != 0 || y.PromptTokens != 700 || len(y.Models) != 1 || y.Models[0].Priced {
		t.Fatalf("yesterday %+v", y)
	}
	// Today: one draft (gpt-4o: 2000×250 + 500×1000 = 1,000,000 µ¢) and one
	// analysis (gpt-4o-mini-2024-07-18 at gpt-4o-mini's 15/60: 1200×15 +
	// 300×60 = 36,000 µ¢).
	byModel := map[string]CostModel{}
	for _, m := range d.Models {
		byModel[m.Model] = m
	}
	if m := byModel["gpt-4o"]; m.Calls != 1 || m.PromptTokens != 2000 || m.CompletionTokens != 500 || m.CostMicroCents != 1_000_000 || !m.Priced {
		t.Fatalf("gpt-4o today %+v (models %+v)", m, d.Models)
	}
	if m := byModel["gpt-4o-mini-2024-07-18"]; m.Calls != 1 || m.CostMicroCents != 36_000 || !m.Priced {
		t.Fatalf("gpt-4o-mini snapshot today %+v (models %+v)", m, d.Models)
	}
	if d.Calls != 2 || d.CostMicroCents != 1_036_000 || d.CostCents != 1 || d.UnpricedCalls != 0 {
		t.Fatalf("today %+v", d.CostTotals)
	}
	if rep.Total.Calls != 3 || rep.Total.CostMicroCents != 1_036_000 || rep.Total.UnpricedCalls != 1 || rep.Total.PromptTokens != 3900 {
		t.Fatalf("total %+v", rep.Total)
	}

	// All cases: the other case's million prompt tokens (15 ¢) join
	// yesterday; the memoized offline result is no call.
	e.req("GET", "/v1/costs", e.reviewerKey, nil).expect(200, "").decode(&rep)
	if len(rep.Days) != 2 || rep.Days[0].Calls != 2 || rep.Days[0].CostCents != 15 || rep.Total.Calls != 4 || rep.Total.CostCents != 16 {
		t.Fatalf("all cases %+v", rep)
	}
	// since cuts by time; a bad range or an unknown case is refused.
	e.req("GET", "/v1/costs?case_id="+itoa(caseID)+"&since="+today, e.reviewerKey, nil).expect(200, "").decode(&rep)
	if len(rep.Days) != 1 || rep.Days[0].Day != today {
		t.Fatalf("since today %+v", rep.Days)
	}
	e.req("GET", "/v1/costs?since="+url.QueryEscape(time.Now().Add(time.Hour).Format(time.RFC3339)), e.reviewerKey, nil).expect(400, "invalid_query")
	e.req("GET", "/v1/costs?since=yesterday", e.reviewerKey, nil).expect(400, "invalid_query")
	e.req("GET", "/v1/costs?case_id=999999", e.reviewerKey, nil).expect(404, "case_not_found")
	e.req("GET", "/v1/costs", "", nil).expect(401, "unauthorized")
}
