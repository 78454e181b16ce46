package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/hibiken/asynq"
	"github.com/jackc/pgx/v5/pgxpool"

	sharedfleet "github.com/foiaflow/foiaflow/cmd/internal/fleet"
	"github.com/foiaflow/foiaflow/jobs"
	"github.com/foiaflow/foiaflow/store"
)

// heldRun is a run whose case lock a killed worker held at the kill: a step
// or resume of the run at seq was in flight.
type heldRun struct {
	caseID, runID int64
	seq           int
	status        string // run status at the kill
}

// kill is one SIGKILL of a worker and what it held at that instant.
type kill struct {
	slot     string
	pid      int
	at       time.Time
	measured bool      // the pre-kill snapshot succeeded
	runs     []heldRun // case locks held by the worker's sessions
	sends    []string  // execution keys in SENDING (any worker; a live one finishes in ms)
}

// event is a logged chaos action.
type event struct {
	at   time.Time
	what string
}

// chaosMonkey kills workers, wipes Redis once and restarts Postgres once.
type chaosMonkey struct {
	fleet   *sharedfleet.Fleet
	pg      *sharedfleet.PrivatePG
	redis   *sharedfleet.PrivateRedis
	db      *pgxpool.Pool
	workers []string
	every   time.Duration
	pgMode  string
	// inspector and queues tell a step a killed worker was running (its
	// task active) from one waiting in a queue while the worker held the
	// case lock for other work (a parse, a redelivery).
	inspector *asynq.Inspector
	queues    jobs.Queues
	kills     []kill
	events    []event
	errs      []error
	queued    int // runs of held case locks whose step task was waiting in a queue: not held work
}

func (m *chaosMonkey) log(format string, args ...any) {
	e := event{at: time.Now(), what: fmt.Sprintf(format, args...)}
	m.events = append(m.events, e)
	fmt.Printf("    [chaos %s] %s\n", e.at.Format("15:04:05.000"), e.what)
}

// run performs the chaos for d: a kill every ~every (jittered ±25 %), the
// Redis wipe at 35 % and the Postgres restart at 65 % of d.
func (m *chaosMonkey) run(ctx context.Context, d time.Duration) {
	start := time.Now()
	flushAt, restartAt := start.Add(d*35/100), start.Add(d*65/100)
	flushed, restarted := false, false
	for ctx.Err() == nil && time.Since(start) < d {
		jitter := time.Duration(rand.Int64N(int64(m.every)/2)) - m.every/4
		select {
		case <-ctx.Done():
			return
		case <-time.After(m.every + jitter):
		}
		if !flushed && time.Now().After(flushAt) {
			flushed = true
			if err := m.redis.FlushAll(ctx); err != nil {
				m.errs = append(m.errs, fmt.Errorf("FLUSHALL: %w", err))
			}
			m.log("FLUSHALL on the private redis %s", m.redis.Addr)
			continue
		}
		if !restarted && time.Now().After(restartAt) {
			restarted = true
			m.log("postgres restart -m %s (private postgres :%d)", m.pgMode, m.pg.Port)
			rctx, cancel := context.WithTimeout(ctx, 90*time.Second)
			err := m.pg.Restart(rctx, m.pgMode)
			cancel()
			if err != nil {
				m.errs = append(m.errs, fmt.Errorf("postgres restart: %w", err))
			}
			m.log("postgres is back")
			continue
		}
		m.killOne(ctx)
	}
}

func (m *chaosMonkey) killOne(ctx context.Context) {
	slot := m.workers[rand.IntN(len(m.workers))]
	k := kill{slot: slot}
	k.runs, k.sends, k.measured = m.held(ctx, "chaos-"+slot)
	at, pid, err := m.fleet.KillRestart(slot)
	k.at, k.pid = at, pid
	if err != nil {
		m.errs = append(m.errs, err)
	}
	m.kills = append(m.kills, k)
	held := fmt.Sprintf("holding %d case locks, %d sends in SENDING", len(k.runs), len(k.sends))
	if !k.measured {
		held = "(snapshot failed: not measured)"
	}
	m.log("SIGKILL %s (pid %d) %s; restarted", slot, pid, held)
}

// held snapshots, just before the kill, the case locks held by the
// sessions of application_name app and the runs they guard, and the email
// sends in SENDING.
func (m *chaosMonkey) held(ctx context.Context, app string) ([]heldRun, []string, bool) {
	qctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	rows, err := m.db.Query(qctx, `
		SELECT r.case_id, r.id, r.step_seq, r.status, r.dispatch_gen FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
		JOIN runs r ON r.case_id = l.objid::bigint AND r.status IN ('queued','running','parked')
		WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2 AND l.classid = $2::bigint::oid
		  AND a.application_name = $1`, app, int64(store.DefaultLockNamespace))
	if err != nil {
		return nil, nil, false
	}
	var runs []heldRun
	var gens []int
	for rows.Next() {
		var h heldRun
		var gen int
		if err := rows.Scan(&h.caseID, &h.runID, &h.seq, &h.status, &gen); err != nil {
			rows.Close()
			return nil, nil, false
		}
		runs = append(runs, h)
		gens = append(gens, gen)
	}
	rows.Close()
	if rows.Err() != nil {
		return nil, nil, false
	}
	// A queued or running run's step counts as held only if its task is
	// active (or gone: a wiped Redis); pending, scheduled or retrying, it was
	// waiting in a queue and its delay is queueing, not recovery.
	kept := runs[:0]
	for i, h := range runs {
		if m.inspector != nil && (h.status == "queued" || h.status == "running") {
			info, err := m.inspector.GetTaskInfo(m.queues.AgentFor(gens[i]), jobs.StepTaskID(h.runID, h.seq, gens[i]))
			if err == nil && info.State != asynq.TaskStateActive {
				m.queued++
				continue
			}
		}
		kept = append(kept, h)
	}
	runs = kept
	srows, err := m.db.Query(qctx, `SELECT execution_key FROM email_sends WHERE status = 'SENDING'`)
	if err != nil {
		return nil, nil, false
	}
	defer srows.Close()
	var sends []string
	for srows.Next() {
		var k string
		if err := srows.Scan(&k); err != nil {
			return nil, nil, false
		}
		sends = append(sends, k)
	}
	return runs, sends, srows.Err() == nil
}
