package api

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/foiaflow/foiaflow/jobs"
	"github.com/foiaflow/foiaflow/mail"
	"github.com/foiaflow/foiaflow/store"
	"github.com/foiaflow/foiaflow/workflow"
)

// caseDraft is the status of a case whose initial request has not gone out.
const caseDraft = "draft"

// caseStatuses are the values of cases.status (filter of GET /v1/cases).
var caseStatuses = []string{caseDraft, workflow.CaseAwaitingResponse, workflow.CaseAwaitingRequester,
	workflow.CaseNeedsReview, workflow.CaseHumanTask, workflow.CaseCompleted, workflow.CaseClosedNoRecords,
	workflow.CaseWithdrawn, workflow.CaseEscalated}

// Limits of a new case (I8).
const (
	maxTextField    = 500  // agency name, email, portal URL, subject, requester name
	maxRecordItems  = 50   // requested records per case
	maxRecordLength = 2000 // characters per requested record
)

// createCaseRequest is the body of POST /v1/cases.
type createCaseRequest struct {
	AgencyName     string `json:"agency_name"`     // required
	AgencyEmail    string `json:"agency_email"`    // required unless portal_url is set
	AgencyTimezone string `json:"agency_timezone"` // IANA zone; default America/New_York
	PortalURL      string `json:"portal_url"`      // http(s) URL; portal cases are never emailed
	Jurisdiction   string `json:"jurisdiction"`    // code of a jurisdictions row, e.g. "TX"
	Subject        string `json:"subject"`         // required
	// RequestedRecords lists the records asked for (1–50 items).
	RequestedRecords []string `json:"requested_records"`
	AutopilotMode    string   `json:"autopilot_mode"` // AUTO | SUPERVISED (default) | MANUAL
	RequesterName    string   `json:"requester_name"`
	// SentAt is when the request already went out (UTC); not allowed with
	// send_initial_request.
	SentAt *time.Time `json:"sent_at"`
	// SendInitialRequest starts an initial_request run: the request is
	// drafted and gated as a proposal before it is emailed.
	SendInitialRequest bool `json:"send_initial_request"`
	// AgencyAllowedSenders, when given, replaces the agency's sender
	// allowlist ("clerk@city.gov", "@city.gov"); see PATCH /v1/cases/{id}.
	AgencyAllowedSenders *[]string `json:"agency_allowed_senders"`
}

func invalid(format string, args ...any) *Error {
	return apiErr(http.StatusBadRequest, "invalid_field", format, args...)
}

// headerProblem is the message of a mail.CheckSubject or mail.CheckAddress
// error without the package's sentinel prefix.
func headerProblem(err error) string {
	return strings.TrimPrefix(err.Error(), mail.ErrInvalidOutbound.Error()+": ")
}

// validate checks the request and normalises it; 400 invalid_field.
func (c *createCaseRequest) validate() error {
	c.AgencyName, c.AgencyEmail = strings.TrimSpace(c.AgencyName), strings.TrimSpace(c.AgencyEmail)
	c.Subject, c.PortalURL = strings.TrimSpace(c.Subject), strings.TrimSpace(c.PortalURL)
	for name, v := range map[string]string{"agency_name": c.AgencyName, "agency_email": c.AgencyEmail,
		"portal_url": c.PortalURL, "subject": c.Subject, "requester_name": c.RequesterName, "agency_timezone": c.AgencyTimezone} {
		if len(v) > maxTextField {
			return invalid("%s is longer than %d characters", name, maxTextField)
		}
	}
	switch {
	case c.AgencyName == "":
		return invalid("agency_name is required")
	case c.Subject == "":
		return invalid("subject is required")
	case c.Jurisdiction == "":
		return invalid("jurisdiction is required")
	case c.AgencyEmail == "" && c.PortalURL == "":
		return invalid("agency_email or portal_url is required")
	case c.SendInitialRequest && c.AgencyEmail == "":
		return invalid("send_initial_request needs agency_email")
	case c.SendInitialRequest && c.SentAt != nil:
		return invalid("sent_at and send_initial_request exclude each other")
	case len(c.RequestedRecords) == 0 || len(c.RequestedRecords) > maxRecordItems:
		return invalid("requested_records must have 1–%d items", maxRecordItems)
	}
	// agency_email becomes the To header and the subject part of every
	// email's Subject: refuse now what could only fail (or inject headers)
	// when an email is rendered.
	if c.AgencyEmail != "" {
		if err := mail.CheckAddress(c.AgencyEmail); err != nil {
			return invalid("agency_email: %s", headerProblem(err))
		}
	}
	if err := mail.CheckSubject(c.Subject); err != nil {
		return invalid("%s", headerProblem(err))
	}
	if c.PortalURL != "" {
		u, err := url.Parse(c.PortalURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return invalid("portal_url must be an http(s) URL")
		}
	}
	if c.AgencyTimezone != "" {
		if _, err := time.LoadLocation(c.AgencyTimezone); err != nil {
			return invalid("agency_timezone %q is not an IANA time zone", c.AgencyTimezone)
		}
	}
	for i, rec := range c.RequestedRecords {
		c.RequestedRecords[i] = strings.TrimSpace(rec)
		if c.RequestedRecords[i] == "" || len(rec) > maxRecordLength {
			return invalid("requested_records[%d] must be 1–%d characters", i, maxRecordLength)
		}
	}
	if c.AgencyAllowedSenders != nil {
		list, err := normalizeAllowedSenders(*c.AgencyAllowedSenders)
		if err != nil {
			return err
		}
		c.AgencyAllowedSenders = &list
	}
	if c.AutopilotMode == "" {
		c.AutopilotMode = string(workflow.AutopilotSupervised)
	}
	if !workflow.AutopilotMode(c.AutopilotMode).Valid() {
		return invalid("autopilot_mode must be AUTO, SUPERVISED or MANUAL")
	}
	return nil
}

