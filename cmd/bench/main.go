// Command bench measures foiaflow on this machine against local Postgres and
// Redis (DESIGN.md "Measuring contracts"). In one run it measures
//
//   - the ceiling: raw durable steps/s of an in-process asynq server with the
//     real worker's options (jobs.NewServer) whose task takes a Postgres
//     advisory lock on a dedicated pooled connection, reads one row, upserts
//     it and enqueues the next task of its chain;
//   - the pipeline: the real api, worker and scheduler processes; N cases each
//     receive a corpus reply through the signed inbound webhook (a burst from
//     many concurrent posters that, like a mail provider, move on once the
//     webhook answers; the runs are found in Postgres, polled every 100 ms);
//     inbound→parked latency from Postgres
//     timestamps (runs.created_at → last run_steps.finished_at), runs/s and
//     steps/s; then every parked email proposal is approved through the API
//     and decision→email sent is measured (decisions.created_at →
//     email_sends.sent_at);
//   - latency when idle (sequential cases) and at half the measured load
//     (paced arrivals at half the measured runs/s);
//   - Postgres queries per step (worker with DB_TRACE_COUNT=true), the
//     worker's RSS at the end, and the machine's CPU time split by process
//     (api, worker, scheduler, Postgres, Redis, the bench, the rest) over the
//     ceiling's window and the full-load phase, from /proc.
//
// It prints a table and, as its last line,
//
//	bench: runs_per_s=N steps_per_s=N ceiling_steps_per_s=N ratio=0.NN idle_p50_ms=N half_p99_ms=N queries_per_step=N.N
//
// where runs/s, steps/s and ratio (steps/s over the ceiling) come from the
// full-load phase, idle_p50_ms from the idle phase, half_p99_ms from the
// half-load phase (inbound→parked), and queries_per_step from the worker's
// query counter over the full-load phase: Postgres round trips, a batch of
// statements counting once (the statements per step are printed above it).
//
// With -scale it instead inserts 100,000 cases in bulk (10,000 with a
// follow-up date in the past), starts the scheduler and measures how long its
// sweep takes to start and enqueue all 10,000 follow-up runs.
//
// Everything runs in a dedicated database (recreated) and under a unique
// QUEUE_PREFIX; every process started is stopped, also on failure.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/foiaflow/foiaflow/cmd/internal/app"
)

type options struct {
	adminURL, dbName, redisAddr, dir string
	concurrency, dbConns             int
	cases, idle, posters             int
	ceilingFor, halfFor, timeout     time.Duration
	poll                             time.Duration
	pprof, scale                     bool
	scaleCases, scaleDue             int
}

func main() {
	o := options{}
	def := app.Defaults()
	flag.StringVar(&o.adminURL, "admin-url", envOr("BENCH_ADMIN_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"),
		"Postgres URL used to (re)create the bench database")
	flag.StringVar(&o.dbName, "db", envOr("BENCH_DATABASE", "foiaflow_bench"), "bench database (dropped and recreated)")
	flag.StringVar(&o.redisAddr, "redis", envOr("REDIS_ADDR", "127.0.0.1:6379"), "Redis address")
	flag.StringVar(&o.dir, "dir", "var/bench", "working directory for binaries and logs")
	flag.IntVar(&o.concurrency, "concurrency", def.WorkerConcurrency, "WORKER_CONCURRENCY of the worker and of the ceiling server")
	flag.DurationVar(&o.poll, "poll", def.WorkerPollInterval, "WORKER_POLL_INTERVAL of the worker and poll interval of the ceiling server")
	flag.IntVar(&o.dbConns, "db-conns", int(def.DatabaseConns), "DATABASE_MAX_CONNS of the processes and of the ceiling pool")
	flag.IntVar(&o.cases, "cases", 1800, "cases of the full-load pipeline (one corpus reply each)")
	flag.IntVar(&o.idle, "idle", 30, "sequential cases of the idle latency phase")
	flag.IntVar(&o.posters, "posters", 16, "concurrent inbound posters of the full-load phase")
	flag.DurationVar(&o.ceilingFor, "ceiling", 10*time.Second, "duration of the ceiling measurement")
	flag.DurationVar(&o.halfFor, "half", 20*time.Second, "duration of the half-load phase")
	flag.DurationVar(&o.timeout, "timeout", 6*time.Minute, "overall time limit")
	flag.BoolVar(&o.pprof, "pprof", false, "serve pprof from the worker (PPROF=true) and the api (API_PPROF_ADDR) and save a 30 s CPU profile of each from the start of the full-load phase")
	flag.BoolVar(&o.scale, "scale", os.Getenv("SCALE") == "1", "scale mode: follow-up sweep over 100,000 cases (also SCALE=1)")
	flag.IntVar(&o.scaleCases, "scale-cases", 100000, "scale mode: cases inserted")
	flag.IntVar(&o.scaleDue, "scale-due", 10000, "scale mode: cases whose follow-up is due")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	var err error
	if o.scale {
		err = runScale(ctx, o)
	} else {
		err = run(ctx, o)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench FAILED:", err)
		os.Exit(1)
	}
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

func step(format string, args ...any) {
	fmt.Printf("==> "+format+"  [load %s]\n", append(args, loadavg())...)
}
