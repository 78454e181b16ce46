package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/hibiken/asynq"
	"go.uber.org/zap"

	"github.com/foiaflow/foiaflow/mail"
	"github.com/foiaflow/foiaflow/store"
	"github.com/foiaflow/foiaflow/workflow"
)

// TypeAgentResume applies a recorded reviewer decision to a parked run.
const TypeAgentResume = "agent:resume"

// ResumePayload names the decision.
type ResumePayload struct {
	DecisionID int64 `json:"decision_id"`
}

// NewAgentResumeTask builds the agent:resume task of a decision (enqueued
// through the outbox with id ResumeTaskID).
func NewAgentResumeTask(decisionID int64) (*asynq.Task, error) {
	b, err := json.Marshal(ResumePayload{DecisionID: decisionID})
	if err != nil {
		return nil, err
	}
	return asynq.NewTask(TypeAgentResume, b), nil
}

// AgentResumeHandler applies decisions under the case lock. A decision whose
// proposal is no longer the one parked at the gate (superseded, other
// version, already decided) is rejected and the task acknowledged.
type AgentResumeHandler struct {
	Step *AgentStepHandler
	Deps *workflow.Deps
}

// ProcessTask implements asynq.Handler.
func (h *AgentResumeHandler) ProcessTask(ctx context.Context, t *asynq.Task) error {
	p, err := decodePayload(t, func(p ResumePayload) bool { return p.DecisionID > 0 })
	if err != nil {
		return err
	}
	st := h.Step.Store
	d, err := st.GetDecision(ctx, p.DecisionID)
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("agent:resume decision %d: %w", p.DecisionID, asynq.SkipRetry)
	}
	if err != nil {
		return err
	}
	if d.Status != "accepted" {
		return nil // applied or rejected already: duplicate task
	}
	if reason := invalidDecision(d); reason != "" {
		// The API validates first; this guards decisions recorded before it
		// did. A rejected decision frees its proposal version, so the
		// reviewer can decide again.
		h.Step.Log.Warn("decision rejected", zap.Int64("decision", d.ID), zap.String("reason", reason))
		return st.RejectDecision(ctx, d.ID, reason)
	}
	prop, err := st.GetProposal(ctx, d.ProposalID)
	if err != nil {
		return err
	}
	body := func(ctx context.Context, run store.LockedRun, eng *workflow.CaseEngine) (workflow.StepResult, error) {
		if reason := staleReason(run.Run, d); reason != "" {
			return workflow.StepResult{}, rejectError(reason)
		}
		return eng.Resume(ctx, run.RunState(), run.StepSeq, workflow.NodeResume, h.Deps.ResumeNode(humanDecision(d, prop)))
	}
	return h.Step.protocol(ctx, d.CaseID, prop.RunID, body, func(err error) (bool, error) {
		return h.rejected(ctx, d, err)
	})
}

// rejected answers the decision errors the resume handles itself: the
// decision is recorded as rejected (its proposal version freed) and the task
// acknowledged.
func (h *AgentResumeHandler) rejected(ctx context.Context, d store.Decision, err error) (bool, error) {
	st := h.Step.Store
	var rej rejectError
	switch {
	case errors.As(err, &rej):
		h.Step.Log.Info("decision rejected", zap.Int64("decision", d.ID), zap.String("reason", string(rej)))
		return true, st.RejectDecision(ctx, d.ID, string(rej))
	case errors.Is(err, workflow.ErrBadPromote):
		return true, st.RejectDecision(ctx, d.ID, "promote needs an earlier version of the proposal")
	case errors.Is(err, workflow.ErrAdjustLimit):
		return true, st.RejectDecision(ctx, d.ID, "adjustment limit reached")
	case errors.Is(err, workflow.ErrNotRunnable), errors.Is(err, workflow.ErrStaleCheckpoint):
		return true, st.RejectDecision(ctx, d.ID, "run no longer parked at this gate")
	}
	return false, nil
}

// humanDecision is the graph's view of a decision; a PROMOTE carries the
// text of the version it promotes.
func humanDecision(d store.Decision, prop store.Proposal) workflow.HumanDecision {
	hd := workflow.HumanDecision{DecisionID: d.ID, Action: d.Action, Version: d.Version, Instruction: d.Instruction,
		Subject: d.EditedSubject, BodyText: d.EditedText, Reason: d.Reason, Actor: d.Actor, At: d.CreatedAt}
	if d.Action != workflow.DecisionPromote || d.PromoteVersion == nil {
		return hd
	}
	hd.FromVersion = *d.PromoteVersion
	for _, v := range prop.Versions {
		if v.Version == hd.FromVersion {
			hd.Subject, hd.BodyText, hd.BodyHTML = v.Subject, v.BodyText, v.BodyHTML
		}
	}
	return hd
}

type rejectError string

func (e rejectError) Error() string { return "decision rejected: " + string(e) }

// invalidDecision says why a decision's values cannot be applied (an
// edited subject that cannot be an email header), or "".
func invalidDecision(d store.Decision) string {
	if d.Action == workflow.DecisionEdit {
		if err := mail.CheckSubject(d.EditedSubject); err != nil {
			return "edited subject: " + err.Error()
		}
	}
	return ""
}

// staleReason says why a decision no longer applies to the run, or "".
func staleReason(run store.Run, d store.Decision) string {
	if run.Status != workflow.RunParked {
		return "run is " + string(run.Status) + ", not parked"
	}
	var gate workflow.GatePayload
	if err := json.Unmarshal(run.Interrupt, &gate); err != nil {
		return "run has no gate payload"
	}
	if gate.ProposalID != d.ProposalID {
		return fmt.Sprintf("gate holds proposal %d, not %d", gate.ProposalID, d.ProposalID)
	}
	if gate.Version != d.Version {
		return fmt.Sprintf("gate shows version %d, decision names %d", gate.Version, d.Version)
	}
	return ""
}
