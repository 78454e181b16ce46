package workflow

import (
	"context"
	"fmt"
	"time"
)

// ProposalKey is the deterministic proposal key {case}:{trigger}:{action}:{version}
// (I4; seed 000 §3.7). The trailing version is the key format's version: an
// ADJUST round adds a proposal_versions row to the same proposal instead of
// minting a new key.
func ProposalKey(caseID int64, triggerKey string, action ActionType) string {
	return fmt.Sprintf("%d:%s:%s:1", caseID, triggerKey, action)
}

func (d *Deps) decideNextAction(ctx context.Context, env Env, s CaseState) (CaseOutcome, error) {
	c, err := d.Cases.LoadCase(ctx, s.CaseID)
	if err != nil {
		return CaseOutcome{}, fmt.Errorf("load case %d: %w", s.CaseID, err)
	}
	if s.Trigger == TriggerInitialRequest {
		s.Decision = &RouteDecision{Action: ActionSendInitial, PauseReason: PauseSupervised,
			Reasons: []string{"initial request: reviewed before it is sent"}}
		return next(s, NodeDraftResponse)
	}
	if s.Analysis == nil {
		return CaseOutcome{}, fmt.Errorf("decide: run %d has no analysis", env.RunID)
	}
	a := s.Analysis
	in := RouteInput{Class: a.Class, Confidence: a.Confidence, Sentiment: a.Sentiment, Mode: s.AutopilotMode,
		FeeCents: a.FeeCents, FeeCurrency: a.FeeCurrency, Jurisdiction: c.Jurisdiction, Disagreement: a.Disagreement,
		DenialWeak: a.DenialWeak, HasRecords: a.HasRecordsLink || s.HasAttachments,
		Portal: c.PortalURL != "", FollowupsSent: c.FollowupCount, InjectionFlags: a.InjectionFlags,
		Withheld: withholds(a), SenderUnverified: s.SenderUnverified,
		Appeal: c.Appeal.Kind, Appealed: c.AppealedAt != nil,
		AppealWindowClosed: c.AppealDeadline != nil && env.Now.After(*c.AppealDeadline)}
	dec := Decide(in, d.Policy)
	s.Decision = &dec
	if dec.Action == ActionNone {
		return next(s, NodeCommitState)
	}
	return next(s, NodeDraftResponse)
}

func (d *Deps) draftResponse(ctx context.Context, env Env, s CaseState) (CaseOutcome, error) {
	c, err := d.Cases.LoadCase(ctx, s.CaseID)
	if err != nil {
		return CaseOutcome{}, fmt.Errorf("load case %d: %w", s.CaseID, err)
	}
	req := DraftRequest{Action: s.Decision.Action, Case: c.CaseContext, Analysis: s.Analysis,
		FollowupNumber: c.FollowupCount + 1, DueAt: c.DueAt, Now: env.Now}
	switch {
	case c.AppealedAt != nil:
		req.DaysElapsed = int(env.Now.Sub(*c.AppealedAt).Hours() / 24)
	case c.SentAt != nil:
		req.DaysElapsed = int(env.Now.Sub(*c.SentAt).Hours() / 24)
	}
	if s.Human != nil && s.Human.Action == DecisionAdjust {
		req.Instruction = s.Human.Instruction
		if s.Draft != nil {
			req.PreviousText = s.Draft.Text
		}
	}
	var dr Draft
	err = judge(ctx, env, d.MemoDrafts, "draft", req, &dr, func(ctx context.Context) (any, *LLMUsage, error) {
		dr, err := d.Drafter.Draft(ctx, req)
		return dr, dr.Usage, err
	})
	if err != nil {
		return CaseOutcome{}, fmt.Errorf("draft %s: %w", req.Action, err)
	}
	if s.Decision.HumanTask {
		dr.HumanTask = true
	}
	s.Draft = &dr
	return next(s, NodeSafetyCheck)
}

func (d *Deps) safetyCheck(ctx context.Context, env Env, s CaseState) (CaseOutcome, error) {
	c, err := d.Cases.LoadCase(ctx, s.CaseID)
	if err != nil {
		return CaseOutcome{}, fmt.Errorf("load case %d: %w", s.CaseID, err)
	}
	r := SafetyCheck(s.Decision.Action, *s.Draft, c.CaseContext, s.Analysis)
	s.Safety = &r
	return next(s, NodeGateOrExecute)
}

