package store

import (
	"context"
	"encoding/json"

	"github.com/foiaflow/foiaflow/workflow"
)

// Recall returns the stored result of a call (workflow.Memoizer).
func (s *Store) Recall(ctx context.Context, runID int64, seq int, purpose string) (json.RawMessage, bool, error) {
	var b []byte
	err := s.pool.QueryRow(ctx, `SELECT response FROM llm_calls WHERE run_id = $1 AND step_seq = $2 AND purpose = $3`,
		runID, seq, purpose).Scan(&b)
	if err = translate(err); isNotFound(err) {
		return nil, false, nil
	}
	return b, err == nil, err
}

// Remember stores a call's result once per (run, step_seq, purpose); a
// second store of the same key keeps the first (workflow.Memoizer).
func (s *Store) Remember(ctx context.Context, runID int64, seq int, purpose string, c workflow.MemoCall) error {
	var model string
	var pt, ct int64
	if c.Usage != nil {
		model, pt, ct = c.Usage.Model, c.Usage.PromptTokens, c.Usage.CompletionTokens
	}
	req := c.Request
	if req == nil {
		req = json.RawMessage("{}")
	}
	_, err := s.pool.Exec(ctx, `INSERT INTO llm_calls (run_id, step_seq, purpose, model, request, response, prompt_tokens, completion_tokens)
		VALUES ($1,$2,$3,$4,$5,$6,$7,$8) ON CONFLICT (run_id, step_seq, purpose) DO NOTHING`,
		runID, seq, purpose, model, req, c.Response, pt, ct)
	return translate(err)
}
