package store

import (
	"context"
	"encoding/json"
)

// LogActivity appends to the case's activity log (queued: sent with the
// transaction's next read or its commit).
func (t *Tx) LogActivity(ctx context.Context, caseID, runID int64, kind, actor string, detail any) error {
	d, err := json.Marshal(detail)
	if err != nil {
		return err
	}
	var run *int64
	if runID != 0 {
		run = &runID
	}
	t.later("log activity "+kind, `INSERT INTO activity_log (case_id, run_id, kind, actor, detail) VALUES ($1,$2,$3,$4,$5)`,
		caseID, run, kind, actor, d)
	return nil
}

// OpenEscalation opens an escalation once per key; runID 0 is an
// escalation outside any run (a message that failed to parse, a bounce).
// Queued like LogActivity.
func (t *Tx) OpenEscalation(ctx context.Context, key string, caseID, runID int64, reason string) error {
	var run *int64
	if runID != 0 {
		run = &runID
	}
	t.later("open escalation "+key, `INSERT INTO escalations (case_id, run_id, escalation_key, reason) VALUES ($1,$2,$3,$4)
		ON CONFLICT (escalation_key) DO NOTHING`, caseID, run, key, reason)
	return nil
}
