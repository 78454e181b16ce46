package api

import (
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/foiaflow/foiaflow/jobs"
	"github.com/foiaflow/foiaflow/store/storetest"
)

func decisionPath(caseID, proposalID int64, action string) string {
	return "/v1/cases/" + itoa(caseID) + "/proposals/" + itoa(proposalID) + "/" + action
}

// decide posts a decision with a fresh Idempotency-Key unless key is set.
func (e *env) decide(caseID, proposalID int64, action string, body any, key string) resp {
	e.t.Helper()
	if key == "" {
		key = storetest.Suffix(8)
	}
	return e.req("POST", decisionPath(caseID, proposalID, action), e.reviewerKey, body, "Idempotency-Key", key)
}

func TestApproveRecordsDecisionAndQueuesResume(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, _ := e.newCase()
	p := e.pendingProposal(c, 1)
	var a DecisionAccepted
	e.decide(c, p, "approve", map[string]any{"version": 1}, "key-1").expect(http.StatusAccepted, "").decode(&a)
	if a.TaskID != jobs.ResumeTaskID(a.DecisionID) {
		t.Fatalf("answer %+v", a)
	}
	d, err := e.st.GetDecision(t.Context(), a.DecisionID)
	if err != nil {
		t.Fatal(err)
	}
	if d.Action != "APPROVE" || d.Actor != testReviewer || d.TaskID != a.TaskID || d.Version != 1 || d.Status != "accepted" {
		t.Fatalf("decision %+v", d)
	}
	row, err := e.st.OutboxByTaskID(t.Context(), a.TaskID)
	if err != nil || row.TaskType != jobs.TypeAgentResume || row.DispatchedAt == nil {
		t.Fatalf("resume outbox row %+v: %v", row, err)
	}
}

func TestDecisionActionsValidateTheirFields(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, _ := e.newCase()
	p := e.pendingProposal(c, 1)
	for _, tc := range []struct {
		action string
		body   any
		status int
		code   string
	}{
		{"adjust", map[string]any{"version": 1}, 400, "instruction_required"},
		{"adjust", map[string]any{"version": 1, "instruction": "   "}, 400, "instruction_required"},
		{"edit", map[string]any{"version": 1, "subject": "new"}, 400, "body_text_required"},
		{"approve", map[string]any{"version": 1, "instruction": "shorter"}, 400, "invalid_field"},
		{"dismiss", map[string]any{"version": 1, "body_text": "x"}, 400, "invalid_field"},
		{"approve", map[string]any{}, 400, "invalid_version"},
		{"approve", map[string]any{"version": -1}, 400, "invalid_version"},
		{"approve", `{"version":1,"note":"x"}`, 400, "invalid_json"},
		{"approve", `{"version":`, 400, "invalid_json"},
		{"approve", `{"version":1,"instruction":"` + strings.Repeat("x", 1<<20) + `"}`, 413, "body_too_large"},
		{"regenerate", map[string]any{"version": 1}, 404, "unknown_action"},
		{"promote", map[string]any{"version": 1}, 400, "promote_version_required"},
		{"promote", map[string]any{"version": 1, "promote_version": 1}, 400, "invalid_field"},
		{"approve", map[string]any{"version": 1, "promote_version": 1}, 400, "invalid_field"},
		{"skip", map[string]any{"version": 1, "reason": "no"}, 400, "invalid_field"},
		{"reject", map[string]any{"version": 1, "reason": strings.Repeat("r", 4001)}, 400, "invalid_field"},
	} {
		e.decide(c, p, tc.action, tc.body, "").expect(tc.status, tc.code)
	}
	e.req("POST", decisionPath(c, p, "approve"), e.reviewerKey, map[string]any{"version": 1}).expect(400, "missing_idempotency_key")
	e.req("POST", decisionPath(c, p, "approve"), e.reviewerKey, map[string]any{"version": 1}, "Idempotency-Key", strings.Repeat("k", 201)).
		expect(400, "invalid_idempotency_key")
	if n := e.count(`SELECT count(*) FROM decisions`) + e.count(`SELECT count(*) FROM outbox`); n != 0 {
		t.Fatalf("rejected decisions stored %d rows", n)
	}
	// The valid variants are accepted.
	e.decide(c, p, "edit", map[string]any{"version": 1, "body_text": "Our own words."}, "").expect(202, "")
}

