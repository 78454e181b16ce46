package workflow

import (
	"context"
	"errors"
	"fmt"
)

// ErrAdjustLimit is returned when a proposal has been adjusted
// MaxAdjustments times already.
var ErrAdjustLimit = errors.New("workflow: adjustment limit reached")

// ErrBadPromote is returned when a PROMOTE names a version that is not an
// earlier version of the proposal.
var ErrBadPromote = errors.New("workflow: promote needs an earlier version")

// ResumeNode returns the step that applies a reviewer's decision to a parked
// run (seed 000 §6.1, seed 004): APPROVE executes the version shown, EDIT
// stores the reviewer's text as a new human_edited version and executes it,
// ADJUST redrafts with the instruction and gates again (at most
// MaxAdjustments times, else ErrAdjustLimit), DISMISS sends nothing and
// re-plans the case's clock in commit_state (a dismissed follow-up is
// proposed again a cadence later), PROMOTE gates an earlier version again
// as a new version (ErrBadPromote when it is not earlier), REJECT sends
// nothing and escalates the case with the reviewer's reason, SKIP sends
// nothing and continues the schedule (a skipped follow-up counts as sent),
// WITHDRAW withdraws the case. The decision is marked applied in the same
// transaction as the checkpoint.
func (d *Deps) ResumeNode(h HumanDecision) CaseNode {
	return func(ctx context.Context, env Env, s CaseState) (CaseOutcome, error) {
		if s.ProposalID == 0 {
			return CaseOutcome{}, fmt.Errorf("resume run %d: no proposal at the gate", env.RunID)
		}
		if h.Action == DecisionAdjust && s.AdjustCount >= d.MaxAdjustments {
			return CaseOutcome{}, ErrAdjustLimit
		}
		s.Human = &h
		pid := s.ProposalID
		mark := func(ctx context.Context, tx CaseTx) error {
			if err := tx.MarkDecisionApplied(ctx, h.DecisionID); err != nil {
				return err
			}
			return tx.LogActivity(ctx, s.CaseID, env.RunID, "decision_applied", h.Actor,
				map[string]any{"decision_id": h.DecisionID, "action": h.Action, "proposal_id": pid, "version": h.Version})
		}
		switch h.Action {
		case DecisionApprove:
			return CaseOutcome{State: s, Route: Next(NodeExecuteAction), Commit: func(ctx context.Context, tx CaseTx, o *CaseOutcome) error {
				if err := tx.SetProposalStatus(ctx, pid, ProposalApproved, h.Actor); err != nil {
					return err
				}
				return mark(ctx, tx)
			}}, nil
		case DecisionEdit:
			dr := Draft{Subject: h.Subject, Text: h.BodyText, HTML: "", Drafter: "human"}
			if dr.Subject == "" && s.Draft != nil {
				dr.Subject = s.Draft.Subject
			}
			dr.HTML = TextToHTML(dr.Text)
			s.Draft = &dr
			s.ProposalVersion++
			up := ProposalUpsert{Key: s.ProposalKey, CaseID: s.CaseID, RunID: env.RunID, Status: ProposalApproved,
				Version: s.ProposalVersion, VersionSource: SourceHumanEdited, Author: h.Actor,
				Subject: dr.Subject, BodyText: dr.Text, BodyHTML: dr.HTML, AdjustmentCount: s.AdjustCount}
			return CaseOutcome{State: s, Route: Next(NodeExecuteAction), Commit: func(ctx context.Context, tx CaseTx, o *CaseOutcome) error {
				if _, err := tx.UpsertProposal(ctx, up); err != nil {
					return err
				}
				if err := tx.SetProposalStatus(ctx, pid, ProposalApproved, h.Actor); err != nil {
					return err
				}
				return mark(ctx, tx)
			}}, nil
		case DecisionAdjust:
			s.AdjustCount++
			return CaseOutcome{State: s, Route: Next(NodeDraftResponse), Commit: func(ctx context.Context, tx CaseTx, o *CaseOutcome) error {
				return mark(ctx, tx)
			}}, nil
		case DecisionDismiss:
			// Nothing is sent; commit_state puts the case back to awaiting a
			// response and, for a dismissed follow-up, moves the next one a
			// cadence ahead so the case is not left stuck on a past date.
			s.Dismissed, s.CaseStatus = true, CaseAwaitingResponse
			return CaseOutcome{State: s, Route: Next(NodeCommitState), Commit: func(ctx context.Context, tx CaseTx, o *CaseOutcome) error {
				if err := tx.SetProposalStatus(ctx, pid, ProposalDismissed, h.Actor); err != nil {
					return err
				}
				return mark(ctx, tx)
			}}, nil
		case DecisionPromote:
			// The earlier version's text is drafted again as a new version:
			// safety_check looks at it afresh and the gate parks it for an
			// APPROVE (seed 004 "promote").
			if h.FromVersion <= 0 || h.FromVersion >= s.ProposalVersion {
				return CaseOutcome{}, fmt.Errorf("resume run %d: promote version %d of %d: %w", env.RunID, h.FromVersion, s.ProposalVersion, ErrBadPromote)
			}
			s.Draft = &Draft{Subject: h.Subject, Text: h.BodyText, HTML: h.BodyHTML, Drafter: "promoted"}
			return CaseOutcome{State: s, Route: Next(NodeSafetyCheck), Commit: func(ctx context.Context, tx CaseTx, o *CaseOutcome) error {
				return mark(ctx, tx)
			}}, nil
		case DecisionReject:
			// The proposed action is wrong: nothing is sent and a person
			// takes the case (an escalation with the reviewer's reason).
			s.CaseStatus = CaseEscalated
			reason := fmt.Sprintf("proposal %d rejected by %s", pid, h.Actor)
			if h.Reason != "" {
				reason += ": " + h.Reason
			}
			return CaseOutcome{State: s, Route: Next(NodeCommitState), Commit: func(ctx context.Context, tx CaseTx, o *CaseOutcome) error {
				if err := tx.SetProposalStatus(ctx, pid, ProposalRejected, h.Actor); err != nil {
					return err
				}
				if err := tx.OpenEscalation(ctx, fmt.Sprintf("reject:%d", h.DecisionID), s.CaseID, env.RunID, reason); err != nil {
					return err
				}
				return mark(ctx, tx)
			}}, nil
		case DecisionSkip:
			// Nothing is sent this time; commit_state continues the case's
			// schedule (a skipped follow-up counts as that follow-up).
			s.Skipped, s.CaseStatus = true, CaseAwaitingResponse
			return CaseOutcome{State: s, Route: Next(NodeCommitState), Commit: func(ctx context.Context, tx CaseTx, o *CaseOutcome) error {
				if err := tx.SetProposalStatus(ctx, pid, ProposalSkipped, h.Actor); err != nil {
					return err
				}
				return mark(ctx, tx)
			}}, nil
		case DecisionWithdraw:
			s.CaseStatus = CaseWithdrawn
			return CaseOutcome{State: s, Route: End(RunCompleted), Commit: func(ctx context.Context, tx CaseTx, o *CaseOutcome) error {
				if err := tx.SetProposalStatus(ctx, pid, ProposalWithdrawn, h.Actor); err != nil {
					return err
				}
				if err := tx.SetCaseStatus(ctx, s.CaseID, CaseWithdrawn); err != nil {
					return err
				}
				return mark(ctx, tx)
			}}, nil
		}
		return CaseOutcome{}, fmt.Errorf("resume: unknown decision action %q", h.Action)
	}
}
