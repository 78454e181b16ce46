package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/foiaflow/foiaflow/workflow"
)

// ErrReplayNeedsHuman is returned by InsertEmailSend for an email of a
// replay's proposal that no APPROVE or EDIT decision decided: a replay never
// sends on its own (time travel, migration 00071).
var ErrReplayNeedsHuman = errors.New("store: a replay sends nothing without a human decision")

// ForkSource is what a fork reads of the run it forks, under a row lock so
// concurrent forks of one run number themselves in turn.
type ForkSource struct {
	ID               int64              `db:"id"`
	CaseID           int64              `db:"case_id"`
	Trigger          string             `db:"trigger"`
	TriggerKey       string             `db:"trigger_key"`
	TriggerMessageID *int64             `db:"trigger_message_id"`
	Status           workflow.RunStatus `db:"status"`
	// InitialState is the state the run was created with; nil for runs
	// created before migration 00071.
	InitialState json.RawMessage `db:"initial_state"`
	// Forks is how many replays were forked from the run so far.
	Forks int `db:"forks"`
	// Steps is the run's step history up to and including the step the
	// fork re-runs from, oldest first.
	Steps []RunStep `db:"-"`
}

// LockForkSource loads run runID FOR UPDATE with its fork count and its
// step history through step seq; ErrNotFound when the run is absent.
func (t *Tx) LockForkSource(ctx context.Context, runID int64, seq int) (ForkSource, error) {
	rows, err := t.query(ctx, `SELECT id, case_id, trigger, trigger_key, trigger_message_id, status, initial_state,
		    (SELECT count(*) FROM runs f WHERE f.replay_of = r.id)::int AS forks
		FROM runs r WHERE id = $1 FOR UPDATE`, runID)
	if err != nil {
		return ForkSource{}, fmt.Errorf("fork source run %d: %w", runID, translate(err))
	}
	src, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[ForkSource])
	if err != nil {
		return ForkSource{}, fmt.Errorf("fork source run %d: %w", runID, translate(err))
	}
	rows, err = t.query(ctx, `SELECT seq, node, outcome, next_node, state_delta, error, worker_id, started_at, finished_at
		FROM run_steps WHERE run_id = $1 AND seq <= $2 ORDER BY seq`, runID, seq)
	if err != nil {
		return ForkSource{}, fmt.Errorf("steps of run %d: %w", runID, translate(err))
	}
	if src.Steps, err = pgx.CollectRows(rows, pgx.RowToStructByName[RunStep]); err != nil {
		return ForkSource{}, fmt.Errorf("steps of run %d: %w", runID, translate(err))
	}
	return src, nil
}

// NewFork describes a replay to create: Run is the new run (its trigger key
// must be new), Parent and Step the run and step it re-runs from, By who
// forked it.
type NewFork struct {
	Run    NewRun
	Parent int64
	Step   int
	By     string
}

// CreateFork inserts a queued replay run at step 0 starting at
// f.Run.StartNode with state f.Run.State; ErrConflict when its trigger key
// exists.
func (t *Tx) CreateFork(ctx context.Context, f NewFork) (Run, error) {
	n := f.Run
	rows, err := t.query(ctx, `
		INSERT INTO runs (case_id, trigger, trigger_key, trigger_message_id, status, next_node, state, initial_state,
		                  replay_of, replay_step, replay_by)
		VALUES ($1, $2, $3, $4, 'queued', $5, $6, $6, $7, $8, $9)
		RETURNING `+runCols, n.CaseID, n.Trigger, n.TriggerKey, n.TriggerMessageID, n.StartNode, n.State,
		f.Parent, f.Step, f.By)
	if err != nil {
		return Run{}, fmt.Errorf("fork run %d at step %d: %w", f.Parent, f.Step, translate(err))
	}
	r, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[Run])
	if err != nil {
		return Run{}, fmt.Errorf("fork run %d at step %d: %w", f.Parent, f.Step, translate(err))
	}
	return r, nil
}
