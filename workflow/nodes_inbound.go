package workflow

import (
	"context"
	"fmt"
	"strings"
)

func (d *Deps) loadContext(ctx context.Context, env Env, s CaseState) (CaseOutcome, error) {
	c, err := d.Cases.LoadCase(ctx, s.CaseID)
	if err != nil {
		return CaseOutcome{}, fmt.Errorf("load case %d: %w", s.CaseID, err)
	}
	if CaseClosed(c.Status) {
		s.Logs = append(s.Logs, "case is "+c.Status+": run cancelled")
		return CaseOutcome{State: s, Route: End(RunCancelled)}, nil
	}
	s.AutopilotMode = c.AutopilotMode
	if c.Paused {
		s.AutopilotMode = AutopilotManual
		s.Logs = append(s.Logs, "case paused: treated as MANUAL")
	}
	s.Constraints, s.ScopeItems = c.Constraints, c.ScopeItems
	if s.Trigger != TriggerAgencyReply || s.SenderUnverified || s.ReplayOf != 0 {
		// An unverified sender's reply supersedes nothing: a forged message
		// must not knock a genuine proposal off the review queue. Nor does a
		// replay: the case's live proposals are not its to replace.
		return next(s, NodeClassifyInbound)
	}
	// A reply that arrived while an older run was mid-flight: the older run's
	// gate is stale now.
	return CaseOutcome{State: s, Route: Next(NodeClassifyInbound), Commit: func(ctx context.Context, tx CaseTx, o *CaseOutcome) error {
		return tx.SupersedePending(ctx, s.CaseID, env.RunID)
	}}, nil
}

func (d *Deps) classifyInbound(ctx context.Context, env Env, s CaseState) (CaseOutcome, error) {
	switch {
	case s.Trigger == TriggerFollowup:
		s.Analysis = &Analysis{Class: ClassNoResponse, Confidence: 1, Sentiment: SentimentNeutral, Analyzer: "timer",
			Reasons: []string{"follow-up timer: no reply by the due date"}}
		return next(s, NodeUpdateConstraints)
	case s.TriggerMessageID == nil:
		return next(s, NodeDecideNextAction)
	}
	reply, err := d.Cases.LoadMessage(ctx, *s.TriggerMessageID)
	if err != nil {
		return CaseOutcome{}, fmt.Errorf("load message %d: %w", *s.TriggerMessageID, err)
	}
	c, err := d.Cases.LoadCase(ctx, s.CaseID)
	if err != nil {
		return CaseOutcome{}, fmt.Errorf("load case %d: %w", s.CaseID, err)
	}
	var a Analysis
	err = judge(ctx, env, d.MemoAnalysis, "classify", map[string]any{"message_id": reply.MessageID}, &a,
		func(ctx context.Context) (any, *LLMUsage, error) {
			a, err := d.Analyzer.Analyze(ctx, reply, c.CaseContext)
			return a, a.Usage, err
		})
	if err != nil {
		return CaseOutcome{}, fmt.Errorf("analyze message %d: %w", *s.TriggerMessageID, err)
	}
	s.Analysis, s.HasAttachments = &a, len(reply.Attachments) > 0
	s.SenderUnverified = s.SenderUnverified || reply.SenderUnverified
	s.ReplyLinks = recordLinks(reply.Text, a)
	msgID := *s.TriggerMessageID
	return CaseOutcome{State: s, Route: Next(NodeUpdateConstraints),
		Commit: func(ctx context.Context, tx CaseTx, o *CaseOutcome) error {
			return tx.SaveAnalysis(ctx, s.CaseID, msgID, env.RunID, a)
		}}, nil
}

