package api

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/foiaflow/foiaflow/store"
)

// listOrphans: GET /v1/orphans?limit= → inbound messages that matched no
// case, oldest first.
func (s *Server) listOrphans(w http.ResponseWriter, r *http.Request) error {
	limit, err := queryInt(r, "limit", 100, 500)
	if err != nil {
		return err
	}
	if limit == 0 {
		limit = 100
	}
	ms, err := s.st.Orphans(r.Context(), int(limit))
	if err != nil {
		return fmt.Errorf("list orphans: %w", err)
	}
	if ms == nil {
		ms = []store.Message{}
	}
	return writeJSON(w, http.StatusOK, map[string]any{"orphans": ms})
}

// assignOrphanRequest is the body of POST /v1/orphans/{id}/assign.
type assignOrphanRequest struct {
	CaseID int64 `json:"case_id"`
}

// assignResult is the answer of POST /v1/orphans/{id}/assign.
type assignResult struct {
	MessageID int64 `json:"message_id"`
	CaseID    int64 `json:"case_id"`
	RunID     int64 `json:"run_id"`
}

// assignOrphan: POST /v1/orphans/{id}/assign {case_id} → 202
// (jobs.UseCases.AssignOrphan). Attaching the message and its attachments
// (match_method manual) and creating the agency_reply run commit together.
// The sender is checked against the case's agency allowlist like any reply:
// an allowed sender's message supersedes the case's pending proposals; any
// other sender's run parks for a human (issue 10). Automatic mail
// (auto-replies, bounces) and messages that failed to parse are attached
// without a run (run_id 0). 404 case_not_found, 404 orphan_not_found
// (unknown or already assigned).
func (s *Server) assignOrphan(w http.ResponseWriter, r *http.Request) error {
	msgID, err := pathID(r, "id")
	if err != nil {
		return err
	}
	var req assignOrphanRequest
	if err := decodeJSON(w, r, &req); err != nil {
		return err
	}
	if req.CaseID <= 0 {
		return invalid("case_id is required")
	}
	ctx := r.Context()
	if _, err := s.st.LoadCase(ctx, req.CaseID); errors.Is(err, store.ErrNotFound) {
		return errCaseNotFound
	} else if err != nil {
		return fmt.Errorf("assign orphan: %w", err)
	}
	runID, err := s.uc.AssignOrphan(ctx, msgID, req.CaseID, principalFrom(ctx).Name)
	if errors.Is(err, store.ErrNotFound) {
		return apiErr(http.StatusNotFound, "orphan_not_found", "message %d is not an unassigned orphan", msgID)
	}
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusAccepted, assignResult{MessageID: msgID, CaseID: req.CaseID, RunID: runID})
}
