package workflow

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/foiaflow/foiaflow/workflow/engine"
)

// Node names of the FOIA case graph (seed 000 §4.1).
const (
	NodeLoadContext       = "load_context"
	NodeClassifyInbound   = "classify_inbound"
	NodeUpdateConstraints = "update_constraints"
	NodeDecideNextAction  = "decide_next_action"
	NodeDraftResponse     = "draft_response"
	NodeSafetyCheck       = "safety_check"
	NodeGateOrExecute     = "gate_or_execute"
	NodeExecuteAction     = "execute_action"
	NodeCommitState       = "commit_state"
	NodeResume            = "resume"
)

// CaseGraph is the FOIA graph's type: state CaseState, transaction CaseTx.
type CaseGraph = engine.Graph[CaseState, CaseTx]

// CaseEngine runs the FOIA graph.
type CaseEngine = engine.Engine[CaseState, CaseTx]

// CaseOutcome is a FOIA node's outcome.
type CaseOutcome = engine.Outcome[CaseState, CaseTx]

// CaseNode is a FOIA node.
type CaseNode = engine.NodeFunc[CaseState, CaseTx]

// Deps are the FOIA nodes' dependencies.
type Deps struct {
	Cases    CaseReader
	Analyzer Analyzer
	Drafter  Drafter
	Planner  Planner
	Mailer   Mailer
	Policy   RoutingPolicy
	// MaxAdjustments bounds ADJUST rounds per proposal (seed trap: loopCount
	// that never counts).
	MaxAdjustments int
	// MaxSteps bounds the steps of one run.
	MaxSteps int
	// AutoSendsPerDay caps the emails a case sends without a human in any
	// 24 hours (AUTO_SENDS_PER_CASE_PER_DAY); at the cap an automatic send is
	// gated for a reviewer and an escalation opened instead. 0: no cap.
	AutoSendsPerDay int
	// MemoAnalysis and MemoDrafts store analyzer and drafter results in
	// llm_calls per (run, step, purpose) so a retried step never pays twice
	// (I5). Set them for LLM-backed judgement; the offline analyzer and
	// templates are deterministic and cheap, and skip the two round-trips.
	MemoAnalysis, MemoDrafts bool
}

// judge runs fn through the step's memo when memoize is set, else directly.
func judge(ctx context.Context, env Env, memoize bool, purpose string, req, out any, fn func(context.Context) (any, *LLMUsage, error)) error {
	if memoize {
		return env.Memo.Do(ctx, purpose, req, out, fn)
	}
	var none *Memo
	return none.Do(ctx, purpose, req, out, fn)
}

// ErrAdjustLimit is returned when a proposal has been adjusted
// MaxAdjustments times already.
var ErrAdjustLimit = errors.New("workflow: adjustment limit reached")

// ErrBadPromote is returned when a PROMOTE names a version that is not an
// earlier version of the proposal.
var ErrBadPromote = errors.New("workflow: promote needs an earlier version")

// NewCaseGraph builds the FOIA case graph on the engine.
func NewCaseGraph(d *Deps) *CaseGraph {
	max := d.MaxSteps
	if max <= 0 {
		max = 64
	}
	return engine.NewGraph[CaseState, CaseTx](NodeLoadContext, max).
		Add(NodeLoadContext, d.loadContext).
		Add(NodeClassifyInbound, d.classifyInbound).
		Add(NodeUpdateConstraints, d.updateConstraints).
		Add(NodeDecideNextAction, d.decideNextAction).
		Add(NodeDraftResponse, d.draftResponse).
		Add(NodeSafetyCheck, d.safetyCheck).
		Add(NodeGateOrExecute, d.gateOrExecute).
		Add(NodeExecuteAction, d.executeAction).
		Add(NodeCommitState, d.commitState)
}

// ProposalKey is the deterministic proposal key {case}:{trigger}:{action}:{version}
// (I4; seed 000 §3.7). The trailing version is the key format's version: an
// ADJUST round adds a proposal_versions row to the same proposal instead of
// minting a new key.
func ProposalKey(caseID int64, triggerKey string, action ActionType) string {
	return fmt.Sprintf("%d:%s:%s:1", caseID, triggerKey, action)
}

// ExecutionKey derives the execution key from the proposal key and the
// version that executes (I4: never a clock or a random value).
func ExecutionKey(proposalKey string, version int) string {
	return fmt.Sprintf("exec:%s:v%d", proposalKey, version)
}

func next(s CaseState, node string) (CaseOutcome, error) {
	return CaseOutcome{State: s, Route: Next(node)}, nil
}

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
		FeeCents: a.FeeCents, EstimatedCompletion: a.Deadline}
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
	var class Class
	if s.Analysis != nil {
		fee, class = s.Analysis.FeeCents, s.Analysis.Class
	}
	up := ProposalUpsert{CaseID: s.CaseID, RunID: env.RunID, Key: ProposalKey(s.CaseID, s.TriggerKey, dec.Action),
		Action: dec.Action, TriggerMessageID: s.TriggerMessageID, Status: status, Reasoning: dec.Reasons,
		Confidence: confidence(s.Analysis), RiskFlags: s.Safety.RiskFlags, Warnings: s.Safety.Warnings,
		PauseReason: dec.PauseReason, CanAutoExecute: auto, HumanTask: dec.HumanTask, FeeCents: fee,
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
				Warnings: s.Safety.Warnings, Class: class, FeeCents: fee}})
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

func actor(s CaseState) string {
	if s.Human != nil {
		return s.Human.Actor
	}
	return "agent"
}

func confidence(a *Analysis) float64 {
	if a == nil {
		return 1
	}
	return a.Confidence
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