func TestDecisionAgainstTheWrongThingIsRejectedBeforeEnqueue(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, _ := e.newCase()
	other, _ := e.newCase()
	p := e.pendingProposal(c, 2)
	done := e.pendingProposal(c, 1)
	e.db.Exec(t, `UPDATE proposals SET status = 'SUPERSEDED' WHERE id = $1`, done)
	e.decide(999999, p, "approve", map[string]any{"version": 2}, "").expect(404, "case_not_found")
	e.decide(c, 999999, "approve", map[string]any{"version": 2}, "").expect(404, "proposal_not_found")
	e.decide(other, p, "approve", map[string]any{"version": 2}, "").expect(404, "proposal_not_in_case")
	stale := e.decide(c, p, "approve", map[string]any{"version": 1}, "").expect(409, "stale_version")
	if !strings.Contains(string(stale.Body), "changed since you loaded it") {
		t.Fatalf("stale answer %s", stale.Body)
	}
	e.decide(c, p, "reject", map[string]any{"version": 1}, "").expect(409, "stale_version")
	e.decide(c, p, "approve", map[string]any{"version": 3}, "").expect(409, "stale_version")
	e.decide(c, done, "approve", map[string]any{"version": 1}, "").expect(409, "proposal_not_pending")
	if n := e.count(`SELECT count(*) FROM decisions`) + e.count(`SELECT count(*) FROM outbox`); n != 0 {
		t.Fatalf("rejected decisions stored %d rows", n)
	}
}

func TestAdjustOverTheLimitIsRejected(t *testing.T) {
	t.Parallel()
	e := newEnv(t) // MaxAdjustments 2
	c, _ := e.newCase()
	p := e.pendingProposal(c, 3) // adjusted twice already
	e.decide(c, p, "adjust", map[string]any{"version": 3, "instruction": "shorter"}, "").expect(422, "adjustment_limit")
	e.decide(c, p, "approve", map[string]any{"version": 3}, "").expect(202, "")
}

func TestIdempotentReplayReturnsTheFirstAnswer(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, _ := e.newCase()
	p := e.pendingProposal(c, 1)
	body := map[string]any{"version": 1, "instruction": "cite the statute"}
	first := e.decide(c, p, "adjust", body, "same-key").expect(202, "")
	again := e.decide(c, p, "adjust", body, "same-key").expect(202, "")
	if string(first.Body) != string(again.Body) || again.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("replay %s vs %s", first.Body, again.Body)
	}
	e.decide(c, p, "adjust", map[string]any{"version": 1, "instruction": "something else"}, "same-key").
		expect(422, "idempotency_key_reused")
	e.decide(c, p, "approve", map[string]any{"version": 1}, "same-key").expect(422, "idempotency_key_reused")
	if n := e.count(`SELECT count(*) FROM decisions`); n != 1 {
		t.Fatalf("%d decisions", n)
	}
	if n := e.count(`SELECT count(*) FROM outbox`); n != 1 {
		t.Fatalf("%d outbox rows", n)
	}
	// The replay still answers after the proposal moved on.
	e.db.Exec(t, `UPDATE proposals SET status = 'APPROVED' WHERE id = $1`, p)
	e.decide(c, p, "adjust", body, "same-key").expect(202, "")
}

func TestRacingDecisionsFirstWinsSecondConflicts(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for round := range 5 {
		c, _ := e.newCase()
		p := e.pendingProposal(c, 1)
		var wg sync.WaitGroup
		statuses := make([]resp, 2)
		for i, action := range []string{"approve", "dismiss"} {
			wg.Go(func() { statuses[i] = e.decide(c, p, action, map[string]any{"version": 1}, "") })
		}
		wg.Wait()
		got := map[int]int{}
		for _, r := range statuses {
			got[r.Status]++
			if r.Status == 409 && r.code() != "decision_conflict" {
				t.Fatalf("round %d: 409 with %s", round, r.Body)
			}
		}
		if got[202] != 1 || got[409] != 1 {
			t.Fatalf("round %d: statuses %v (%s / %s)", round, got, statuses[0].Body, statuses[1].Body)
		}
		if n := e.count(`SELECT count(*) FROM decisions WHERE proposal_id = $1`, p); n != 1 {
			t.Fatalf("round %d: %d decisions", round, n)
		}
	}
}

