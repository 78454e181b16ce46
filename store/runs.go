package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/foiaflow/foiaflow/workflow"
)

// Run is one graph run of a case (runs table).
type Run struct {
	ID               int64              `db:"id"`
	CaseID           int64              `db:"case_id"`
	Trigger          string             `db:"trigger"`
	TriggerKey       string             `db:"trigger_key"`
	TriggerMessageID *int64             `db:"trigger_message_id"`
	Status           workflow.RunStatus `db:"status"`
	NextNode         string             `db:"next_node"`
	StepSeq          int                `db:"step_seq"`
	State            json.RawMessage    `db:"state"`
	Interrupt        json.RawMessage    `db:"interrupt"`
	Error            string             `db:"error"`
	DispatchGen      int                `db:"dispatch_gen"`
	CreatedAt        time.Time          `db:"created_at"`
	UpdatedAt        time.Time          `db:"updated_at"`
	FinishedAt       *time.Time         `db:"finished_at"`
}

// RunState is the engine's view of the run.
func (r Run) RunState() workflow.RunState {
	return workflow.RunState{RunID: r.ID, Status: r.Status, NextNode: r.NextNode, StepSeq: r.StepSeq, State: r.State}
}

const runCols = `id, case_id, trigger, trigger_key, trigger_message_id, status, next_node, step_seq, state,
	interrupt, error, dispatch_gen, created_at, updated_at, finished_at`

// NewRun describes a run to create.
type NewRun struct {
	CaseID           int64
	Trigger          string
	TriggerKey       string // unique: creating the same key twice returns the first run
	TriggerMessageID *int64
	StartNode        string
	State            json.RawMessage
}

// CreateRun inserts a queued run at step 0, or returns the existing run with
// the same trigger key (created=false).
func (t *Tx) CreateRun(ctx context.Context, n NewRun) (Run, bool, error) {
	rows, err := t.query(ctx, `
		INSERT INTO runs (case_id, trigger, trigger_key, trigger_message_id, status, next_node, state, initial_state)
		VALUES ($1, $2, $3, $4, 'queued', $5, $6, $6)
		ON CONFLICT (trigger_key) DO NOTHING
		RETURNING `+runCols, n.CaseID, n.Trigger, n.TriggerKey, n.TriggerMessageID, n.StartNode, n.State)
	if err != nil {
		return Run{}, false, fmt.Errorf("create run %s: %w", n.TriggerKey, translate(err))
	}
	r, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[Run])
	if err == nil {
		return r, true, nil
	}
	if err != pgx.ErrNoRows {
		return Run{}, false, fmt.Errorf("create run %s: %w", n.TriggerKey, translate(err))
	}
	rows, err = t.query(ctx, `SELECT `+runCols+` FROM runs WHERE trigger_key = $1`, n.TriggerKey)
	if err != nil {
		return Run{}, false, translate(err)
	}
	r, err = pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[Run])
	return r, false, translate(err)
}

// GetRun loads a run; ErrNotFound when absent.
func (s *Store) GetRun(ctx context.Context, id int64) (Run, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+runCols+` FROM runs WHERE id = $1`, id)
	if err != nil {
		return Run{}, translate(err)
	}
	r, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[Run])
	if err != nil {
		return Run{}, fmt.Errorf("run %d: %w", id, translate(err))
	}
	return r, nil
}

// AdvanceRun moves the run's checkpoint from cp.FromSeq to cp.ToSeq() by
// compare-and-set (I3) and records the step. It is queued (see Tx): the
// transaction's next statement or its commit returns
// workflow.ErrStaleCheckpoint when the run is no longer at cp.FromSeq, and
// nothing commits then.
func (t *Tx) AdvanceRun(ctx context.Context, cp workflow.Checkpoint, workerID string) error {
	var interrupt any
	if cp.Interrupt != nil {
		interrupt = cp.Interrupt
	}
	st := cp.Step
	delta := st.StateDelta
	if delta == nil {
		delta = json.RawMessage("{}")
	}
	// One statement: the compare-and-set and the history row together; no
	// row inserted means the checkpoint had moved, and stale_checkpoint
	// (migration 00073) aborts the transaction with SQLSTATE FF409.
	t.laterFail(func(err error) error {
		if pgCode(err) == staleCheckpointCode {
			return fmt.Errorf("advance run %d from step %d: %w", cp.RunID, cp.FromSeq, workflow.ErrStaleCheckpoint)
		}
		return fmt.Errorf("advance run %d: %w", cp.RunID, translate(err))
	}, `
		WITH advanced AS (
		    UPDATE runs SET status = $3, next_node = $4, step_seq = $2 + 1, state = $5, interrupt = $6,
		           error = $7, updated_at = now(), dispatch_gen = 0,
		           finished_at = CASE WHEN $3 IN ('completed','failed','superseded','cancelled') THEN now() END
		    WHERE id = $1 AND step_seq = $2 AND status IN ('queued','running','parked')
		    RETURNING id),
		steps AS (
		    INSERT INTO run_steps (run_id, seq, node, outcome, next_node, state_delta, error, worker_id, started_at, finished_at)
		    SELECT id, $8, $9, $10, $11, $12, $13, $14, $15, $16 FROM advanced
		    RETURNING run_id)
		SELECT stale_checkpoint($1, $2) WHERE NOT EXISTS (SELECT FROM steps)`,
		cp.RunID, cp.FromSeq, cp.Status, cp.NextNode, cp.State, interrupt, cp.Error,
		st.Seq, st.Node, st.Outcome, st.NextNode, delta, st.Error, workerID, st.StartedAt, st.FinishedAt)
	return nil
}

// staleCheckpointCode is the SQLSTATE of stale_checkpoint (migration 00073).
const staleCheckpointCode = "FF409"

