package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/hibiken/asynq"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/foiaflow/foiaflow/jobs"
	"github.com/foiaflow/foiaflow/store"
)

// typeCeiling is the task type of the ceiling measurement.
const typeCeiling = "bench:ceiling"

// ceiling measures raw durable steps/s on this machine: an asynq server built
// by jobs.NewServer with the worker's concurrency, queues and poll interval
// (the bench passes the same -concurrency and -poll to the worker) runs tasks that
// each take the key's advisory lock on a dedicated pooled connection (as
// store.TryLockCase does), read the key's row, upsert it, unlock and enqueue
// the next task of the key's chain (as a step dispatches its successor).
// Chains are 4× the concurrency so workers never starve.
type ceiling struct {
	pool   *pgxpool.Pool
	client *asynq.Client
	queues jobs.Queues
	done   atomic.Int64
	busy   atomic.Int64
	stop   atomic.Bool
}

func (c *ceiling) ProcessTask(ctx context.Context, t *asynq.Task) error {
	key := int64(binary.BigEndian.Uint64(t.Payload()[:8]))
	seq := binary.BigEndian.Uint64(t.Payload()[8:])
	conn, err := c.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	var ok bool
	if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1, $2)`, store.DefaultLockNamespace+7, int32(key)).Scan(&ok); err != nil {
		conn.Release()
		return err
	}
	if !ok {
		conn.Release()
		c.busy.Add(1)
		return fmt.Errorf("key %d busy", key)
	}
	err = func() error {
		defer func() {
			if _, err := conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1, $2)`, store.DefaultLockNamespace+7, int32(key)); err != nil {
				_ = conn.Conn().Close(context.WithoutCancel(ctx))
			}
			conn.Release()
		}()
		var n int64
		if err := c.pool.QueryRow(ctx, `SELECT coalesce((SELECT n FROM bench_ceiling WHERE id = $1), 0)`, key).Scan(&n); err != nil {
			return err
		}
		_, err := c.pool.Exec(ctx, `INSERT INTO bench_ceiling (id, n, updated_at) VALUES ($1, $2, now())
			ON CONFLICT (id) DO UPDATE SET n = excluded.n, updated_at = excluded.updated_at`, key, n+1)
		return err
	}()
	if err != nil {
		return err
	}
	c.done.Add(1)
	if c.stop.Load() {
		return nil
	}
	return c.enqueue(ctx, key, seq+1)
}

func (c *ceiling) enqueue(ctx context.Context, key int64, seq uint64) error {
	p := make([]byte, 16)
	binary.BigEndian.PutUint64(p, uint64(key))
	binary.BigEndian.PutUint64(p[8:], seq)
	_, err := c.client.EnqueueContext(ctx, asynq.NewTask(typeCeiling, p), asynq.Queue(c.queues.Agent),
		asynq.TaskID(fmt.Sprintf("ceil:%d:%d", key, seq)), asynq.MaxRetry(jobs.MaxRetry))
	return err
}

// ceilingResult is what runCeiling measured.
type ceilingResult struct {
	perSec float64
	tasks  int64
	busy   int64
	window time.Duration
	load   string
	cpu    cpuSplit // over the window; the server runs in the bench process
}

// runCeiling runs the ceiling for d after a 1 s warm-up.
func runCeiling(ctx context.Context, dbURL string, o options, prefix string) (ceilingResult, error) {
	pc, err := pgxpool.ParseConfig(dbURL)
	if err != nil {
		return ceilingResult{}, err
	}
	pc.MaxConns = int32(o.dbConns)
	pool, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		return ceilingResult{}, err
	}
	defer pool.Close()
	if _, err := pool.Exec(ctx, `CREATE TABLE IF NOT EXISTS bench_ceiling (id bigint PRIMARY KEY, n bigint NOT NULL, updated_at timestamptz NOT NULL)`); err != nil {
		return ceilingResult{}, err
	}
	r := asynq.RedisClientOpt{Addr: o.redisAddr}
	client := asynq.NewClient(r)
	defer client.Close()
	q := jobs.PrefixedQueues(prefix)
	c := &ceiling{pool: pool, client: client, queues: q}
	srv := jobs.NewServer(r, jobs.ServerOptions{Concurrency: o.concurrency, Queues: q, PollInterval: o.poll, LogLevel: asynq.ErrorLevel})
	mux := asynq.NewServeMux()
	mux.Handle(typeCeiling, c)
	if err := srv.Start(mux); err != nil {
		return ceilingResult{}, fmt.Errorf("ceiling server: %w", err)
	}
	defer srv.Shutdown()
	for k := range int64(4 * o.concurrency) {
		if err := c.enqueue(ctx, k+1, 0); err != nil {
			return ceilingResult{}, err
		}
	}
	select {
	case <-ctx.Done():
		return ceilingResult{}, ctx.Err()
	case <-time.After(time.Second):
	}
	cpu0 := sampleCPU(nil, o.dbName)
	n0, t0 := c.done.Load(), time.Now()
	select {
	case <-ctx.Done():
		return ceilingResult{}, ctx.Err()
	case <-time.After(o.ceilingFor):
	}
	n1, t1 := c.done.Load(), time.Now()
	cpu := cpu0.to(sampleCPU(nil, o.dbName))
	load := loadavg()
	c.stop.Store(true)
	res := ceilingResult{tasks: n1 - n0, window: t1.Sub(t0), busy: c.busy.Load(), load: load, cpu: cpu}
	res.perSec = float64(res.tasks) / res.window.Seconds()
	return res, nil
}
