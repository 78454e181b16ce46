package api

import (
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/foiaflow/foiaflow/store"
	"github.com/foiaflow/foiaflow/workflow"
)

// proposalStatuses are the values of proposals.status.
var proposalStatuses = []string{"DRAFT", workflow.ProposalPending, workflow.ProposalApproved, workflow.ProposalExecuted,
	workflow.ProposalSuperseded, workflow.ProposalDismissed, workflow.ProposalWithdrawn, workflow.ProposalRejected, workflow.ProposalSkipped}

// listProposals: GET /v1/proposals?status=PENDING_APPROVAL&case_id=&limit=&before=
// → the review queue, newest first, without versions.
func (s *Server) listProposals(w http.ResponseWriter, r *http.Request) error {
	status := r.URL.Query().Get("status")
	if status != "" && !slices.Contains(proposalStatuses, status) {
		return apiErr(http.StatusBadRequest, "invalid_query", "status must be one of %v", proposalStatuses)
	}
	limit, err := queryInt(r, "limit", 50, 200)
	if err != nil {
		return err
	}
	if limit == 0 {
		limit = 50
	}
	before, err := queryInt(r, "before", 0, 0)
	if err != nil {
		return err
	}
	caseID, err := queryInt(r, "case_id", 0, 0)
	if err != nil {
		return err
	}
	ps, err := s.st.ProposalsPage(r.Context(), store.ProposalFilter{Status: status, CaseID: caseID, Before: before, Limit: int(limit)})
	if err != nil {
		return err
	}
	var last int64
	if len(ps) > 0 {
		last = ps[len(ps)-1].ID
	}
	return writeJSON(w, http.StatusOK, map[string]any{"proposals": ps, "next_cursor": nextCursor(len(ps), int(limit), last)})
}

// proposalBody is the answer of GET /v1/proposals/{id}: the proposal with
// every version (seed 004) and a unified diff between consecutive versions.
type proposalBody struct {
	Proposal store.Proposal `json:"proposal"`
	Diffs    []versionDiff  `json:"diffs"`
}

// getProposal: GET /v1/proposals/{id}; 404 proposal_not_found.
func (s *Server) getProposal(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	p, err := s.st.GetProposal(r.Context(), id)
	if errors.Is(err, store.ErrNotFound) {
		return errProposalNotFound(id)
	}
	if err != nil {
		return fmt.Errorf("get proposal: %w", err)
	}
	if p.Versions == nil {
		p.Versions = []store.ProposalVersion{}
	}
	return writeJSON(w, http.StatusOK, proposalBody{Proposal: p, Diffs: diffVersions(p.Versions)})
}

func errProposalNotFound(id int64) *Error {
	return apiErr(http.StatusNotFound, "proposal_not_found", "no proposal %d", id)
}
