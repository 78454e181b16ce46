package workflow

import (
	"context"
	"fmt"
)

// ExecutionKey derives the execution key from the proposal key and the
// version that executes (I4: never a clock or a random value).
func ExecutionKey(proposalKey string, version int) string {
	return fmt.Sprintf("exec:%s:v%d", proposalKey, version)
}

func (d *Deps) executeAction(ctx context.Context, env Env, s CaseState) (CaseOutcome, error) {
	if s.ProposeOnly() {
		// A replay reaches execute_action without a human only when it was
		// forked there: it proposes instead (or fails, with nothing to
		// propose). Nothing is claimed, nothing is sent.
		if s.Decision != nil && s.Draft != nil && s.Safety != nil {
			s.Logs = append(s.Logs, "replay: nothing executes without a human decision; proposing instead")
			return next(s, NodeGateOrExecute)
		}
		s.Logs = append(s.Logs, "replay: nothing executes without a human decision, and there is nothing to propose")
		return CaseOutcome{State: s, Route: End(RunFailed)}, nil
	}
	p, err := d.Cases.LoadProposal(ctx, s.ProposalID)
	if err != nil {
		return CaseOutcome{}, fmt.Errorf("load proposal %d: %w", s.ProposalID, err)
	}
	if p.Status == ProposalExecuted {
		s.Executed, s.ExecutionKey = true, p.ExecutionKey
		s.Logs = append(s.Logs, "proposal already executed: nothing sent")
		return next(s, NodeCommitState)
	}
	c, err := d.Cases.LoadCase(ctx, s.CaseID)
	if err != nil {
		return CaseOutcome{}, fmt.Errorf("load case %d: %w", s.CaseID, err)
	}
	key := ExecutionKey(p.Key, p.CurrentVersion)
	s.ExecutionKey, s.Executed = key, true
	s.CaseStatus = statusAfter(p.Action, c)
	var email *EmailSend
	if p.Action.SendsEmail() && c.PortalURL == "" && !p.HumanTask {
		e := EmailSend{ExecutionKey: key, ProposalID: p.ID, CaseID: s.CaseID, MessageID: d.Mailer.MessageID(key),
			From: d.Mailer.From(), To: []string{c.AgencyEmail}, ReplyTo: d.Mailer.ReplyTo(c.ReplyToken),
			Subject: p.Subject, Text: p.BodyText, HTML: p.BodyHTML, InReplyTo: c.LastInboundMessageID,
			References: c.References, SendAfter: d.Mailer.SendAfter(env.Now, key, c.AgencyTimezone), Automatic: s.Human == nil}
		email = &e
	}
	return CaseOutcome{State: s, Route: Next(NodeCommitState), Commit: func(ctx context.Context, tx CaseTx, o *CaseOutcome) error {
		claimed, err := tx.ClaimExecution(ctx, p.ID, key)
		if err != nil || !claimed {
			return err
		}
		switch {
		case email != nil:
			if err := tx.QueueEmail(ctx, *email); err != nil {
				return err
			}
		case p.Action.SendsEmail() && c.PortalURL != "":
			// Portal cases are never emailed: the action becomes a human task.
			if err := tx.LogActivity(ctx, s.CaseID, env.RunID, "portal_human_task", "agent",
				map[string]any{"proposal_id": p.ID, "action": p.Action, "portal_url": c.PortalURL}); err != nil {
				return err
			}
		case p.Action.SendsEmail():
			// A human task (an appeal to an outside body, a follow-up with
			// it): the reviewer who approved it sends the letter.
			if err := tx.LogActivity(ctx, s.CaseID, env.RunID, "human_task", actor(s),
				map[string]any{"proposal_id": p.ID, "action": p.Action}); err != nil {
				return err
			}
		case p.Action == ActionEscalate:
			if err := tx.OpenEscalation(ctx, "esc:"+key, s.CaseID, env.RunID, fmt.Sprint(s.Decision.Reasons)); err != nil {
				return err
			}
		}
		return tx.LogActivity(ctx, s.CaseID, env.RunID, "proposal_executed", actor(s), map[string]any{"proposal_id": p.ID, "execution_key": key})
	}}, nil
}

