package workflow

import "context"

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

func next(s CaseState, node string) (CaseOutcome, error) {
	return CaseOutcome{State: s, Route: Next(node)}, nil
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
