package api

import (
	"context"
	"net/http"
	"testing"

	"github.com/foiaflow/foiaflow/store"
)

// A reviewer lists open escalations, takes one (assignee defaults to the
// key's name), resolves it with a note; a second resolve conflicts and the
// resolved one leaves the open list. Both changes are in the activity log.
func TestEscalationsAssignAndResolve(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, _ := e.newCase()
	ctx := context.Background()
	if _, err := e.st.InTx(ctx, func(tx *store.Tx) error {
		return tx.OpenEscalation(ctx, "esc-api-test", c, 0, "agency threatened legal action")
	}); err != nil {
		t.Fatal(err)
	}
	var list struct{ Escalations []store.EscalationItem }
	e.req("GET", "/v1/escalations", e.reviewerKey, nil).expect(http.StatusOK, "").decode(&list)
	if len(list.Escalations) != 1 || list.Escalations[0].Reason != "agency threatened legal action" || list.Escalations[0].CaseID != c ||
		list.Escalations[0].AgencyName != "Springfield Police Department" || list.Escalations[0].Subject != "Use of force reports 2025" {
		t.Fatalf("open escalations %+v", list.Escalations)
	}
	id := list.Escalations[0].ID
	var got store.Escalation
	e.req("POST", "/v1/escalations/"+itoa(id)+"/assign", e.reviewerKey, nil).expect(http.StatusOK, "").decode(&got)
	if got.Assignee != testReviewer || got.AssignedAt == nil || got.Status != "open" {
		t.Fatalf("assigned %+v", got)
	}
	e.req("POST", "/v1/escalations/"+itoa(id)+"/assign", e.reviewerKey, map[string]any{"assignee": "legal desk"}).
		expect(http.StatusOK, "").decode(&got)
	if got.Assignee != "legal desk" {
		t.Fatalf("reassigned %+v", got)
	}
	e.req("POST", "/v1/escalations/"+itoa(id)+"/resolve", e.reviewerKey, map[string]any{"resolution": "called the records officer"}).
		expect(http.StatusOK, "").decode(&got)
	if got.Status != "resolved" || got.ResolvedBy != testReviewer || got.Resolution != "called the records officer" || got.ResolvedAt == nil {
		t.Fatalf("resolved %+v", got)
	}
	e.req("POST", "/v1/escalations/"+itoa(id)+"/resolve", e.reviewerKey, nil).expect(http.StatusConflict, "escalation_resolved")
	e.req("POST", "/v1/escalations/"+itoa(id)+"/assign", e.reviewerKey, nil).expect(http.StatusConflict, "escalation_resolved")
	e.req("POST", "/v1/escalations/999999/resolve", e.reviewerKey, nil).expect(http.StatusNotFound, "escalation_not_found")
	e.req("POST", "/v1/escalations/"+itoa(id)+"/assign", e.reviewerKey, map[string]any{"resolution": "x"}).expect(400, "invalid_field")
	e.req("GET", "/v1/escalations?status=bogus", e.reviewerKey, nil).expect(400, "invalid_query")
	e.req("GET", "/v1/escalations", e.reviewerKey, nil).expect(http.StatusOK, "").decode(&list)
	if len(list.Escalations) != 0 {
		t.Fatalf("resolved escalation still open: %+v", list.Escalations)
	}
	e.req("GET", "/v1/escalations?status=resolved&case_id="+itoa(c), e.reviewerKey, nil).expect(http.StatusOK, "").decode(&list)
	if len(list.Escalations) != 1 {
		t.Fatalf("resolved list %+v", list.Escalations)
	}
	if n := e.count(`SELECT count(*) FROM activity_log WHERE case_id = $1 AND kind IN ('escalation_assigned','escalation_resolved')`, c); n != 3 {
		t.Fatalf("activity rows = %d, want 3", n)
	}
	e.req("GET", "/v1/escalations", "", nil).expect(401, "unauthorized")
}
