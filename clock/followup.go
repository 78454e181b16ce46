package clock

import "time"

// FollowupPolicy is the follow-up cadence of DESIGN.md "Clock": the first
// follow-up at the due date, then one every StateEveryDays (state and
// local), FederalEveryDays (federal, abbrev US) or PortalEveryDays (portal
// cases) calendar days; once MaxFollowups have been sent the next step is an
// escalation instead of another follow-up.
type FollowupPolicy struct {
	StateEveryDays   int
	FederalEveryDays int
	PortalEveryDays  int
	MaxFollowups     int
}

// NewFollowupPolicy returns the 15/30/90-day cadence with maxFollowups
// (MAX_FOLLOWUPS; the configuration holds its one default).
func NewFollowupPolicy(maxFollowups int) FollowupPolicy {
	return FollowupPolicy{StateEveryDays: 15, FederalEveryDays: 30, PortalEveryDays: 90, MaxFollowups: maxFollowups}
}

// EveryDays returns the cadence in calendar days for a case under rule.
func (p FollowupPolicy) EveryDays(rule Rule, portal bool) int {
	switch {
	case portal:
		return p.PortalEveryDays
	case rule.Federal():
		return p.FederalEveryDays
	default:
		return p.StateEveryDays
	}
}

// FollowupState is what NextFollowup needs to know about a case. Instants
// are UTC; zero means unknown/none.
type FollowupState struct {
	Rule   Rule
	Portal bool
	// Due is the statutory deadline from Calendar.DueDate; zero when the
	// clock is stopped (open tolling interval).
	Due time.Time
	// WaitingOnRequester is true while a fee or clarification is pending on
	// our side: no follow-up is due then.
	WaitingOnRequester bool
	// FollowupsSent counts follow-ups already sent, taken from stored sent
	// emails (never incremented on upsert; DESIGN.md "Seed traps").
	FollowupsSent int
	// LastFollowupAt is when the last follow-up was sent.
	LastFollowupAt time.Time
	// EstimatedCompletion is an instant on the agency's estimated completion
	// day, zero when the agency gave none.
	EstimatedCompletion time.Time
}

// Outcome is what the schedule says to do next.
type Outcome string

// Outcomes of NextFollowup.
const (
	OutcomeNone     Outcome = "none"     // nothing scheduled (clock stopped)
	OutcomeFollowup Outcome = "followup" // send follow-up number Number at At
	OutcomeEscalate Outcome = "escalate" // max follow-ups reached: escalate at At
)

// Followup is the next scheduled step: At is a UTC instant (zero for
// OutcomeNone); Number is the 1-based number of the follow-up to send
// (OutcomeFollowup only).
type Followup struct {
	Outcome Outcome
	At      time.Time
	Number  int
}

// NextFollowup returns the next follow-up (or escalation) of a case. Pure:
// the caller compares At with its own clock.
//
//   - No follow-up while WaitingOnRequester, nor before any follow-up when
//     Due is zero (OutcomeNone).
//   - The first is at Due (23:59:59 of the due day: the agency has the
//     whole day).
//   - Later ones are at 00:00 (agency zone) of the day EveryDays after the
//     last follow-up's day (after Due when LastFollowupAt is unknown).
//   - An EstimatedCompletion day on or after that moment pushes it to 00:00
//     of the day after the estimated day.
//   - When FollowupsSent >= MaxFollowups the step at that moment is
//     OutcomeEscalate instead of a follow-up.
func (c Calendar) NextFollowup(p FollowupPolicy, s FollowupState) Followup {
	loc := c.Loc()
	if s.WaitingOnRequester {
		return Followup{Outcome: OutcomeNone}
	}
	var at time.Time
	switch {
	case s.FollowupsSent <= 0:
		if s.Due.IsZero() {
			return Followup{Outcome: OutcomeNone}
		}
		at = s.Due.UTC()
	default:
		anchor := s.LastFollowupAt
		if anchor.IsZero() {
			anchor = s.Due
		}
		if anchor.IsZero() {
			return Followup{Outcome: OutcomeNone}
		}
		at = DateOf(anchor, loc).AddDays(p.EveryDays(s.Rule, s.Portal)).Start(loc)
	}
	if !s.EstimatedCompletion.IsZero() {
		after := DateOf(s.EstimatedCompletion, loc).AddDays(1).Start(loc)
		if at.Before(after) {
			at = after
		}
	}
	if s.FollowupsSent >= p.MaxFollowups {
		return Followup{Outcome: OutcomeEscalate, At: at}
	}
	return Followup{Outcome: OutcomeFollowup, At: at, Number: s.FollowupsSent + 1}
}