func TestRacingReplaysOfOneKeyAnswerTheSame(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, _ := e.newCase()
	p := e.pendingProposal(c, 1)
	var wg sync.WaitGroup
	out := make([]resp, 4)
	for i := range out {
		wg.Go(func() { out[i] = e.decide(c, p, "approve", map[string]any{"version": 1}, "one-key") })
	}
	wg.Wait()
	for _, r := range out {
		if r.Status != 202 || string(r.Body) != string(out[0].Body) {
			t.Fatalf("replays differ: %d %s vs %s", r.Status, r.Body, out[0].Body)
		}
	}
}

func TestDecisionRateLimitPerCase(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *Config) { c.DecisionsPerMinute = 1 })
	c, _ := e.newCase()
	other, _ := e.newCase()
	p := e.pendingProposal(c, 1)
	e.decide(c, p, "approve", map[string]any{"version": 1}, "k1").expect(202, "")
	r := e.decide(c, p, "dismiss", map[string]any{"version": 1}, "k2").expect(429, "rate_limited")
	if r.Header.Get("Retry-After") == "" {
		t.Fatal("429 without Retry-After")
	}
	e.decide(c, p, "approve", map[string]any{"version": 1}, "k1").expect(202, "") // replays are not limited
	q := e.pendingProposal(other, 1)
	e.decide(other, q, "approve", map[string]any{"version": 1}, "").expect(202, "") // another case is not
}

// Issue 10 "Decisions that can't strand a case": an edit whose subject
// would inject a header is refused before anything is stored, and the
// proposal stays decidable at the same version.
func TestEditWithHeaderInjectionIsRefusedAndChangesNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, _ := e.newCase()
	p := e.pendingProposal(c, 1)
	for _, subj := range []string{"Fee acceptance\r\nBcc: victim@example.org", "line\nfeed", "nul\u0000", strings.Repeat("s", 501)} {
		e.decide(c, p, "edit", map[string]any{"version": 1, "subject": subj, "body_text": "We accept."}, "").
			expect(http.StatusBadRequest, "invalid_field")
	}
	if n := e.count(`SELECT count(*) FROM decisions`) + e.count(`SELECT count(*) FROM outbox`) +
		e.count(`SELECT count(*) FROM proposal_versions WHERE proposal_id = $1 AND version > 1`, p); n != 0 {
		t.Fatalf("refused edits stored %d rows", n)
	}
	e.decide(c, p, "edit", map[string]any{"version": 1, "subject": "Fee acceptance", "body_text": "We accept."}, "").
		expect(http.StatusAccepted, "")
}

// A decision the worker rejected (stale, invalid, over a limit) no longer
// holds its proposal version: the reviewer can decide it again.
func TestRejectedDecisionFreesItsVersion(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, _ := e.newCase()
	p := e.pendingProposal(c, 1)
	var first DecisionAccepted
	e.decide(c, p, "approve", map[string]any{"version": 1}, "").expect(http.StatusAccepted, "").decode(&first)
	e.decide(c, p, "dismiss", map[string]any{"version": 1}, "").expect(http.StatusConflict, "decision_conflict")
	if err := e.st.RejectDecision(t.Context(), first.DecisionID, "invalid"); err != nil {
		t.Fatal(err)
	}
	e.decide(c, p, "approve", map[string]any{"version": 1}, "").expect(http.StatusAccepted, "")
	e.decide(c, p, "dismiss", map[string]any{"version": 1}, "").expect(http.StatusConflict, "decision_conflict")
}

// REJECT, SKIP and PROMOTE are recorded with their fields and the
// reviewer's key name, like the other decisions.
func TestRejectSkipPromoteAreRecorded(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, tc := range []struct {
		action, want string
		body         map[string]any
	}{
		{"reject", "REJECT", map[string]any{"version": 2, "reason": "wrong agency"}},
		{"skip", "SKIP", map[string]any{"version": 2}},
		{"promote", "PROMOTE", map[string]any{"version": 2, "promote_version": 1}},
	} {
		c, _ := e.newCase()
		p := e.pendingProposal(c, 2)
		var a DecisionAccepted
		e.decide(c, p, tc.action, tc.body, "").expect(http.StatusAccepted, "").decode(&a)
		d, err := e.st.GetDecision(t.Context(), a.DecisionID)
		if err != nil {
			t.Fatal(err)
		}
		if d.Action != tc.want || d.Actor != testReviewer || d.Version != 2 {
			t.Fatalf("%s: decision %+v", tc.action, d)
		}
		if tc.action == "reject" && d.Reason != "wrong agency" || tc.action == "promote" && (d.PromoteVersion == nil || *d.PromoteVersion != 1) {
			t.Fatalf("%s: fields not stored: %+v", tc.action, d)
		}
	}
}
