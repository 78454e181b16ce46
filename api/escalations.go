package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/foiaflow/foiaflow/store"
)

// maxResolution bounds an assignee name or a resolution note.
const maxResolution = 4000

// listEscalations: GET /v1/escalations?status=open|resolved&case_id=&limit=
// (default open, oldest first, limit ≤ 500).
func (s *Server) listEscalations(w http.ResponseWriter, r *http.Request) error {
	status := r.URL.Query().Get("status")
	switch status {
	case "":
		status = "open"
	case "open", "resolved":
	case "all":
		status = ""
	default:
		return apiErr(http.StatusBadRequest, "invalid_query", "status must be open, resolved or all")
	}
	caseID, err := queryInt(r, "case_id", 0, 1<<31-1)
	if err != nil {
		return err
	}
	limit, err := queryInt(r, "limit", 100, 500)
	if err != nil {
		return err
	}
	es, err := s.st.ListEscalations(r.Context(), status, caseID, int(limit))
	if err != nil {
		return fmt.Errorf("list escalations: %w", err)
	}
	if es == nil {
		es = []store.EscalationItem{}
	}
	return writeJSON(w, http.StatusOK, map[string]any{"escalations": es})
}

// EscalationChange is the body of POST /v1/escalations/{id}/assign
// ({assignee}, default the caller's key name) and .../resolve
// ({resolution}, a note; optional).
type EscalationChange struct {
	Assignee   string `json:"assignee,omitempty"`
	Resolution string `json:"resolution,omitempty"`
}

// assignEscalation: POST /v1/escalations/{id}/assign.
func (s *Server) assignEscalation(w http.ResponseWriter, r *http.Request) error {
	return s.changeEscalation(w, r, "assign")
}

// resolveEscalation: POST /v1/escalations/{id}/resolve.
func (s *Server) resolveEscalation(w http.ResponseWriter, r *http.Request) error {
	return s.changeEscalation(w, r, "resolve")
}

func (s *Server) changeEscalation(w http.ResponseWriter, r *http.Request, op string) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	var req EscalationChange
	if r.ContentLength != 0 {
		if err := decodeJSON(w, r, &req); err != nil {
			return err
		}
	}
	e, err := s.ChangeEscalation(r.Context(), principalFrom(r.Context()), id, op, req)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, e)
}

// ChangeEscalation assigns (op "assign": to req.Assignee, default p.Name)
// or resolves (op "resolve": by p.Name with req.Resolution) an open
// escalation (jobs.UseCases.AssignEscalation, ResolveEscalation: with an
// activity row in the same transaction); the one path of the JSON API and
// the desk pages. Errors are *Error: 404 escalation_not_found, 409
// escalation_resolved, 400 invalid_field.
func (s *Server) ChangeEscalation(ctx context.Context, p Principal, id int64, op string, req EscalationChange) (store.Escalation, error) {
	req.Assignee, req.Resolution = strings.TrimSpace(req.Assignee), strings.TrimSpace(req.Resolution)
	switch {
	case len(req.Assignee) > maxResolution || len(req.Resolution) > maxResolution:
		return store.Escalation{}, invalid("assignee and resolution are at most %d characters", maxResolution)
	case op == "assign" && req.Resolution != "":
		return store.Escalation{}, invalid("resolution is only taken by resolve")
	case op == "resolve" && req.Assignee != "":
		return store.Escalation{}, invalid("assignee is only taken by assign")
	}
	if req.Assignee == "" {
		req.Assignee = p.Name
	}
	var e store.Escalation
	var err error
	if op == "assign" {
		e, err = s.uc.AssignEscalation(ctx, id, req.Assignee, p.Name)
	} else {
		e, err = s.uc.ResolveEscalation(ctx, id, p.Name, req.Resolution)
	}
	switch {
	case errors.Is(err, store.ErrNotFound):
		return e, apiErr(http.StatusNotFound, "escalation_not_found", "no escalation %d", id)
	case errors.Is(err, store.ErrEscalationResolved):
		return e, apiErr(http.StatusConflict, "escalation_resolved", "escalation %d is resolved already", id)
	case err != nil:
		return e, err
	}
	return e, nil
}
