package api

import (
	"testing"
)

func TestOrphansListAndAssign(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, _ := e.newCase()
	pending := e.pendingProposal(c, 1)
	_, res := e.deliver(rawEmail("foia@unknown-agency.example", "intake@"+testDomain, msgID(), "", "Our reference 2026-17."))
	var list struct {
		Orphans []struct {
			ID int64 `json:"id"`
		} `json:"orphans"`
	}
	e.req("GET", "/v1/orphans", e.reviewerKey, nil).expect(200, "").decode(&list)
	if len(list.Orphans) != 1 || list.Orphans[0].ID != res.MessageID {
		t.Fatalf("orphans %+v", list)
	}
	path := "/v1/orphans/" + itoa(res.MessageID) + "/assign"
	e.req("POST", path, e.reviewerKey, map[string]any{"case_id": 999999}).expect(404, "case_not_found")
	e.req("POST", path, e.reviewerKey, map[string]any{}).expect(400, "invalid_field")
	e.req("POST", path, e.reviewerKey, `{"case_id":1,"x":2}`).expect(400, "invalid_json")
	if n := e.count(`SELECT count(*) FROM runs WHERE trigger = 'agency_reply' AND trigger_message_id IS NOT NULL`); n != 0 {
		t.Fatalf("rejected assignment started %d runs", n)
	}
	var a assignResult
	e.req("POST", path, e.reviewerKey, map[string]any{"case_id": c}).expect(202, "").decode(&a)
	if a.CaseID != c || a.MessageID != res.MessageID || a.RunID == 0 {
		t.Fatalf("assigned %+v", a)
	}
	if m := e.db.String(t, `SELECT match_method FROM messages WHERE id = $1`, res.MessageID); m != "manual" {
		t.Fatalf("match method %q", m)
	}
	if n := e.count(`SELECT count(*) FROM outbox WHERE task_id = $1`, "step:"+itoa(a.RunID)+":0"); n != 1 {
		t.Fatal("no first step outbox row")
	}
	// The sender is not the agency's: the run parks for a human and
	// supersedes nothing (issue 10).
	if s := e.db.String(t, `SELECT status FROM proposals WHERE id = $1`, pending); s != "PENDING_APPROVAL" {
		t.Fatalf("pending proposal %s", s)
	}
	if !e.runState(a.RunID).SenderUnverified {
		t.Fatal("assigned stranger's run may act on its own")
	}
	e.req("POST", path, e.reviewerKey, map[string]any{"case_id": c}).expect(404, "orphan_not_found")
	e.req("GET", "/v1/orphans", e.reviewerKey, nil).expect(200, "").decode(&list)
	if len(list.Orphans) != 0 {
		t.Fatalf("still orphaned: %+v", list)
	}
	e.req("GET", "/v1/orphans?limit=x", e.reviewerKey, nil).expect(400, "invalid_query")
}
