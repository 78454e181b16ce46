// Command chaos runs many FOIA cases through the real foiaflow processes
// (api, two workers, two schedulers) against a private Postgres, a private
// Redis and an in-process SMTP sink, while it SIGKILLs a random worker every
// ~2 s, wipes Redis once and restarts Postgres once. Agency replies keep
// arriving through the signed webhook (some delivered twice with the same
// Message-ID) and reviewers keep approving parked email proposals (retrying
// with the same Idempotency-Key). Afterwards it waits for quiescence and
// checks, from Postgres and the sink, that every reply was stored once,
// every case ended in its expected state, every email went out exactly once
// (I5's SMTP-accepted-but-not-recorded window counted apart), nothing is
// stranded (I6), and how long recovery after a kill took: from the SIGKILL
// to the completion of each step, resume or send the killed worker was
// running (a step counts when its case lock was held by the worker and its
// task was active in asynq; a step that waited in a queue meanwhile is
// queueing, not recovery, and is only counted).
//
// The shared Postgres and Redis are never touched. Last line (DESIGN.md,
// "Measuring contracts"):
//
//	chaos: cases=N emails=N duplicates=N lost_replies=N stranded=N recovery_max_s=N.N
package main

import (
	"context"
	"flag"
	"time"

	sharedfleet "github.com/foiaflow/foiaflow/cmd/internal/fleet"
)

func main() {
	o := options{}
	flag.IntVar(&o.cases, "cases", 1000, "cases to run (one agency reply each)")
	flag.DurationVar(&o.chaos, "chaos", 90*time.Second, "how long the chaos (kills, wipe, restart) lasts")
	flag.DurationVar(&o.killEvery, "kill-every", 2*time.Second, "mean interval between worker SIGKILLs")
	flag.DurationVar(&o.settle, "settle", 90*time.Second, "time limit for quiescence after the chaos")
	flag.StringVar(&o.pgMode, "pg-restart-mode", "fast", "postgres restart mode (as pg_ctl -m): fast or immediate")
	flag.StringVar(&o.dir, "dir", "var/chaos", "working directory for binaries and logs")
	flag.DurationVar(&o.timeout, "timeout", 6*time.Minute, "overall time limit")
	flag.Parse()
	sharedfleet.Main("chaos", o.timeout, func(ctx context.Context) (bool, error) { return run(ctx, o) })
}