func (d *Deps) gateOrExecute(ctx context.Context, env Env, s CaseState) (CaseOutcome, error) {
	dec := *s.Decision
	auto := dec.Auto && !s.Safety.Blocking() && s.Human == nil
	proposeOnly := s.ProposeOnly()
	if proposeOnly {
		// A replay never executes on its own, whatever the autopilot mode.
		auto, dec.PauseReason = false, PauseReplay
		dec.Reasons = append(append([]string(nil), dec.Reasons...),
			fmt.Sprintf("replay of run %d: a human decides before anything is executed", s.ReplayOf))
	}
	limited, err := d.autoSendLimited(ctx, s.CaseID, auto, dec.Action)
	if err != nil {
		return CaseOutcome{}, err
	}
	if limited != "" {
		auto, dec.PauseReason = false, PauseAutoSendLimit
		dec.Reasons = append(append([]string(nil), dec.Reasons...), limited)
	}
	version, source, feedback, author := 1, SourceAIGenerated, "", "agent"
	if s.ProposalID != 0 {
		version, source = s.ProposalVersion+1, SourceAIRegenerated
		if s.Human != nil {
			feedback, author = s.Human.Instruction, s.Human.Actor
		}
	}
	promotedFrom := 0
	if s.Human != nil && s.Human.Action == DecisionPromote {
		source, promotedFrom = SourcePromoted, s.Human.FromVersion
	}
	status := ProposalPending
	if auto {
		status = ProposalApproved
	}
	var fee *int64
	var currency string
	var class Class
	if s.Analysis != nil {
		fee, currency, class = s.Analysis.FeeCents, s.Analysis.FeeCurrency, s.Analysis.Class
	}
	up := ProposalUpsert{CaseID: s.CaseID, RunID: env.RunID, Key: ProposalKey(s.CaseID, s.TriggerKey, dec.Action),
		Action: dec.Action, TriggerMessageID: s.TriggerMessageID, Status: status, Reasoning: dec.Reasons,
		Confidence: confidence(s.Analysis), RiskFlags: s.Safety.RiskFlags, Warnings: s.Safety.Warnings,
		PauseReason: dec.PauseReason, CanAutoExecute: auto, HumanTask: dec.HumanTask, FeeCents: fee, FeeCurrency: currency,
		Version: version, VersionSource: source, Feedback: feedback, PromotedFrom: promotedFrom, Author: author,
		Subject: s.Draft.Subject, BodyText: s.Draft.Text, BodyHTML: s.Draft.HTML, AdjustmentCount: s.AdjustCount}
	return CaseOutcome{State: s, Commit: func(ctx context.Context, tx CaseTx, o *CaseOutcome) error {
		rec, err := tx.UpsertProposal(ctx, up)
		if err != nil {
			return err
		}
		o.State.ProposalID, o.State.ProposalKey, o.State.ProposalVersion = rec.ID, rec.Key, rec.CurrentVersion
		if auto {
			o.Route = Next(NodeExecuteAction)
			return tx.LogActivity(ctx, s.CaseID, env.RunID, "proposal_auto_approved", "agent", map[string]any{"proposal_id": rec.ID, "action": dec.Action})
		}
		// A replay's proposal waits on the review queue; the live case's
		// status and clock are left as they are.
		if !proposeOnly {
			if err := tx.SetCaseStatus(ctx, s.CaseID, CaseNeedsReview); err != nil {
				return err
			}
		}
		if limited != "" {
			key := fmt.Sprintf("auto-send-limit:%d:%s", s.CaseID, env.Now.UTC().Format("2006-01-02"))
			if err := tx.OpenEscalation(ctx, key, s.CaseID, env.RunID, fmt.Sprintf("%s; proposal %d waits for a reviewer", limited, rec.ID)); err != nil {
				return err
			}
		}
		if !proposeOnly && (dec.PauseReason == PauseFeeQuote || dec.PauseReason == PauseClarification) {
			if err := tx.StartTolling(ctx, s.CaseID, env.Now); err != nil {
				return err
			}
		}
		o.Route = Park(GatePayload{Type: "HUMAN_APPROVAL", CaseID: s.CaseID, ProposalID: rec.ID, ProposalKey: rec.Key,
			Version: rec.CurrentVersion, Action: dec.Action, PauseReason: dec.PauseReason,
			Options: DecisionActions,
			Summary: GateSummary{Subject: s.Draft.Subject, Reasoning: dec.Reasons, RiskFlags: s.Safety.RiskFlags,
				Warnings: s.Safety.Warnings, Class: class, FeeCents: fee, FeeCurrency: currency}})
		return tx.LogActivity(ctx, s.CaseID, env.RunID, "proposal_gated", "agent", map[string]any{"proposal_id": rec.ID, "version": rec.CurrentVersion, "reason": dec.PauseReason})
	}}, nil
}

// autoSendLimited returns why an automatic email of action may not go out
// (the case sent AutoSendsPerDay automatic emails in the last 24 hours), or
// "" when it may.
func (d *Deps) autoSendLimited(ctx context.Context, caseID int64, auto bool, action ActionType) (string, error) {
	if !auto || !action.SendsEmail() || d.AutoSendsPerDay <= 0 {
		return "", nil
	}
	n, err := d.Cases.RecentAutoSends(ctx, caseID, 24*time.Hour)
	if err != nil {
		return "", fmt.Errorf("count automatic sends of case %d: %w", caseID, err)
	}
	if n < d.AutoSendsPerDay {
		return "", nil
	}
	return fmt.Sprintf("automatic send limit: %d automatic emails in the last 24 hours (AUTO_SENDS_PER_CASE_PER_DAY=%d)", n, d.AutoSendsPerDay), nil
}
