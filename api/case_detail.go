package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"time"

	"github.com/foiaflow/foiaflow/jobs"
	"github.com/foiaflow/foiaflow/mail"
	"github.com/foiaflow/foiaflow/store"
	"github.com/foiaflow/foiaflow/workflow"
)

// caseView is a case with its reply address and due summary.
type caseView struct {
	workflow.CaseRecord
	ReplyAddress string  `json:"reply_address"` // requests+<token>@MAIL_DOMAIN
	Due          dueInfo `json:"due"`
	// AgencyAllowedSenders is the agency's sender allowlist besides its own
	// email: addresses and "@domain" entries (issue 10).
	AgencyAllowedSenders []string `json:"agency_allowed_senders"`
}

// dueInfo summarises the statutory clock of a case (DESIGN.md "Clock").
type dueInfo struct {
	DueAt          *time.Time `json:"due_at"`
	NextFollowupAt *time.Time `json:"next_followup_at"`
	FollowupCount  int        `json:"followup_count"`
	Tolled         bool       `json:"tolled"`      // the clock is stopped: we owe a fee or a clarification
	TolledDays     int        `json:"tolled_days"` // days tolled so far
	Overdue        bool       `json:"overdue"`     // due date passed while open
	// DaysRemaining is whole days until the due date (negative when
	// overdue); null without a due date.
	DaysRemaining *int `json:"days_remaining"`
}

// CaseDetail is the answer of GET /v1/cases/{id}.
type CaseDetail struct {
	Case      caseView          `json:"case"`
	Messages  []store.Message   `json:"messages"`
	Analyses  []json.RawMessage `json:"analyses"`
	Proposals []store.Proposal  `json:"proposals"` // newest first, each with all versions
}

// CaseDetail loads everything GET /v1/cases/{id} shows (the desk's case
// page too); 404 case_not_found.
func (s *Server) CaseDetail(ctx context.Context, caseID int64) (CaseDetail, error) {
	c, err := s.st.LoadCase(ctx, caseID)
	if errors.Is(err, store.ErrNotFound) {
		return CaseDetail{}, errCaseNotFound
	}
	if err != nil {
		return CaseDetail{}, fmt.Errorf("case detail: %w", err)
	}
	out := CaseDetail{Case: s.viewOf(c), Messages: []store.Message{}, Analyses: []json.RawMessage{}}
	if out.Case.AgencyAllowedSenders, err = s.st.AllowedSenders(ctx, caseID); err != nil {
		return out, fmt.Errorf("case detail: %w", err)
	}
	msgs, err := s.st.MessagesOfCase(ctx, caseID)
	if err != nil {
		return out, fmt.Errorf("case detail: %w", err)
	}
	out.Messages = append(out.Messages, msgs...)
	an, err := s.st.AnalysesOfCase(ctx, caseID)
	if err != nil {
		return out, fmt.Errorf("case detail: %w", err)
	}
	out.Analyses = append(out.Analyses, an...)
	if out.Proposals, err = s.st.ProposalsPage(ctx, store.ProposalFilter{CaseID: caseID, Limit: 500}); err != nil {
		return out, fmt.Errorf("case detail: %w", err)
	}
	versions, err := s.st.VersionsOfCase(ctx, caseID)
	if err != nil {
		return out, fmt.Errorf("case detail: %w", err)
	}
	for i := range out.Proposals {
		out.Proposals[i].Versions = versions[out.Proposals[i].ID]
	}
	return out, nil
}

// viewOf adds the reply address and the due summary.
func (s *Server) viewOf(c workflow.CaseRecord) caseView {
	d := dueInfo{DueAt: c.DueAt, NextFollowupAt: c.NextFollowupAt, FollowupCount: c.FollowupCount,
		Tolled: c.TolledSince != nil, TolledDays: c.TolledDays}
	if c.DueAt != nil {
		days := int(math.Floor(c.DueAt.Sub(s.now()).Hours() / 24))
		d.DaysRemaining = &days
		d.Overdue = s.now().After(*c.DueAt) && !workflow.CaseClosed(c.Status)
	}
	return caseView{CaseRecord: c, ReplyAddress: mail.ReplyAddress(c.ReplyToken, s.cfg.MailDomain), Due: d}
}

// getCase: GET /v1/cases/{id}.
func (s *Server) getCase(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	d, err := s.CaseDetail(r.Context(), id)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, d)
}

// patchCaseRequest is the body of PATCH /v1/cases/{id}; absent fields are
// left unchanged.
type patchCaseRequest struct {
	AutopilotMode *string `json:"autopilot_mode"` // AUTO | SUPERVISED | MANUAL
	Paused        *bool   `json:"paused"`         // a paused case is worked as MANUAL
	// AgencyAllowedSenders replaces the allowlist of the case's agency
	// (shared by all its cases): senders whose replies may steer the case
	// besides the agency's own email. Entries: "clerk@city.gov" or
	// "@city.gov" (a whole domain).
	AgencyAllowedSenders *[]string `json:"agency_allowed_senders"`
}

// patchCase: PATCH /v1/cases/{id} → 200 with the updated case detail.
func (s *Server) patchCase(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	var req patchCaseRequest
	if err := decodeJSON(w, r, &req); err != nil {
		return err
	}
	if req.AutopilotMode == nil && req.Paused == nil && req.AgencyAllowedSenders == nil {
		return apiErr(http.StatusBadRequest, "empty_patch", "set autopilot_mode, paused and/or agency_allowed_senders")
	}
	var allowed []string
	if req.AgencyAllowedSenders != nil {
		if allowed, err = normalizeAllowedSenders(*req.AgencyAllowedSenders); err != nil {
			return err
		}
		req.AgencyAllowedSenders = &allowed
	}
	if req.AutopilotMode != nil && !workflow.AutopilotMode(*req.AutopilotMode).Valid() {
		return invalid("autopilot_mode must be AUTO, SUPERVISED or MANUAL")
	}
	ctx := r.Context()
	err = s.uc.ChangeCaseSettings(ctx, id, jobs.CaseSettings(req), principalFrom(ctx).Name)
	if errors.Is(err, store.ErrNotFound) {
		return errCaseNotFound
	}
	if err != nil {
		return err
	}
	d, err := s.CaseDetail(r.Context(), id)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, d)
}
