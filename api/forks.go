package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/foiaflow/foiaflow/jobs"
	"github.com/foiaflow/foiaflow/store"
)

// forkRequest is the body of POST /v1/runs/{id}/fork.
type forkRequest struct {
	// Step is the step (run_steps seq, from 0) to re-run from; required.
	Step *int `json:"step"`
	// State, optional, is a JSON object of state fields that replace the
	// checkpoint's (null removes one); see workflow.ForkState.
	State json.RawMessage `json:"state"`
}

// forkedRun is the answer of POST /v1/runs/{id}/fork.
type forkedRun struct {
	RunID      int64  `json:"run_id"`
	CaseID     int64  `json:"case_id"`
	ReplayOf   int64  `json:"replay_of"`
	ReplayStep int    `json:"replay_step"`
	TriggerKey string `json:"trigger_key"`
	NextNode   string `json:"next_node"`
	Status     string `json:"status"`
}

// forkRun: POST /v1/runs/{id}/fork (admin) {"step": N, "state": {…}} → 201:
// a replay of run id from step N (time travel, jobs.UseCases.ForkRun),
// queued through the outbox; it proposes and sends nothing without a human
// decision. 400 invalid_field (no step), 404 run_not_found, 422
// unknown_step, step_not_forkable or invalid_state.
func (s *Server) forkRun(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	var req forkRequest
	if err := decodeJSON(w, r, &req); err != nil {
		return err
	}
	if req.Step == nil {
		return invalid("step is required: the run_steps seq (from 0) to re-run from")
	}
	ctx := r.Context()
	run, err := s.uc.ForkRun(ctx, jobs.ForkRequest{RunID: id, Step: *req.Step, State: req.State, Actor: principalFrom(ctx).Name})
	if errors.Is(err, store.ErrNotFound) {
		return apiErr(http.StatusNotFound, "run_not_found", "no run %d", id)
	}
	if err != nil {
		return err
	}
	w.Header().Set("Location", fmt.Sprintf("/v1/cases/%d/agent-state", run.CaseID))
	return writeJSON(w, http.StatusCreated, forkedRun{RunID: run.ID, CaseID: run.CaseID, ReplayOf: id, ReplayStep: *req.Step,
		TriggerKey: run.TriggerKey, NextNode: run.NextNode, Status: string(run.Status)})
}