func (d *Deps) commitState(ctx context.Context, env Env, s CaseState) (CaseOutcome, error) {
	if s.ReplayOf != 0 && !s.Executed {
		// A replay that executed nothing leaves the live case's status and
		// clock alone.
		s.Logs = append(s.Logs, fmt.Sprintf("replay of run %d executed nothing: case schedule unchanged", s.ReplayOf))
		return CaseOutcome{State: s, Route: End(RunCompleted)}, nil
	}
	c, err := d.Cases.LoadCase(ctx, s.CaseID)
	if err != nil {
		return CaseOutcome{}, fmt.Errorf("load case %d: %w", s.CaseID, err)
	}
	status := s.CaseStatus
	if status == "" {
		status = CaseAwaitingResponse
	}
	if s.Executed && status == CaseAwaitingResponse && s.ExecutionKey != "" {
		// The email may already have failed for good (its send runs as soon
		// as execute_action commits): the case is a human's then.
		failed, err := d.Cases.EmailFailed(ctx, s.ExecutionKey)
		if err != nil {
			return CaseOutcome{}, fmt.Errorf("email status of %s: %w", s.ExecutionKey, err)
		}
		if failed {
			status = CaseEscalated
			s.Logs = append(s.Logs, "email "+s.ExecutionKey+" failed for good: case escalated")
		}
	}
	sched := CaseSchedule{Status: status, SentAt: c.SentAt, FollowupCount: c.FollowupCount,
		TolledSince: c.TolledSince, TolledDays: c.TolledDays, Closed: CaseClosed(status)}
	action := ActionNone
	if s.Decision != nil {
		action = s.Decision.Action
	}
	now := env.Now
	if s.Executed {
		switch action {
		case ActionSendInitial:
			sched.SentAt = &now
		case ActionSendFollowup:
			sched.FollowupCount = c.FollowupCount + 1
			sched.LastFollowupAt = &now
		case ActionSendAppeal:
			// The appeal runs on its own clock: its decision date and its
			// own follow-ups (docs/graph.md "Denials and appeals").
			sched.AppealedAt, sched.FollowupCount = &now, 0
		}
	}
	if s.Skipped && s.Trigger == TriggerFollowup {
		// A skipped follow-up takes its place in the schedule: the next
		// one is the next in sequence (and MaxFollowups still escalates).
		sched.FollowupCount = c.FollowupCount + 1
	}
	appealedAt := c.AppealedAt
	if sched.AppealedAt != nil {
		appealedAt = sched.AppealedAt
	}
	if sched.TolledSince != nil && status != CaseNeedsReview && status != CaseAwaitingRequester {
		sched.TolledDays += int(now.Sub(*sched.TolledSince).Hours() / 24)
		sched.TolledSince = nil
	}
	if status == CaseAwaitingResponse && sched.SentAt != nil && d.Planner != nil {
		count := sched.FollowupCount
		if s.Dismissed && s.Trigger == TriggerFollowup {
			count++ // a dismissed follow-up is proposed again a cadence from now (its count is not consumed)
		}
		plan := d.Planner.Plan(PlanInput{Jurisdiction: c.Jurisdiction, Portal: c.PortalURL != "", SentAt: *sched.SentAt,
			Now: now, FollowupCount: count, EstimatedCompletion: c.EstimatedCompletion,
			TolledDays: sched.TolledDays, Timezone: c.AgencyTimezone, AppealedAt: appealedAt, Appeal: c.Appeal})
		due, nf := plan.DueAt, plan.NextFollowupAt
		sched.DueAt, sched.NextFollowupAt = &due, &nf
	}
	s.CaseStatus = status
	return CaseOutcome{State: s, Route: End(RunCompleted), Commit: func(ctx context.Context, tx CaseTx, o *CaseOutcome) error {
		return tx.SaveSchedule(ctx, s.CaseID, sched)
	}}, nil
}

// statusAfter is the case status once action executed.
func statusAfter(a ActionType, c CaseRecord) string {
	switch a {
	case ActionCloseCompleted:
		return CaseCompleted
	case ActionCloseNoRecords:
		return CaseClosedNoRecords
	case ActionRefile, ActionSubmitPortal:
		return CaseHumanTask
	case ActionEscalate:
		return CaseEscalated
	}
	if a.SendsEmail() && c.PortalURL != "" {
		return CaseHumanTask
	}
	return CaseAwaitingResponse
}
