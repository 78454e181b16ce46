package api

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/foiaflow/foiaflow/inbound"
	"github.com/foiaflow/foiaflow/jobs"
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

// assignOrphan: POST /v1/orphans/{id}/assign {case_id} → 202. Attaching the
// message and its attachments (match_method manual) and creating the
// agency_reply run commit together. The sender is checked against the
// case's agency allowlist like any reply: an allowed sender's message
// supersedes the case's pending proposals; any other sender's run parks for
// a human (issue 10). Automatic mail (auto-replies, bounces) and messages
// that failed to parse are attached without a run (run_id 0). 404
// case_not_found, 404 orphan_not_found (unknown or already assigned).
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
	var runID int64
	rows, err := s.st.InTx(ctx, func(tx *store.Tx) error {
		m, err := tx.AssignOrphan(ctx, msgID, req.CaseID)
		if err != nil {
			return err
		}
		if m.AutoKind == "" && m.ParseStatus == store.ParseStatusParsed {
			if m.SenderAllowed {
				if err := tx.SupersedePending(ctx, req.CaseID, 0); err != nil {
					return err
				}
			}
			n, err := inbound.ReplyRun(req.CaseID, msgID, m.SenderAllowed)
			if err != nil {
				return err
			}
			run, _, err := jobs.StartRun(ctx, tx, s.queues, n)
			if err != nil {
				return err
			}
			runID = run.ID
		}
		return tx.LogActivity(ctx, req.CaseID, runID, "orphan_assigned", principalFrom(ctx).Name,
			map[string]any{"message_id": msgID, "sender_allowed": m.SenderAllowed, "auto_kind": m.AutoKind})
	})
	if errors.Is(err, store.ErrNotFound) {
		return apiErr(http.StatusNotFound, "orphan_not_found", "message %d is not an unassigned orphan", msgID)
	}
	if err != nil {
		return fmt.Errorf("assign orphan %d: %w", msgID, err)
	}
	s.dispatchAfterCommit(ctx, rows)
	return writeJSON(w, http.StatusAccepted, assignResult{MessageID: msgID, CaseID: req.CaseID, RunID: runID})
}
