package jobs

import (
	"context"
	"fmt"

	"github.com/foiaflow/foiaflow/inbound"
	"github.com/foiaflow/foiaflow/store"
)

// AssignOrphan attaches the inbound message msgID that matched no case to
// case caseID (match_method manual), on actor's word, in one transaction:
// the message and its attachments, and, unless it is automatic mail
// (auto-reply, bounce) or failed to parse, the agency_reply run with the
// outbox row of its first step, dispatched after commit. The sender is
// checked against the case's agency allowlist like any reply's: an allowed
// sender's message supersedes the case's pending proposals; any other
// sender's run parks for a human (issue 10). It returns the run's id, 0
// when none was started. Errors: store.ErrNotFound when msgID is not an
// unassigned orphan (the caller checks the case exists).
func (u *UseCases) AssignOrphan(ctx context.Context, msgID, caseID int64, actor string) (int64, error) {
	var runID int64
	rows, err := u.Store.InTx(ctx, func(tx *store.Tx) error {
		m, err := tx.AssignOrphan(ctx, msgID, caseID)
		if err != nil {
			return err
		}
		if m.AutoKind == "" && m.ParseStatus == store.ParseStatusParsed {
			if m.SenderAllowed {
				if err := tx.SupersedePending(ctx, caseID, 0); err != nil {
					return err
				}
			}
			n, err := inbound.ReplyRun(caseID, msgID, m.SenderAllowed)
			if err != nil {
				return err
			}
			run, _, err := StartRun(ctx, tx, u.Queues, n)
			if err != nil {
				return err
			}
			runID = run.ID
		}
		return tx.LogActivity(ctx, caseID, runID, "orphan_assigned", actor,
			map[string]any{"message_id": msgID, "sender_allowed": m.SenderAllowed, "auto_kind": m.AutoKind})
	})
	if err != nil {
		return 0, fmt.Errorf("assign orphan %d: %w", msgID, err)
	}
	u.Dispatch.AfterCommit(ctx, rows)
	return runID, nil
}
