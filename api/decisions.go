package api

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/foiaflow/foiaflow/mail"
	"github.com/foiaflow/foiaflow/store"
	"github.com/foiaflow/foiaflow/workflow"
)

// Limits of a decision body (I8).
const (
	maxIdempotencyKey = 200
	maxInstruction    = 4000
	maxEditedSubject  = 500
	maxEditedText     = 200_000
)

// DecisionRequest is the body of POST /v1/cases/{caseId}/proposals/{proposalId}/{action}.
type DecisionRequest struct {
	// Version is the proposal version the reviewer saw (I7); it must be the
	// current one.
	Version     int    `json:"version"`
	Instruction string `json:"instruction,omitempty"` // ADJUST: what to change (required)
	Subject     string `json:"subject,omitempty"`     // EDIT: new subject (optional, default unchanged)
	BodyText    string `json:"body_text,omitempty"`   // EDIT: the exact text to send (required)
	Reason      string `json:"reason,omitempty"`      // REJECT: why (optional, shown on the escalation)
	// PROMOTE: the earlier version to make current (required, below Version).
	PromoteVersion int `json:"promote_version,omitempty"`
}

// DecisionAccepted is the 202 answer; a replay under the same
// Idempotency-Key returns the same body.
type DecisionAccepted struct {
	DecisionID int64  `json:"decision_id"`
	TaskID     string `json:"task_id"` // asynq TaskID of the agent:resume task
}

// decisionActions maps the path's {action} to decisions.action.
var decisionActions = map[string]string{
	"approve": workflow.DecisionApprove, "edit": workflow.DecisionEdit, "adjust": workflow.DecisionAdjust,
	"dismiss": workflow.DecisionDismiss, "withdraw": workflow.DecisionWithdraw,
	"reject": workflow.DecisionReject, "skip": workflow.DecisionSkip, "promote": workflow.DecisionPromote,
}

// decide: POST /v1/cases/{caseId}/proposals/{proposalId}/{action} (seed
// 000 §6.1) with header Idempotency-Key: the HTTP side of Decide.
func (s *Server) decide(w http.ResponseWriter, r *http.Request) error {
	caseID, err := pathID(r, "caseId")
	if err != nil {
		return err
	}
	proposalID, err := pathID(r, "proposalId")
	if err != nil {
		return err
	}
	in := DecisionInput{CaseID: caseID, ProposalID: proposalID, Action: r.PathValue("action")}
	if _, ok := decisionActions[in.Action]; !ok {
		return errUnknownAction
	}
	if in.IdempotencyKey, err = idempotencyKey(r); err != nil {
		return err
	}
	if err := decodeJSON(w, r, &in.Request); err != nil {
		return err
	}
	ans, replayed, err := s.Decide(r.Context(), principalFrom(r.Context()), in)
	if err != nil {
		return err
	}
	if replayed {
		w.Header().Set("Idempotent-Replayed", "true")
	}
	return writeJSON(w, http.StatusAccepted, ans)
}

// DecisionInput is one reviewer decision as the JSON API and the desk
// pages hand it to Decide.
type DecisionInput struct {
	CaseID     int64
	ProposalID int64
	// Action is the decision's path name: approve | edit | adjust |
	// promote | reject | skip | dismiss | withdraw.
	Action string
	// IdempotencyKey identifies the request (1–200 visible ASCII
	// characters); repeating it returns the first answer.
	IdempotencyKey string
	Request        DecisionRequest
}

var errUnknownAction = apiErr(http.StatusNotFound, "unknown_action", "action must be approve, edit, adjust, promote, reject, skip, dismiss or withdraw")

