package api

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/foiaflow/foiaflow/jobs"
	"github.com/foiaflow/foiaflow/store"
)

type auditPage struct {
	Entries    []AuditEntry `json:"entries"`
	NextCursor *string      `json:"next_cursor"`
}

// GET /v1/audit lists who decided what on which proposal version, which
// emails went out (with their outbox task) and which escalation notices
// the webhook took, newest first; pages follow next_cursor without gaps or
// repeats; only admins may read it.
func TestAuditLogOfDecisionsAndSends(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	caseID, approved, sender := workedCase(t, e)
	// A second proposal the reviewer dismisses, and an escalation whose
	// notice the webhook accepted.
	other, _ := e.newCase()
	p := e.pendingProposal(other, 2)
	e.decide(other, p, "dismiss", map[string]any{"version": 2}, "").expect(202, "")
	ctx := context.Background()
	if _, err := e.st.InTx(ctx, func(tx *store.Tx) error {
		return tx.OpenEscalation(ctx, "audit-esc", other, 0, "agency threatened legal action")
	}); err != nil {
		t.Fatal(err)
	}
	escID := e.count(`SELECT id FROM escalations WHERE escalation_key = 'audit-esc'`)
	if err := e.st.MarkEscalationNotified(ctx, escID); err != nil {
		t.Fatal(err)
	}

	var page auditPage
	e.req("GET", "/v1/audit", testAdminKey, nil).expect(200, "").decode(&page)
	if len(page.Entries) != 4 || page.NextCursor != nil {
		t.Fatalf("audit %+v", page)
	}
	byKind := map[string][]AuditEntry{}
	for i, en := range page.Entries {
		if i > 0 && en.At.After(page.Entries[i-1].At) {
			t.Fatalf("not newest first: %+v", page.Entries)
		}
		byKind[en.Kind] = append(byKind[en.Kind], en)
	}
	var approve, dismiss *AuditEntry
	for i, d := range byKind[store.AuditDecision] {
		switch d.Action {
		case "APPROVE":
			approve = &byKind[store.AuditDecision][i]
		case "DISMISS":
			dismiss = &byKind[store.AuditDecision][i]
		}
	}
	if approve == nil || approve.Actor != testReviewer || approve.CaseID != caseID || *approve.ProposalID != approved ||
		approve.Version == nil || *approve.Version != 1 || approve.Status != "applied" {
		t.Fatalf("approve entry %+v", approve)
	}
	if dismiss == nil || dismiss.Actor != testReviewer || *dismiss.ProposalID != p || *dismiss.Version != 2 {
		t.Fatalf("dismiss entry %+v", dismiss)
	}
	sent := byKind[store.AuditEmailSent]
	if len(sent) != 1 {
		t.Fatalf("email entries %+v", sent)
	}
	var d struct {
		ExecutionKey string   `json:"execution_key"`
		MessageID    string   `json:"message_id"`
		To           []string `json:"to"`
	}
	if err := json.Unmarshal(sent[0].Detail, &d); err != nil {
		t.Fatal(err)
	}
	if sent[0].Actor != testReviewer || *sent[0].ProposalID != approved || d.MessageID != sender.Sent()[0].MessageID ||
		d.To[0] != "records@springfield.gov" || sent[0].TaskID != jobs.EmailTaskID(d.ExecutionKey) || sent[0].Status != "SENT" {
		t.Fatalf("email entry %+v (%+v)", sent[0], d)
	}
	if n := byKind[store.AuditEscalationNotice]; len(n) != 1 || n[0].ID != escID || n[0].CaseID != other {
		t.Fatalf("notice entries %+v", n)
	}

	// Pages of one: the same four, in the same order, then no cursor.
	var paged []AuditEntry
	path := "/v1/audit?limit=1"
	for i := 0; i < 10; i++ {
		var pg auditPage
		e.req("GET", path, testAdminKey, nil).expect(200, "").decode(&pg)
		paged = append(paged, pg.Entries...)
		if pg.NextCursor == nil {
			break
		}
		path = "/v1/audit?limit=1&before=" + *pg.NextCursor
	}
	if len(paged) != 4 { // the fourth page is full, so a fifth, empty one ends the walk
		t.Fatalf("paged %d entries", len(paged))
	}
	for i := range page.Entries {
		if paged[i].Kind != page.Entries[i].Kind || paged[i].ID != page.Entries[i].ID {
			t.Fatalf("page %d is %s %d, want %s %d", i, paged[i].Kind, paged[i].ID, page.Entries[i].Kind, page.Entries[i].ID)
		}
	}

	tomorrow := time.Now().UTC().AddDate(0, 0, 1).Format(time.DateOnly)
	e.req("GET", "/v1/audit?since="+tomorrow, testAdminKey, nil).expect(200, "").decode(&page)
	if len(page.Entries) != 0 {
		t.Fatalf("since tomorrow %+v", page.Entries)
	}
	e.req("GET", "/v1/audit", e.reviewerKey, nil).expect(http.StatusForbidden, "forbidden")
	e.req("GET", "/v1/audit?before=bm9wZQ", testAdminKey, nil).expect(400, "invalid_cursor")
	e.req("GET", "/v1/audit?limit=0", testAdminKey, nil).expect(400, "invalid_query")
}
