package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/foiaflow/foiaflow/cmd/internal/fleet"
)

// runScale inserts o.scaleCases cases in bulk (COPY) into a dedicated
// database, o.scaleDue of them with a follow-up date in the past, starts the
// real scheduler and measures the time until its sweep has created and
// enqueued one time_based_followup run for every due case. Last line:
//
//	bench-scale: cases=N due=N runs=N sweep_s=N.N dispatched_s=N.N duplicates=N wrong_cases=N
func runScale(ctx context.Context, o options) (err error) {
	dir, err := filepath.Abs(o.dir)
	if err != nil {
		return err
	}
	left, err := fleet.Guard(dir)
	if err != nil {
		return err
	}
	name := o.dbName + "_scale"
	prefix := "bench-scale-" + fleet.RandHex(3) + "-"
	defer cleanQueues(o.redisAddr, prefix)
	step("recreating database %s", name)
	if err := fleet.RecreateDB(ctx, o.adminURL, name); err != nil {
		return err
	}
	dbURL := strings.Replace(o.adminURL, "/postgres?", "/"+name+"?", 1)
	port, err := fleet.FreePort()
	if err != nil {
		return err
	}
	f := &fleet.Fleet{Dir: dir, Left: left, Env: append(os.Environ(), "DATABASE_URL="+dbURL, "REDIS_ADDR="+o.redisAddr,
		"QUEUE_PREFIX="+prefix, fmt.Sprintf("SCHEDULER_METRICS_ADDR=127.0.0.1:%d", port), "LOG_LEVEL=info")}
	step("building api, worker and scheduler")
	if err := f.Build(ctx); err != nil {
		return err
	}
	if err := f.Run(ctx, "worker", "migrate"); err != nil {
		return err
	}
	db, err := pgxpool.New(ctx, dbURL)
	if err != nil {
		return err
	}
	defer db.Close()
	step("inserting %d cases (COPY), %d with a follow-up due", o.scaleCases, o.scaleDue)
	t := time.Now()
	if err := insertCases(ctx, db, o.scaleCases, o.scaleDue); err != nil {
		return err
	}
	fmt.Printf("    inserted in %.1fs\n", time.Since(t).Seconds())
	step("starting the scheduler; waiting for its sweep")
	defer func() {
		if serr := f.Stop(); serr != nil && err == nil {
			err = serr
		}
		left.Done()
	}()
	t0 := time.Now()
	if _, err := f.Start("scheduler"); err != nil {
		return err
	}
	var sweep, dispatched time.Duration
	wctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	for sweep == 0 || dispatched == 0 {
		var runs, sent int
		if err := db.QueryRow(wctx, `SELECT (SELECT count(*) FROM runs WHERE trigger = 'time_based_followup'),
			(SELECT count(*) FROM outbox WHERE task_type = 'agent:step' AND dispatched_at IS NOT NULL)`).Scan(&runs, &sent); err != nil {
			return fmt.Errorf("waiting for the sweep: %w", err)
		}
		if sweep == 0 && runs >= o.scaleDue {
			sweep = time.Since(t0)
		}
		if dispatched == 0 && sent >= o.scaleDue {
			dispatched = time.Since(t0)
		}
		select {
		case <-wctx.Done():
			return fmt.Errorf("after %s: %d runs created, %d enqueued of %d: %w", time.Since(t0).Round(time.Millisecond), runs, sent, o.scaleDue, wctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
	load := loadavg()
	var runs, cases, dup, wrong int
	err = db.QueryRow(ctx, `SELECT count(*), count(DISTINCT case_id),
		(SELECT count(*) FROM (SELECT case_id FROM runs GROUP BY case_id HAVING count(*) > 1) d),
		count(*) FILTER (WHERE case_id IN (SELECT id FROM cases WHERE next_followup_at > now()))
		FROM runs`).Scan(&runs, &cases, &dup, &wrong)
	if err != nil {
		return err
	}
	fmt.Printf("\nscheduler start → %d follow-up runs created: %.2fs; all enqueued (outbox dispatched): %.2fs  [load %s]\n",
		o.scaleDue, sweep.Seconds(), dispatched.Seconds(), load)
	fmt.Printf("runs %d on %d cases; cases with more than one run: %d; runs on cases not due: %d (target: <= 10 s, exactly one run per due case)\n",
		runs, cases, dup, wrong)
	fmt.Printf("bench-scale: cases=%d due=%d runs=%d sweep_s=%.1f dispatched_s=%.1f duplicates=%d wrong_cases=%d\n",
		o.scaleCases, o.scaleDue, runs, sweep.Seconds(), dispatched.Seconds(), dup, wrong)
	if runs != o.scaleDue || cases != o.scaleDue || dup != 0 || wrong != 0 {
		return fmt.Errorf("want exactly one run on each of %d due cases, got %d runs on %d cases", o.scaleDue, runs, cases)
	}
	return nil
}

// insertCases COPYs n cases over 100 agencies; the first due ones have a
// follow-up date an hour ago, the others in 30 days.
func insertCases(ctx context.Context, db *pgxpool.Pool, n, due int) error {
	var agencies []int64
	for i := range 100 {
		var id int64
		if err := db.QueryRow(ctx, `INSERT INTO agencies (name, email, email_domain) VALUES ($1, $2, $3) RETURNING id`,
			fmt.Sprintf("Scale Agency %d", i), fmt.Sprintf("records@scale%d.example.gov", i), fmt.Sprintf("scale%d.example.gov", i)).Scan(&id); err != nil {
			return err
		}
		agencies = append(agencies, id)
	}
	now := time.Now().UTC()
	sent := now.Add(-25 * 24 * time.Hour)
	_, err := db.CopyFrom(ctx, pgx.Identifier{"cases"},
		[]string{"agency_id", "jurisdiction_code", "subject", "reply_token", "sent_at", "next_followup_at"},
		pgx.CopyFromFunc(func() func() ([]any, error) {
			i := 0
			return func() ([]any, error) {
				if i >= n {
					return nil, nil
				}
				next := now.Add(30 * 24 * time.Hour)
				if i < due {
					next = now.Add(-time.Hour - time.Duration(i)*time.Second)
				}
				row := []any{agencies[i%len(agencies)], "US", fmt.Sprintf("Scale request %d", i), "scale" + fleet.RandHex(8), sent, next}
				i++
				return row, nil
			}
		}()))
	if err != nil {
		return fmt.Errorf("copy cases: %w", err)
	}
	_, err = db.Exec(ctx, `ANALYZE cases`)
	return err
}