// createCase: POST /v1/cases → 201 with the case detail and, with
// send_initial_request, the id of the initial_request run (trigger key
// initial:<case>), whose first step is dispatched after commit
// (jobs.UseCases.CreateCase).
func (s *Server) createCase(w http.ResponseWriter, r *http.Request) error {
	var req createCaseRequest
	if err := decodeJSON(w, r, &req); err != nil {
		return err
	}
	if err := req.validate(); err != nil {
		return err
	}
	if req.SentAt != nil && req.SentAt.After(s.now().Add(time.Hour)) {
		return invalid("sent_at %s is in the future", req.SentAt.UTC().Format(time.RFC3339))
	}
	ctx := r.Context()
	ok, err := s.st.JurisdictionExists(ctx, req.Jurisdiction)
	if err != nil {
		return fmt.Errorf("create case: %w", err)
	}
	if !ok {
		return apiErr(http.StatusUnprocessableEntity, "unknown_jurisdiction", "jurisdiction %q does not exist", req.Jurisdiction)
	}
	nc := store.NewCase{AgencyName: req.AgencyName, AgencyEmail: req.AgencyEmail, PortalURL: req.PortalURL,
		Jurisdiction: req.Jurisdiction, Timezone: req.AgencyTimezone, Subject: req.Subject,
		RequestedRecords: req.RequestedRecords, AutopilotMode: workflow.AutopilotMode(req.AutopilotMode),
		RequesterName: req.RequesterName, ReplyTokenOf: s.cfg.MailIDs.ReplyToken, SentAt: req.SentAt}
	if req.SendInitialRequest {
		nc.Status = caseDraft
	} else if nc.SentAt == nil {
		sent := s.now().UTC()
		nc.SentAt = &sent
	}
	if nc.SentAt != nil && s.planner != nil {
		tz := nc.Timezone
		plan := s.planner.Plan(workflow.PlanInput{Jurisdiction: nc.Jurisdiction, Portal: nc.PortalURL != "",
			SentAt: *nc.SentAt, Now: s.now().UTC(), Timezone: tz})
		nc.DueAt, nc.NextFollowupAt = &plan.DueAt, &plan.NextFollowupAt
	}
	caseID, runID, err := s.uc.CreateCase(ctx, jobs.NewCase{Case: nc, AllowedSenders: req.AgencyAllowedSenders,
		Actor: principalFrom(ctx).Name, SendInitialRequest: req.SendInitialRequest})
	if err != nil {
		return err
	}
	detail, err := s.CaseDetail(r.Context(), caseID)
	if err != nil {
		return err
	}
	w.Header().Set("Location", fmt.Sprintf("/v1/cases/%d", caseID))
	return writeJSON(w, http.StatusCreated, createdCase{CaseDetail: detail, RunID: runID})
}

// createdCase is the answer of POST /v1/cases.
type createdCase struct {
	CaseDetail
	RunID *int64 `json:"run_id"` // the initial_request run, or null
}

// listCases: GET /v1/cases?status=&limit=&before= → a page of cases, newest
// first, with next_cursor for ?before=.
func (s *Server) listCases(w http.ResponseWriter, r *http.Request) error {
	status := r.URL.Query().Get("status")
	if status != "" && !slices.Contains(caseStatuses, status) {
		return apiErr(http.StatusBadRequest, "invalid_query", "status must be one of %v", caseStatuses)
	}
	limit, err := queryInt(r, "limit", 50, 200)
	if err != nil {
		return err
	}
	before, err := queryInt(r, "before", 0, 0)
	if err != nil {
		return err
	}
	if limit == 0 {
		limit = 50
	}
	cases, err := s.st.ListCases(r.Context(), store.CaseFilter{Status: status, Before: before, Limit: int(limit)})
	if err != nil {
		return err
	}
	if cases == nil {
		cases = []store.CaseSummary{}
	}
	var last int64
	if len(cases) > 0 {
		last = cases[len(cases)-1].ID
	}
	return writeJSON(w, http.StatusOK, map[string]any{"cases": cases, "next_cursor": nextCursor(len(cases), int(limit), last)})
}