// Decide records a reviewer's decision and queues the resume; the one
// decision path of the JSON API and the desk pages. Everything is
// validated before anything is enqueued (I7); jobs.UseCases.RecordDecision
// then commits the decision row, the agent:resume outbox row and the task
// id in one transaction and dispatches the task. p.Name is recorded as the decision's actor.
// replayed is true when the Idempotency-Key was seen before with the same
// request (the first answer is returned). Errors are *Error: 404
// unknown_action, case_not_found, proposal_not_found,
// proposal_not_in_case; 400 invalid_version, instruction_required,
// body_text_required, promote_version_required, invalid_field,
// invalid_idempotency_key; 409
// proposal_not_pending, stale_version, decision_conflict; 422
// adjustment_limit, idempotency_key_reused; 429 rate_limited.
func (s *Server) Decide(ctx context.Context, p Principal, in DecisionInput) (ans DecisionAccepted, replayed bool, err error) {
	action, ok := decisionActions[in.Action]
	if !ok {
		return ans, false, errUnknownAction
	}
	if err := checkIdempotencyKey(in.IdempotencyKey); err != nil {
		return ans, false, err
	}
	req := in.Request
	if err := req.validate(action); err != nil {
		return ans, false, err
	}
	caseID, proposalID, key := in.CaseID, in.ProposalID, in.IdempotencyKey
	hash := requestHash(action, proposalID, req)
	if prev, err := s.replay(ctx, caseID, key, hash); prev != nil || err != nil {
		return deref(prev), err == nil, err
	}
	if err := s.checkRate(ctx, caseID); err != nil {
		return ans, false, err
	}
	if err := s.checkProposal(ctx, caseID, proposalID, action, req.Version); err != nil {
		return ans, false, err
	}
	d := store.Decision{CaseID: caseID, ProposalID: proposalID, Version: req.Version, Action: action,
		Instruction: req.Instruction, EditedSubject: req.Subject, EditedText: req.BodyText, Reason: req.Reason,
		PromoteVersion: nilIfZero(req.PromoteVersion), Actor: p.Name, IdempotencyKey: key, RequestHash: hash}
	d, err = s.uc.RecordDecision(ctx, d)
	if errors.Is(err, store.ErrConflict) {
		// Lost a race: either the same request under the same key (answer
		// as the winner did) or another decision on this version (409).
		if prev, rerr := s.replay(ctx, caseID, key, hash); prev != nil || rerr != nil {
			return deref(prev), rerr == nil, rerr
		}
		return ans, false, apiErr(http.StatusConflict, "decision_conflict",
			"another decision on proposal %d version %d was recorded first", proposalID, req.Version)
	}
	if err != nil {
		return ans, false, err
	}
	return DecisionAccepted{DecisionID: d.ID, TaskID: d.TaskID}, false, nil
}

func deref(a *DecisionAccepted) DecisionAccepted {
	if a == nil {
		return DecisionAccepted{}
	}
	return *a
}

// validate checks the fields an action needs and rejects the ones it does
// not take; 400 invalid_version, instruction_required, body_text_required,
// promote_version_required, invalid_field.
func (req *DecisionRequest) validate(action string) error {
	if req.Version <= 0 {
		return apiErr(http.StatusBadRequest, "invalid_version", "version (the proposal version you reviewed) is required")
	}
	req.Instruction = strings.TrimSpace(req.Instruction)
	req.Reason = strings.TrimSpace(req.Reason)
	switch {
	case len(req.Reason) > maxInstruction:
		return invalid("reason is longer than %d characters", maxInstruction)
	case action == workflow.DecisionPromote && req.PromoteVersion <= 0:
		return apiErr(http.StatusBadRequest, "promote_version_required", "promote needs promote_version, an earlier version of the proposal")
	case action == workflow.DecisionPromote && req.PromoteVersion >= req.Version:
		return invalid("promote_version %d is not earlier than version %d", req.PromoteVersion, req.Version)
	case action != workflow.DecisionPromote && req.PromoteVersion != 0:
		return invalid("promote_version is only taken by promote")
	case action != workflow.DecisionReject && req.Reason != "":
		return invalid("reason is only taken by reject")
	case len(req.Instruction) > maxInstruction:
		return invalid("instruction is longer than %d characters", maxInstruction)
	case len(req.Subject) > maxEditedSubject:
		return invalid("subject is longer than %d characters", maxEditedSubject)
	case len(req.BodyText) > maxEditedText:
		return invalid("body_text is longer than %d characters", maxEditedText)
	case action == workflow.DecisionAdjust && req.Instruction == "":
		return apiErr(http.StatusBadRequest, "instruction_required", "adjust needs an instruction")
	case action == workflow.DecisionEdit && strings.TrimSpace(req.BodyText) == "":
		return apiErr(http.StatusBadRequest, "body_text_required", "edit needs body_text")
	case action != workflow.DecisionAdjust && req.Instruction != "":
		return invalid("instruction is only taken by adjust")
	case action != workflow.DecisionEdit && (req.Subject != "" || req.BodyText != ""):
		return invalid("subject and body_text are only taken by edit")
	}
	// The subject becomes an email header: refuse now what could only fail
	// (or inject headers) when the email is rendered.
	if err := mail.CheckSubject(req.Subject); err != nil {
		return invalid("%s", headerProblem(err))
	}
	return nil
}

// idempotencyKey reads the required Idempotency-Key header (1–200 visible
// ASCII characters).
func idempotencyKey(r *http.Request) (string, error) {
	k := strings.TrimSpace(r.Header.Get("Idempotency-Key"))
	if k == "" {
		return "", apiErr(http.StatusBadRequest, "missing_idempotency_key", "the Idempotency-Key header is required")
	}
	return k, checkIdempotencyKey(k)
}

