package clock_test

import (
	"testing"
	"time"

	"github.com/foiaflow/foiaflow/clock"
)

func TestNextFollowup(t *testing.T) {
	t.Parallel()
	rules := loadRules(t)
	ny := loc(t, "America/New_York")
	cal := clock.Calendar{Location: ny}
	tx, _ := rules.Lookup("TX")
	us, _ := rules.Lookup("US")
	txDue := cal.DueDate(at(t, ny, "2026-11-20 14:00"), tx, nil) // 2026-12-07 23:59:59 ET
	policy := clock.NewFollowupPolicy(2)

	cases := []struct {
		name  string
		state clock.FollowupState
		want  clock.Followup
	}{
		{
			name:  "first follow-up at the due date",
			state: clock.FollowupState{Rule: tx, Due: txDue},
			want:  clock.Followup{Outcome: clock.OutcomeFollowup, At: txDue, Number: 1},
		},
		{
			name:  "state cadence 15 days",
			state: clock.FollowupState{Rule: tx, Due: txDue, FollowupsSent: 1, LastFollowupAt: at(t, ny, "2026-12-08 09:12")},
			want:  clock.Followup{Outcome: clock.OutcomeFollowup, At: at(t, ny, "2026-12-23 00:00"), Number: 2},
		},
		{
			name:  "federal cadence 30 days",
			state: clock.FollowupState{Rule: us, Due: txDue, FollowupsSent: 1, LastFollowupAt: at(t, ny, "2027-01-15 10:00")},
			want:  clock.Followup{Outcome: clock.OutcomeFollowup, At: at(t, ny, "2027-02-14 00:00"), Number: 2},
		},
		{
			name:  "portal cadence 90 days across DST",
			state: clock.FollowupState{Rule: tx, Portal: true, Due: txDue, FollowupsSent: 1, LastFollowupAt: at(t, ny, "2026-01-10 10:00")},
			want:  clock.Followup{Outcome: clock.OutcomeFollowup, At: time.Date(2026, 4, 10, 4, 0, 0, 0, time.UTC), Number: 2},
		},
		{
			name:  "last follow-up unknown: cadence from the due date",
			state: clock.FollowupState{Rule: tx, Due: txDue, FollowupsSent: 1},
			want:  clock.Followup{Outcome: clock.OutcomeFollowup, At: at(t, ny, "2026-12-22 00:00"), Number: 2},
		},
		{
			name:  "estimated completion pushes the first follow-up after it",
			state: clock.FollowupState{Rule: tx, Due: txDue, EstimatedCompletion: at(t, ny, "2027-01-15 12:00")},
			want:  clock.Followup{Outcome: clock.OutcomeFollowup, At: at(t, ny, "2027-01-16 00:00"), Number: 1},
		},
		{
			name:  "estimated completion before the due date changes nothing",
			state: clock.FollowupState{Rule: tx, Due: txDue, EstimatedCompletion: at(t, ny, "2026-12-01 12:00")},
			want:  clock.Followup{Outcome: clock.OutcomeFollowup, At: txDue, Number: 1},
		},
		{
			name: "estimated completion pushes a later follow-up",
			state: clock.FollowupState{Rule: tx, Due: txDue, FollowupsSent: 1, LastFollowupAt: at(t, ny, "2026-12-08 09:12"),
				EstimatedCompletion: at(t, ny, "2027-02-01 00:30")},
			want: clock.Followup{Outcome: clock.OutcomeFollowup, At: at(t, ny, "2027-02-02 00:00"), Number: 2},
		},
		{
			name:  "escalate after max follow-ups",
			state: clock.FollowupState{Rule: tx, Due: txDue, FollowupsSent: 2, LastFollowupAt: at(t, ny, "2026-12-23 09:00")},
			want:  clock.Followup{Outcome: clock.OutcomeEscalate, At: at(t, ny, "2027-01-07 00:00")},
		},
		{
			name:  "waiting on the requester: nothing",
			state: clock.FollowupState{Rule: tx, Due: txDue, WaitingOnRequester: true},
			want:  clock.Followup{Outcome: clock.OutcomeNone},
		},
		{
			name:  "clock stopped: nothing",
			state: clock.FollowupState{Rule: tx},
			want:  clock.Followup{Outcome: clock.OutcomeNone},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got := cal.NextFollowup(policy, c.state)
			if got.Outcome != c.want.Outcome || !got.At.Equal(c.want.At) || got.Number != c.want.Number {
				t.Fatalf("got %+v (%s local), want %+v", got, got.At.In(ny), c.want)
			}
			if !got.At.IsZero() && got.At.Location() != time.UTC {
				t.Errorf("At not UTC")
			}
		})
	}
}

// A case walked through the whole schedule: follow-ups 1 to 3, then
// escalation, never a fourth follow-up.
func TestFollowupScheduleToEscalation(t *testing.T) {
	t.Parallel()
	rules := loadRules(t)
	cal := clock.Calendar{}
	tx, _ := rules.Lookup("TX")
	policy := clock.FollowupPolicy{StateEveryDays: 15, FederalEveryDays: 30, PortalEveryDays: 90, MaxFollowups: 3}
	st := clock.FollowupState{Rule: tx, Due: cal.DueDate(time.Date(2026, 11, 20, 19, 0, 0, 0, time.UTC), tx, nil)}
	var outcomes []clock.Outcome
	for range 6 {
		f := cal.NextFollowup(policy, st)
		outcomes = append(outcomes, f.Outcome)
		if f.Outcome != clock.OutcomeFollowup {
			break
		}
		if f.Number != st.FollowupsSent+1 {
			t.Fatalf("number %d after %d sent", f.Number, st.FollowupsSent)
		}
		st.FollowupsSent++
		st.LastFollowupAt = f.At.Add(10 * time.Hour)
	}
	want := []clock.Outcome{clock.OutcomeFollowup, clock.OutcomeFollowup, clock.OutcomeFollowup, clock.OutcomeEscalate}
	if len(outcomes) != len(want) {
		t.Fatalf("outcomes %v, want %v", outcomes, want)
	}
	for i := range want {
		if outcomes[i] != want[i] {
			t.Fatalf("outcomes %v, want %v", outcomes, want)
		}
	}
}