func (d *Deps) updateConstraints(ctx context.Context, env Env, s CaseState) (CaseOutcome, error) {
	a := s.Analysis
	if a == nil || a.Class == ClassNoResponse {
		return next(s, NodeDecideNextAction)
	}
	if s.SenderUnverified {
		s.Logs = append(s.Logs, "sender not on the agency's allowlist: facts not applied to the case")
		return next(s, NodeDecideNextAction)
	}
	records := (a.Class == ClassRecordsReady || a.Class == ClassPartial) && s.TriggerMessageID != nil
	s.Constraints = mergeConstraints(s.Constraints, a.ConstraintsToAdd)
	s.ScopeItems = mergeScope(s.ScopeItems, a.ScopeUpdates)
	if s.ProposeOnly() {
		s.Logs = append(s.Logs, fmt.Sprintf("replay of run %d: facts kept in the run, not applied to the case", s.ReplayOf))
		return next(s, NodeDecideNextAction)
	}
	f := CaseFacts{Constraints: s.Constraints, ScopeItems: s.ScopeItems, TrackingNumber: a.TrackingNumber,
		FeeCents: a.FeeCents, FeeCurrency: a.FeeCurrency, EstimatedCompletion: a.Deadline}
	if a.Class == ClassPortalRedirect {
		f.PortalURL = a.PortalURL
	}
	links := s.ReplyLinks
	if !a.HasRecordsLink {
		links = nil
	}
	if adverse(a) {
		if err := d.openAppealWindow(ctx, env, s, &f); err != nil {
			return CaseOutcome{}, err
		}
	}
	return CaseOutcome{State: s, Route: Next(NodeDecideNextAction),
		Commit: func(ctx context.Context, tx CaseTx, o *CaseOutcome) error {
			if err := tx.UpdateCaseFacts(ctx, s.CaseID, f); err != nil || !records {
				return err
			}
			return tx.RecordDelivery(ctx, RecordDelivery{CaseID: s.CaseID, MessageID: *s.TriggerMessageID,
				RunID: env.RunID, Class: a.Class, Links: links, At: env.Now})
		}}, nil
}

// openAppealWindow records the adverse determination of the triggering
// reply (its received time) and, where the statute sets a filing period,
// the appeal deadline computed from it. A denial after the case's appeal is
// the appeal's outcome and opens nothing.
func (d *Deps) openAppealWindow(ctx context.Context, env Env, s CaseState, f *CaseFacts) error {
	c, err := d.Cases.LoadCase(ctx, s.CaseID)
	if err != nil {
		return fmt.Errorf("load case %d: %w", s.CaseID, err)
	}
	if c.AppealedAt != nil {
		return nil
	}
	denied := env.Now
	if s.TriggerMessageID != nil {
		reply, err := d.Cases.LoadMessage(ctx, *s.TriggerMessageID)
		if err != nil {
			return fmt.Errorf("load message %d: %w", *s.TriggerMessageID, err)
		}
		if !reply.ReceivedAt.IsZero() && reply.ReceivedAt.Before(denied) {
			denied = reply.ReceivedAt.UTC()
		}
	}
	f.DeniedAt = &denied
	if c.Appeal.Available() && c.Appeal.FileDays > 0 && d.Planner != nil {
		if dl := d.Planner.AppealDeadline(c.Jurisdiction, c.Appeal, denied, c.AgencyTimezone); !dl.IsZero() {
			f.AppealDeadline = &dl
		}
	}
	return nil
}

// adverse reports whether a reply is an adverse determination that can be
// appealed: a denial, or a partial delivery that withholds records.
func adverse(a *Analysis) bool {
	return a.Class == ClassDenial || a.Class == ClassPartial && withholds(a)
}

// withholds reports whether a reply invokes exemptions or withholds scope
// items.
func withholds(a *Analysis) bool { return len(a.Exemptions) > 0 || withheld(a.ScopeUpdates) }

func withheld(us []ScopeUpdate) bool {
	for _, u := range us {
		if u.Status == ScopeDenied || u.Status == ScopeExempt {
			return true
		}
	}
	return false
}

func mergeConstraints(have, add []Constraint) []Constraint {
	out := append([]Constraint(nil), have...)
	for _, c := range add {
		if !c.Valid() {
			continue
		}
		dup := false
		for _, h := range out {
			dup = dup || h == c
		}
		if !dup {
			out = append(out, c)
		}
	}
	return out
}

func mergeScope(have []ScopeItem, updates []ScopeUpdate) []ScopeItem {
	out := append([]ScopeItem(nil), have...)
	for _, u := range updates {
		found := false
		for i := range out {
			if strings.EqualFold(out[i].Item, u.Item) {
				out[i].Status, out[i].Reason, found = u.Status, u.Reason, true
			}
		}
		if !found && u.Item != "" {
			out = append(out, u)
		}
	}
	return out
}
