package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// LLMUsageDay is what one model was asked on one UTC day: calls and the
// tokens they used, summed from llm_calls (the rows Remember writes; a
// memoized offline result, with no model, is not an LLM call).
type LLMUsageDay struct {
	Day              time.Time `db:"day"` // UTC midnight
	Model            string    `db:"model"`
	Calls            int64     `db:"calls"`
	PromptTokens     int64     `db:"prompt_tokens"`
	CompletionTokens int64     `db:"completion_tokens"`
}

// LLMUsageByDay returns LLM usage per UTC day and model for calls made in
// [since, until), of one case (caseID > 0, through its runs) or of all
// cases (caseID 0), ordered by day and model.
func (s *Store) LLMUsageByDay(ctx context.Context, caseID int64, since, until time.Time) ([]LLMUsageDay, error) {
	rows, err := s.pool.Query(ctx, `SELECT (date_trunc('day', l.created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC') AS day,
			l.model, count(*) AS calls, sum(l.prompt_tokens)::bigint AS prompt_tokens, sum(l.completion_tokens)::bigint AS completion_tokens
		FROM llm_calls l
		WHERE l.model <> '' AND l.created_at >= $2 AND l.created_at < $3
			AND ($1 = 0 OR l.run_id IN (SELECT id FROM runs WHERE case_id = $1))
		GROUP BY 1, 2 ORDER BY 1, 2`, caseID, since, until)
	if err != nil {
		return nil, fmt.Errorf("llm usage: %w", translate(err))
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByName[LLMUsageDay])
	if err != nil {
		return nil, fmt.Errorf("llm usage: %w", translate(err))
	}
	return out, nil
}
