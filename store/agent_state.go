package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/foiaflow/foiaflow/workflow"
)

// The agent-state page's reads (GET /v1/cases/{id}/agent-state and the
// desk's case page): a case's runs, a run's step history and the case's
// replays.

// RunsOfCase lists a case's runs, newest first.
func (s *Store) RunsOfCase(ctx context.Context, caseID int64) ([]Run, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+runCols+` FROM runs WHERE case_id = $1 ORDER BY id DESC`, caseID)
	if err != nil {
		return nil, translate(err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByName[Run])
	return out, translate(err)
}

// RunStep is one row of step history.
type RunStep struct {
	Seq        int             `db:"seq" json:"seq"`
	Node       string          `db:"node" json:"node"`
	Outcome    string          `db:"outcome" json:"outcome"`
	NextNode   string          `db:"next_node" json:"next_node"`
	StateDelta json.RawMessage `db:"state_delta" json:"state_delta"`
	Error      string          `db:"error" json:"error,omitempty"`
	WorkerID   string          `db:"worker_id" json:"worker_id"`
	StartedAt  time.Time       `db:"started_at" json:"started_at"`
	FinishedAt time.Time       `db:"finished_at" json:"finished_at"`
}

// RunSteps returns a run's step history in order.
func (s *Store) RunSteps(ctx context.Context, runID int64) ([]RunStep, error) {
	rows, err := s.pool.Query(ctx, `SELECT seq, node, outcome, next_node, state_delta, error, worker_id, started_at, finished_at
		FROM run_steps WHERE run_id = $1 ORDER BY seq`, runID)
	if err != nil {
		return nil, translate(err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByName[RunStep])
	return out, translate(err)
}

// Fork is a replay as the case page lists it.
type Fork struct {
	RunID      int64              `db:"id" json:"run_id"`
	ReplayOf   int64              `db:"replay_of" json:"replay_of"`     // the run forked
	ReplayStep int                `db:"replay_step" json:"replay_step"` // the step it re-ran from
	ReplayBy   string             `db:"replay_by" json:"replay_by"`
	Status     workflow.RunStatus `db:"status" json:"status"`
	NextNode   string             `db:"next_node" json:"next_node"`
	StepSeq    int                `db:"step_seq" json:"step_seq"`
	// ProposalID is the replay's newest proposal, if it made one.
	ProposalID *int64     `db:"proposal_id" json:"proposal_id"`
	CreatedAt  time.Time  `db:"created_at" json:"created_at"`
	FinishedAt *time.Time `db:"finished_at" json:"finished_at"`
}

// ForksOfCase lists the case's replays, newest first.
func (s *Store) ForksOfCase(ctx context.Context, caseID int64) ([]Fork, error) {
	rows, err := s.pool.Query(ctx, `SELECT r.id, r.replay_of, r.replay_step, r.replay_by, r.status, r.next_node,
		    r.step_seq, (SELECT max(p.id) FROM proposals p WHERE p.run_id = r.id) AS proposal_id, r.created_at, r.finished_at
		FROM runs r WHERE r.case_id = $1 AND r.replay_of IS NOT NULL ORDER BY r.id DESC`, caseID)
	if err != nil {
		return nil, fmt.Errorf("forks of case %d: %w", caseID, translate(err))
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByName[Fork])
	if err != nil {
		return nil, fmt.Errorf("forks of case %d: %w", caseID, translate(err))
	}
	return out, nil
}
