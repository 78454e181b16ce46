package jobs

import (
	"context"
	"fmt"
	"time"

	"github.com/foiaflow/foiaflow/store"
)

// appealWindowKeyPrefix prefixes the escalation key of an appeal window.
const appealWindowKeyPrefix = "appeal-window:"

// AppealWindowKey is the escalation key of the closing appeal window of an
// appeal proposal: one escalation per proposal, however many sweeps see it
// (I4).
func AppealWindowKey(proposalID int64) string {
	return fmt.Sprintf("%s%d", appealWindowKeyPrefix, proposalID)
}

// SweepAppealWindows escalates every appeal proposal still awaiting a
// reviewer when its case's appeal window closes within warn of now, or has
// closed (docs/graph.md "Denials and appeals"): it opens the escalation,
// adds the reason to the proposal's warnings and logs it, in one
// transaction per proposal. It returns how many it escalated.
func SweepAppealWindows(ctx context.Context, st *store.Store, now time.Time, warn time.Duration, limit int) (int, error) {
	due, err := st.PendingAppealsClosingBy(ctx, now.Add(warn), appealWindowKeyPrefix, limit)
	if err != nil {
		return 0, fmt.Errorf("appeal windows: %w", err)
	}
	n := 0
	for _, p := range due {
		reason := appealWindowReason(p, now)
		if _, err := st.InTx(ctx, func(tx *store.Tx) error {
			if err := tx.OpenEscalation(ctx, AppealWindowKey(p.ProposalID), p.CaseID, p.RunID, reason); err != nil {
				return err
			}
			if err := tx.AddProposalWarning(ctx, p.ProposalID, reason); err != nil {
				return err
			}
			return tx.LogActivity(ctx, p.CaseID, p.RunID, "appeal_window_escalated", "scheduler",
				map[string]any{"proposal_id": p.ProposalID, "appeal_deadline": p.Deadline, "reason": reason})
		}); err != nil {
			return n, fmt.Errorf("appeal windows: proposal %d: %w", p.ProposalID, err)
		}
		n++
	}
	return n, nil
}

// appealWindowReason says when the window closes, on the agency's calendar.
func appealWindowReason(p store.PendingAppeal, now time.Time) string {
	loc, err := time.LoadLocation(p.Timezone)
	if err != nil {
		loc = time.UTC
	}
	day := p.Deadline.In(loc).Format("2006-01-02")
	if !now.Before(p.Deadline) {
		return fmt.Sprintf("APPEAL WINDOW CLOSED on %s with appeal proposal %d undecided: the appeal may now be late", day, p.ProposalID)
	}
	left := int(p.Deadline.Sub(now).Hours() / 24)
	return fmt.Sprintf("APPEAL WINDOW CLOSES on %s (%d days left): appeal proposal %d awaits a reviewer decision", day, left, p.ProposalID)
}
