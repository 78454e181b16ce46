package engine

import (
	"context"
	"encoding/json"
	"fmt"
)

// Memoizer stores the result of expensive calls (LLM analysis, drafting) per
// (run, step_seq, purpose), so that a retried step never pays for the same
// call twice (I5). Recall returns found=false when nothing is stored.
type Memoizer interface {
	Recall(ctx context.Context, runID int64, seq int, purpose string) (json.RawMessage, bool, error)
	Remember(ctx context.Context, runID int64, seq int, purpose string, call MemoCall) error
}

// LLMUsage is what one model call cost: model name, tokens and attempts.
type LLMUsage struct {
	Model            string `json:"model"`
	PromptTokens     int64  `json:"prompt_tokens"`
	CompletionTokens int64  `json:"completion_tokens"`
	Attempts         int    `json:"attempts"`
}

// MemoCall is one stored call: the request for the record, the response that
// is replayed, and the model usage when an LLM answered.
type MemoCall struct {
	Request  json.RawMessage
	Response json.RawMessage
	Usage    *LLMUsage
}

// Memo is a node's view of the Memoizer for its own step. The zero Memo (or
// one with no store) just calls through.
type Memo struct {
	store Memoizer
	runID int64
	seq   int
}

// Do returns the stored result for purpose into out, or calls fn, stores its
// result and decodes it into out. fn runs outside any transaction. usage may
// return nil.
func (m *Memo) Do(ctx context.Context, purpose string, request any, out any, fn func(ctx context.Context) (any, *LLMUsage, error)) error {
	if m != nil && m.store != nil {
		raw, ok, err := m.store.Recall(ctx, m.runID, m.seq, purpose)
		if err != nil {
			return fmt.Errorf("recall %s: %w", purpose, err)
		}
		if ok {
			return json.Unmarshal(raw, out)
		}
	}
	v, usage, err := fn(ctx)
	if err != nil {
		return err
	}
	resp, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s result: %w", purpose, err)
	}
	if m != nil && m.store != nil {
		req, err := json.Marshal(request)
		if err != nil {
			return fmt.Errorf("encode %s request: %w", purpose, err)
		}
		if err := m.store.Remember(ctx, m.runID, m.seq, purpose, MemoCall{Request: req, Response: resp, Usage: usage}); err != nil {
			return fmt.Errorf("remember %s: %w", purpose, err)
		}
	}
	return json.Unmarshal(resp, out)
}