// checkIdempotencyKey: 400 invalid_idempotency_key unless k is 1–200
// visible ASCII characters.
func checkIdempotencyKey(k string) error {
	if k == "" || len(k) > maxIdempotencyKey || strings.IndexFunc(k, func(c rune) bool { return c < 0x21 || c > 0x7e }) >= 0 {
		return apiErr(http.StatusBadRequest, "invalid_idempotency_key", "Idempotency-Key must be 1–%d visible ASCII characters", maxIdempotencyKey)
	}
	return nil
}

// requestHash identifies a decision request: action, proposal and body.
func requestHash(action string, proposalID int64, req DecisionRequest) string {
	b, _ := json.Marshal(req)
	sum := sha256.Sum256([]byte(action + "\n" + strconv.FormatInt(proposalID, 10) + "\n" + string(b)))
	return hex.EncodeToString(sum[:])
}

// replay returns the first answer when key was used on this case before
// with the same request, 422 idempotency_key_reused when with another
// request, and (nil, nil) when the key is new.
func (s *Server) replay(ctx context.Context, caseID int64, key, hash string) (*DecisionAccepted, error) {
	d, err := s.st.DecisionByIdempotencyKey(ctx, caseID, key)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("idempotency lookup: %w", err)
	}
	if d.RequestHash != hash {
		return nil, apiErr(http.StatusUnprocessableEntity, "idempotency_key_reused",
			"Idempotency-Key %q was used for a different request", key)
	}
	return &DecisionAccepted{DecisionID: d.ID, TaskID: d.TaskID}, nil
}

// checkProposal validates the decision against the stored proposal: it
// exists (404 proposal_not_found), belongs to the case (404 case_not_found
// or proposal_not_in_case), awaits approval (409 proposal_not_pending), the
// version is the current one (409 stale_version: the proposal changed since
// the reviewer loaded it) and an ADJUST stays within MAX_ADJUSTMENTS (422
// adjustment_limit).
func (s *Server) checkProposal(ctx context.Context, caseID, proposalID int64, action string, version int) error {
	p, err := s.st.GetProposal(ctx, proposalID)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("check proposal: %w", err)
	}
	if err != nil || p.CaseID != caseID {
		if _, cerr := s.st.LoadCase(ctx, caseID); errors.Is(cerr, store.ErrNotFound) {
			return errCaseNotFound
		} else if cerr != nil {
			return fmt.Errorf("check proposal: %w", cerr)
		}
		if err != nil {
			return errProposalNotFound(proposalID)
		}
		return apiErr(http.StatusNotFound, "proposal_not_in_case", "proposal %d does not belong to case %d", proposalID, caseID)
	}
	switch {
	case p.Status != workflow.ProposalPending:
		return apiErr(http.StatusConflict, "proposal_not_pending", "proposal %d is %s, not %s", proposalID, p.Status, workflow.ProposalPending)
	case version != p.CurrentVersion:
		return apiErr(http.StatusConflict, "stale_version", "proposal %d changed since you loaded it: it is at version %d, you reviewed version %d",
			proposalID, p.CurrentVersion, version)
	case action == workflow.DecisionAdjust && p.AdjustmentCount >= s.cfg.MaxAdjustments:
		return apiErr(http.StatusUnprocessableEntity, "adjustment_limit", "proposal %d was adjusted %d times (limit %d): approve, edit or dismiss it",
			proposalID, p.AdjustmentCount, s.cfg.MaxAdjustments)
	}
	return nil
}

// checkRate enforces DECISIONS_PER_CASE_PER_MINUTE over recorded decisions
// (shared by every API process); 429 rate_limited with Retry-After.
func (s *Server) checkRate(ctx context.Context, caseID int64) error {
	n, err := s.st.RecentDecisionCount(ctx, caseID, s.now().Add(-time.Minute))
	if err != nil {
		return fmt.Errorf("rate limit: %w", err)
	}
	if n >= s.cfg.DecisionsPerMinute {
		return &Error{Status: http.StatusTooManyRequests, Code: "rate_limited", RetryAfter: 60,
			Message: fmt.Sprintf("case %d had %d decisions in the last minute (limit %d)", caseID, n, s.cfg.DecisionsPerMinute)}
	}
	return nil
}

// nilIfZero is nil for 0 (an absent optional number).
func nilIfZero(n int) *int {
	if n == 0 {
		return nil
	}
	return &n
}