// pgCode is the SQLSTATE of err, or "".
func pgCode(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// SupersedePending marks the case's PENDING_APPROVAL proposals SUPERSEDED
// and its parked runs superseded, for runs older than beforeRunID (0: all),
// because a newer agency reply arrived. The run's step_seq moves too, which
// fences off any resume in flight (I3). Queued (see Tx).
func (t *Tx) SupersedePending(ctx context.Context, caseID, beforeRunID int64) error {
	t.later(fmt.Sprintf("supersede proposals of case %d", caseID), `UPDATE proposals SET status = 'SUPERSEDED', updated_at = now()
		WHERE case_id = $1 AND status = 'PENDING_APPROVAL' AND ($2 = 0 OR run_id < $2)`, caseID, beforeRunID)
	t.later(fmt.Sprintf("supersede runs of case %d", caseID), `UPDATE runs SET status = 'superseded', step_seq = step_seq + 1, updated_at = now(), finished_at = now()
		WHERE case_id = $1 AND status = 'parked' AND ($2 = 0 OR id < $2)`, caseID, beforeRunID)
	return nil
}

// StrandedCandidates returns queued/running runs not updated since before
// (the reaper checks each against Redis and the case lock).
func (s *Store) StrandedCandidates(ctx context.Context, before time.Time, limit int) ([]Run, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+runCols+` FROM runs WHERE status IN ('queued','running') AND updated_at < $1
		ORDER BY updated_at LIMIT $2`, before, limit)
	if err != nil {
		return nil, translate(err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByName[Run])
	return out, translate(err)
}

// BumpDispatchGen increments the run's dispatch generation if it is still at
// seq, so the reaper can enqueue a fresh task id; returns the new generation
// and false when the run moved on.
func (s *Store) BumpDispatchGen(ctx context.Context, runID int64, seq int) (int, bool, error) {
	var gen int
	err := s.pool.QueryRow(ctx, `UPDATE runs SET dispatch_gen = dispatch_gen + 1, updated_at = now()
		WHERE id = $1 AND step_seq = $2 AND status IN ('queued','running') RETURNING dispatch_gen`, runID, seq).Scan(&gen)
	if err == pgx.ErrNoRows {
		return 0, false, nil
	}
	return gen, err == nil, translate(err)
}

// DeleteStepsBefore removes step history of finished runs older than before
// (retention); returns rows deleted.
func (s *Store) DeleteStepsBefore(ctx context.Context, before time.Time) (int64, error) {
	ct, err := s.pool.Exec(ctx, `DELETE FROM run_steps rs USING runs r WHERE rs.run_id = r.id
		AND r.finished_at IS NOT NULL AND rs.finished_at < $1`, before)
	return ct.RowsAffected(), translate(err)
}

// PendingDecisions returns accepted decisions not applied since before (the
// reaper re-dispatches their resume task if it vanished).
func (s *Store) PendingDecisions(ctx context.Context, before time.Time, limit int) ([]Decision, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+decisionCols+` FROM decisions WHERE status = 'accepted' AND created_at < $1
		ORDER BY id LIMIT $2`, before, limit)
	if err != nil {
		return nil, translate(err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByName[Decision])
	return out, translate(err)
}

// PendingEmailSends returns sends still QUEUED or SENDING whose send time
// passed before before.
func (s *Store) PendingEmailSends(ctx context.Context, before time.Time, limit int) ([]EmailSendRow, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+emailCols+` FROM email_sends WHERE status IN ('QUEUED','SENDING')
		AND send_after < $1 AND created_at < $1 ORDER BY id LIMIT $2`, before, limit)
	if err != nil {
		return nil, translate(err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByName[EmailSendRow])
	return out, translate(err)
}

// RecordStepError stores reason as the run's error while its checkpoint is
// still at seq (a failed attempt that will be retried; the next committed
// step clears it). A run that moved on is left alone.
func (s *Store) RecordStepError(ctx context.Context, runID int64, seq int, reason string) error {
	_, err := s.pool.Exec(ctx, `UPDATE runs SET error = $3 WHERE id = $1 AND step_seq = $2
		AND status IN ('queued','running','parked')`, runID, seq, reason)
	if err != nil {
		return fmt.Errorf("record error of run %d: %w", runID, translate(err))
	}
	return nil
}

// FailRun marks a run failed at checkpoint seq after its retries ran out,
// records the error as a step and opens an escalation so a human sees the
// case. It returns workflow.ErrStaleCheckpoint when the run moved on.
func (s *Store) FailRun(ctx context.Context, runID int64, seq int, node, reason, workerID string) error {
	_, err := s.InTx(ctx, func(tx *Tx) error {
		var caseID int64
		var next string
		err := tx.queryRow(ctx, `UPDATE runs SET status = 'failed', error = $3, step_seq = step_seq + 1,
			updated_at = now(), finished_at = now() WHERE id = $1 AND step_seq = $2 AND status IN ('queued','running')
			RETURNING case_id, next_node`, runID, seq, reason).Scan(&caseID, &next)
		if node == "" {
			node = next
		}
		if err == pgx.ErrNoRows {
			return workflow.ErrStaleCheckpoint
		}
		if err != nil {
			return translate(err)
		}
		now := time.Now().UTC()
		if _, err := tx.exec(ctx, `INSERT INTO run_steps (run_id, seq, node, outcome, error, worker_id, started_at, finished_at)
			VALUES ($1,$2,$3,'error',$4,$5,$6,$6)`, runID, seq, node, reason, workerID, now); err != nil {
			return translate(err)
		}
		return tx.OpenEscalation(ctx, fmt.Sprintf("run-failed:%d", runID), caseID, runID, "run failed after retries: "+reason)
	})
	return err
}
