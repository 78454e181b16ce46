package jobs

import (
	"context"
	"fmt"

	"github.com/foiaflow/foiaflow/store"
)

// CaseSettings are the reviewer-set settings of a case; nil fields are left
// unchanged. The json tags name them in the settings_changed activity.
type CaseSettings struct {
	AutopilotMode *string `json:"autopilot_mode"` // AUTO | SUPERVISED | MANUAL
	Paused        *bool   `json:"paused"`         // a paused case is worked as MANUAL
	// AgencyAllowedSenders replaces the allowlist of the case's agency
	// (shared by all its cases), normalized by the caller.
	AgencyAllowedSenders *[]string `json:"agency_allowed_senders"`
}

// ChangeCaseSettings applies the settings the caller validated to case
// caseID for actor, with the settings_changed activity, in one transaction.
// Errors: store.ErrNotFound (no such case).
func (u *UseCases) ChangeCaseSettings(ctx context.Context, caseID int64, c CaseSettings, actor string) error {
	_, err := u.Store.InTx(ctx, func(tx *store.Tx) error {
		if c.AutopilotMode != nil || c.Paused != nil {
			if err := tx.UpdateCaseSettings(ctx, caseID, c.AutopilotMode, c.Paused); err != nil {
				return err
			}
		}
		if c.AgencyAllowedSenders != nil {
			if err := tx.SetAllowedSenders(ctx, caseID, *c.AgencyAllowedSenders); err != nil {
				return err
			}
		}
		return tx.LogActivity(ctx, caseID, 0, "settings_changed", actor, c)
	})
	if err != nil {
		return fmt.Errorf("change settings of case %d: %w", caseID, err)
	}
	return nil
}
