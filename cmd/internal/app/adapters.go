package app

import (
	"time"

	"github.com/foiaflow/foiaflow/clock"
	"github.com/foiaflow/foiaflow/mail"
	"github.com/foiaflow/foiaflow/workflow"
)

// clockPlanner adapts the clock package to workflow.Planner.
type clockPlanner struct {
	rules  *clock.Rules
	policy clock.FollowupPolicy
}

// Plan computes the due date (jurisdiction days, business days skipping
// federal holidays, tolled days) and the next follow-up. Tolled days are
// stored as a count, so they are applied as one tolling interval starting
// the day after the request was sent.
//
// Once the appeal went out (AppealedAt set) the clock is the appeal's: its
// decision period from the day it was filed (the reasonable-time default
// when the statute sets none), with no tolling, in the jurisdiction's
// business or calendar days; the follow-up cadence stays the
// jurisdiction's.
func (p clockPlanner) Plan(in workflow.PlanInput) workflow.Plan {
	cal := clock.Calendar{Location: location(in.Timezone)}
	rule, _ := p.rules.Lookup(in.Jurisdiction)
	var tolled []clock.Interval
	if in.TolledDays > 0 {
		start := clock.DateOf(in.SentAt, cal.Loc()).AddDays(1)
		tolled = []clock.Interval{{Start: start.Start(cal.Loc()), End: start.AddDays(in.TolledDays).Start(cal.Loc())}}
	}
	sent := in.SentAt
	if in.AppealedAt != nil {
		sent, tolled = *in.AppealedAt, nil
		reasonable, _ := p.rules.Lookup("")
		rule.Days, rule.BusinessDays = reasonable.Days, false
		if in.Appeal.DecideDays > 0 {
			rule.Days, rule.BusinessDays = in.Appeal.DecideDays, in.Appeal.DecideBusinessDays
		}
	}
	due := cal.DueDate(sent, rule, tolled)
	st := clock.FollowupState{Rule: rule, Portal: in.Portal, Due: due, FollowupsSent: in.FollowupCount}
	if in.FollowupCount > 0 {
		st.LastFollowupAt = in.Now
	}
	if in.EstimatedCompletion != nil {
		st.EstimatedCompletion = *in.EstimatedCompletion
	}
	f := cal.NextFollowup(p.policy, st)
	plan := workflow.Plan{DueAt: due, NextFollowupAt: f.At, Escalate: f.Outcome == clock.OutcomeEscalate}
	if f.Outcome == clock.OutcomeEscalate {
		// The follow-up sweep starts the run whose routing escalates.
		plan.NextFollowupAt = in.Now
	}
	return plan
}

// AppealDeadline counts terms.FileDays from the day after the denial in the
// agency's zone (business days on the jurisdiction's calendar when
// FileBusinessDays, else calendar days) and returns the end of the last
// day; zero when the statute sets no period.
func (p clockPlanner) AppealDeadline(jurisdiction string, terms workflow.AppealTerms, deniedAt time.Time, timezone string) time.Time {
	if terms.FileDays <= 0 {
		return time.Time{}
	}
	rule, _ := p.rules.Lookup(jurisdiction)
	rule.Days, rule.BusinessDays = terms.FileDays, terms.FileBusinessDays
	return clock.Calendar{Location: location(timezone)}.DueDate(deniedAt, rule, nil)
}

func location(name string) *time.Location {
	if name == "" {
		return clock.DefaultLocation()
	}
	l, err := time.LoadLocation(name)
	if err != nil {
		return clock.DefaultLocation()
	}
	return l
}

// mailer adapts the mail package to workflow.Mailer.
type mailer struct {
	from, domain  string
	ids           mail.IDs
	businessHours bool
	start, end    int
	jitter        time.Duration
}

func (m mailer) From() string                { return m.from }
func (m mailer) ReplyTo(token string) string { return mail.ReplyAddress(token, m.domain) }
func (m mailer) MessageID(key string) string { return m.ids.MessageID(key) }
func (m mailer) SendAfter(now time.Time, key, tz string) time.Time {
	if !m.businessHours {
		return now.Add(mail.Jitter(key, m.jitter)).UTC()
	}
	return mail.SendTime(now, key, mail.SendPolicy{Location: location(tz), StartHour: m.start, EndHour: m.end, MaxJitter: m.jitter})
}
