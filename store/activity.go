package store

import (
	"context"
	"encoding/json"
	"fmt"
)

// LogActivity appends to the case's activity log.
func (t *Tx) LogActivity(ctx context.Context, caseID, runID int64, kind, actor string, detail any) error {
	d, err := json.Marshal(detail)
	if err != nil {
		return err
	}
	var run *int64
	if runID != 0 {
		run = &runID
	}
	_, err = t.tx.Exec(ctx, `INSERT INTO activity_log (case_id, run_id, kind, actor, detail) VALUES ($1,$2,$3,$4,$5)`,
		caseID, run, kind, actor, d)
	if err != nil {
		return fmt.Errorf("log activity %s: %w", kind, translate(err))
	}
	return nil
}

// OpenEscalation opens an escalation once per key; runID 0 is an
// escalation outside any run (a message that failed to parse, a bounce).
func (t *Tx) OpenEscalation(ctx context.Context, key string, caseID, runID int64, reason string) error {
	var run *int64
	if runID != 0 {
		run = &runID
	}
	_, err := t.tx.Exec(ctx, `INSERT INTO escalations (case_id, run_id, escalation_key, reason) VALUES ($1,$2,$3,$4)
		ON CONFLICT (escalation_key) DO NOTHING`, caseID, run, key, reason)
	if err != nil {
		return fmt.Errorf("open escalation %s: %w", key, translate(err))
	}
	return nil
}
