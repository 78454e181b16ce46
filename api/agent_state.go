package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/foiaflow/foiaflow/store"
	"github.com/foiaflow/foiaflow/workflow"
)

// lastSteps is how many recent steps agent-state shows.
const lastSteps = 20

// AgentRun is the latest run of a case as agent-state shows it.
type AgentRun struct {
	ID         int64      `json:"id"`
	Trigger    string     `json:"trigger"`
	TriggerKey string     `json:"trigger_key"`
	Status     string     `json:"status"`    // queued | running | parked | completed | failed | superseded | cancelled
	NextNode   string     `json:"next_node"` // node the next step runs
	StepSeq    int        `json:"step_seq"`  // checkpoint version (I3)
	Error      string     `json:"error,omitempty"`
	CreatedAt  time.Time  `json:"created_at"`
	UpdatedAt  time.Time  `json:"updated_at"`
	FinishedAt *time.Time `json:"finished_at"`
}

// AgentState is the answer of GET /v1/cases/{id}/agent-state (seed 000
// §6.1): the latest run, whether it waits at a human gate and the gate
// payload, and its last steps.
type AgentState struct {
	CaseID        int64           `json:"case_id"`
	Run           *AgentRun       `json:"run"` // null before the first run
	IsInterrupted bool            `json:"is_interrupted"`
	Interrupt     json.RawMessage `json:"interrupt"` // workflow.GatePayload while parked, else null
	Steps         []store.RunStep `json:"steps"`     // up to 20, oldest first
	// Forks are the case's replays (runs forked from an earlier step, POST
	// /v1/runs/{id}/fork), newest first.
	Forks []store.Fork `json:"forks"`
}

// agentState: GET /v1/cases/{id}/agent-state.
func (s *Server) agentState(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	out, err := s.AgentState(r.Context(), id)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, out)
}

// AgentState loads the latest run of a case, its gate payload while parked,
// its last 20 steps and the case's forks; 404 case_not_found.
func (s *Server) AgentState(ctx context.Context, id int64) (AgentState, error) {
	if _, err := s.st.LoadCase(ctx, id); errors.Is(err, store.ErrNotFound) {
		return AgentState{}, errCaseNotFound
	} else if err != nil {
		return AgentState{}, fmt.Errorf("agent state: %w", err)
	}
	runs, err := s.st.RunsOfCase(ctx, id)
	if err != nil {
		return AgentState{}, fmt.Errorf("agent state: %w", err)
	}
	out := AgentState{CaseID: id, Interrupt: json.RawMessage("null"), Steps: []store.RunStep{}, Forks: []store.Fork{}}
	forks, err := s.st.ForksOfCase(ctx, id)
	if err != nil {
		return AgentState{}, fmt.Errorf("agent state: %w", err)
	}
	out.Forks = append(out.Forks, forks...)
	if len(runs) > 0 {
		run := runs[0]
		out.Run = &AgentRun{ID: run.ID, Trigger: run.Trigger, TriggerKey: run.TriggerKey, Status: string(run.Status),
			NextNode: run.NextNode, StepSeq: run.StepSeq, Error: run.Error, CreatedAt: run.CreatedAt,
			UpdatedAt: run.UpdatedAt, FinishedAt: run.FinishedAt}
		out.IsInterrupted = run.Status == workflow.RunParked
		if out.IsInterrupted && len(run.Interrupt) > 0 {
			out.Interrupt = run.Interrupt
		}
		steps, err := s.st.RunSteps(ctx, run.ID)
		if err != nil {
			return out, fmt.Errorf("agent state: %w", err)
		}
		if len(steps) > lastSteps {
			steps = steps[len(steps)-lastSteps:]
		}
		out.Steps = append(out.Steps, steps...)
	}
	return out, nil
}
