package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// StepCount is the number of recorded steps of one node with one outcome.
type StepCount struct {
	Node    string `db:"node"`
	Outcome string `db:"outcome"`
	N       int64  `db:"n"`
}

// OpsSnapshot is what the API's /metrics reads from Postgres on a scrape.
type OpsSnapshot struct {
	RunsByStatus      map[string]int64
	ProposalsByStatus map[string]int64
	Steps             []StepCount
	// OldestParkedAt is the last update of the longest-parked run; nil when
	// no run is parked.
	OldestParkedAt *time.Time
}

// Ops reads the operational counts: runs and proposals by status, steps by
// node and outcome (run_steps, bounded by step retention) and the oldest
// parked run.
func (s *Store) Ops(ctx context.Context) (OpsSnapshot, error) {
	var o OpsSnapshot
	var err error
	if o.RunsByStatus, err = s.countBy(ctx, `SELECT status, count(*) FROM runs GROUP BY status`); err != nil {
		return o, fmt.Errorf("ops: runs: %w", err)
	}
	if o.ProposalsByStatus, err = s.countBy(ctx, `SELECT status, count(*) FROM proposals GROUP BY status`); err != nil {
		return o, fmt.Errorf("ops: proposals: %w", err)
	}
	rows, err := s.pool.Query(ctx, `SELECT node, outcome, count(*) AS n FROM run_steps GROUP BY node, outcome`)
	if err != nil {
		return o, fmt.Errorf("ops: steps: %w", translate(err))
	}
	if o.Steps, err = pgx.CollectRows(rows, pgx.RowToStructByName[StepCount]); err != nil {
		return o, fmt.Errorf("ops: steps: %w", translate(err))
	}
	err = s.pool.QueryRow(ctx, `SELECT min(updated_at) FROM runs WHERE status = 'parked'`).Scan(&o.OldestParkedAt)
	if err != nil {
		return o, fmt.Errorf("ops: parked: %w", translate(err))
	}
	return o, nil
}

func (s *Store) countBy(ctx context.Context, q string) (map[string]int64, error) {
	rows, err := s.pool.Query(ctx, q)
	if err != nil {
		return nil, translate(err)
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var k string
		var n int64
		if err := rows.Scan(&k, &n); err != nil {
			return nil, translate(err)
		}
		out[k] = n
	}
	return out, translate(rows.Err())
}
