package api

import (
	"strings"
	"testing"
)

func TestReviewQueue(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c1, _ := e.newCase()
	c2, _ := e.newCase()
	p1 := e.pendingProposal(c1, 1)
	p2 := e.pendingProposal(c2, 1)
	e.db.Exec(t, `UPDATE proposals SET status = 'EXECUTED' WHERE id = $1`, p1)
	var page struct {
		Proposals []map[string]any `json:"proposals"`
	}
	e.req("GET", "/v1/proposals?status=PENDING_APPROVAL", e.reviewerKey, nil).expect(200, "").decode(&page)
	if len(page.Proposals) != 1 || int64(page.Proposals[0]["id"].(float64)) != p2 {
		t.Fatalf("queue %+v", page)
	}
	e.req("GET", "/v1/proposals?case_id="+itoa(c1), e.reviewerKey, nil).expect(200, "").decode(&page)
	if len(page.Proposals) != 1 || int64(page.Proposals[0]["id"].(float64)) != p1 {
		t.Fatalf("by case %+v", page)
	}
	e.req("GET", "/v1/proposals?status=pending", e.reviewerKey, nil).expect(400, "invalid_query")
	e.req("GET", "/v1/proposals?case_id=x", e.reviewerKey, nil).expect(400, "invalid_query")
}

func TestGetProposalWithVersionsAndDiffs(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, _ := e.newCase()
	p := e.pendingProposal(c, 3)
	var b proposalBody
	e.req("GET", "/v1/proposals/"+itoa(p), e.reviewerKey, nil).expect(200, "").decode(&b)
	if len(b.Proposal.Versions) != 3 || b.Proposal.CurrentVersion != 3 || len(b.Diffs) != 2 {
		t.Fatalf("proposal %+v diffs %+v", b.Proposal, b.Diffs)
	}
	d := b.Diffs[1]
	if d.From != 2 || d.To != 3 || d.Source != "ai_regenerated" ||
		!strings.Contains(d.Unified, "--- v2") || !strings.Contains(d.Unified, "-Draft 2.") || !strings.Contains(d.Unified, "+Draft 3.") {
		t.Fatalf("diff %+v", d)
	}
	e.req("GET", "/v1/proposals/424242", e.reviewerKey, nil).expect(404, "proposal_not_found")
	e.req("GET", "/v1/proposals/0", e.reviewerKey, nil).expect(400, "invalid_id")
}
