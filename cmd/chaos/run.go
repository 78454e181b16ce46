package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/hibiken/asynq"
	"github.com/jackc/pgx/v5/pgxpool"

	sharedfleet "github.com/foiaflow/foiaflow/cmd/internal/fleet"
	"github.com/foiaflow/foiaflow/jobs"
)

type options struct {
	cases                             int
	chaos, killEvery, settle, timeout time.Duration
	pgMode, dir                       string
}

// run sets everything up, runs the chaos and the checks, and tears down
// every process it started (also on error or signal). It returns whether
// the checks failed.
func run(ctx context.Context, o options) (bool, error) {
	begin := time.Now()
	dir, err := filepath.Abs(o.dir)
	if err != nil {
		return false, err
	}
	left, err := sharedfleet.Guard(dir)
	if err != nil {
		return false, err
	}
	defer left.Done()
	_ = os.RemoveAll(filepath.Join(dir, "logs"))
	for _, d := range []string{filepath.Join(dir, "logs"), filepath.Join(dir, "bin")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return false, err
		}
	}
	priv, err := sharedfleet.StartPrivate(ctx, "chaos", "foiaflow", left)
	if err != nil {
		return false, err
	}
	defer priv.Stop()
	pg, rd, apiPort := priv.PG, priv.Redis, priv.APIPort
	sk, err := startSink()
	if err != nil {
		return false, err
	}
	defer sk.close()

	key, secret := "chaos-admin-"+sharedfleet.RandHex(8), sharedfleet.RandHex(16)
	f := &sharedfleet.Fleet{Dir: dir, Left: left, Env: append(os.Environ(),
		"DATABASE_URL="+pg.URL("foiaflow", "chaos-other"), "REDIS_ADDR="+rd.Addr, "QUEUE_PREFIX=chaos-",
		fmt.Sprintf("API_ADDR=127.0.0.1:%d", apiPort), "API_BOOTSTRAP_ADMIN_KEY="+key, "INBOUND_RAW_SECRET="+secret,
		"MAIL_DOMAIN=chaos.foiaflow.local", "MAIL_FROM=foiaflow chaos <requests@chaos.foiaflow.local>",
		"SMTP_HOST=127.0.0.1", fmt.Sprintf("SMTP_PORT=%d", sk.port()), "SMTP_TLS=none", "SMTP_TIMEOUT=10s",
		"SEND_BUSINESS_HOURS=false", "SEND_MAX_JITTER=0s", "ANALYZER=offline", "DRAFTER=offline",
		"DECISIONS_PER_CASE_PER_MINUTE=1000", "WORKER_SHUTDOWN_TIMEOUT=5s",
		"WORKER_METRICS_ADDR=127.0.0.1:0", "SCHEDULER_METRICS_ADDR=127.0.0.1:0", "LOG_LEVEL=info")}
	sharedfleet.Step("building api, worker and scheduler into %s", filepath.Join(dir, "bin"))
	if err := f.Build(ctx); err != nil {
		return false, err
	}
	if err := f.Run(ctx, "worker", "migrate"); err != nil {
		return false, err
	}
	defer func() { _ = f.StopWithin(15 * time.Second) }()
	workers := []string{"w1", "w2"}
	for _, p := range []struct{ slot, bin string }{{"api", "api"}, {"s1", "scheduler"}, {"s2", "scheduler"}, {"w1", "worker"}, {"w2", "worker"}} {
		if _, err := f.StartSlot(p.slot, p.bin, "DATABASE_URL="+pg.URL("foiaflow", "chaos-"+p.slot)); err != nil {
			return false, err
		}
	}
	c := &client{base: fmt.Sprintf("http://127.0.0.1:%d", apiPort), key: key, secret: []byte(secret),
		http: &http.Client{Timeout: 15 * time.Second}}
	rctx, rcancel := context.WithTimeout(ctx, 60*time.Second)
	err = sharedfleet.WaitReady(rctx, c.base+"/readyz")
	rcancel()
	if err != nil {
		return false, err
	}
	db, err := pgxpool.New(ctx, pg.URL("foiaflow", "chaos-harness"))
	if err != nil {
		return false, err
	}
	defer db.Close()

	fd, err := newFeeder(c, o.cases)
	if err != nil {
		return false, err
	}
	ap := &approver{c: c, db: db}
	insp := asynq.NewInspector(asynq.RedisClientOpt{Addr: rd.Addr})
	defer insp.Close()
	m := &chaosMonkey{fleet: f, pg: pg, redis: rd, db: db, workers: workers, every: o.killEvery, pgMode: o.pgMode,
		inspector: insp, queues: jobs.PrefixedQueues("chaos-")}
	sharedfleet.Step("running %d cases (AUTO and SUPERVISED) with %s of chaos: SIGKILL a worker every ~%s, one FLUSHALL, one postgres restart (-m %s)",
		o.cases, o.chaos, o.killEvery, o.pgMode)
	apCtx, apCancel := context.WithCancel(ctx)
	var apWG sync.WaitGroup
	apWG.Add(1)
	go func() { defer apWG.Done(); ap.loop(apCtx, 4) }()
	defer func() { apCancel(); apWG.Wait() }()
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); fd.run(ctx, o.chaos*85/100, 6) }()
	go func() { defer wg.Done(); m.run(ctx, o.chaos) }()
	wg.Wait()
	chaosEnd := time.Now()
	for _, s := range workers { // a worker that died by itself would hide stranded work
		if !f.Alive(s) {
			m.log("%s was not running at the end of the chaos; restarting", s)
			_, _, _ = f.KillRestart(s)
		}
	}
	sharedfleet.Step("chaos over; waiting up to %s for quiescence", o.settle)
	b, took := waitQuiet(ctx, db, ap, o.settle)
	sharedfleet.Step("quiescence check after %s: %s", took.Round(100*time.Millisecond), b)
	apCancel()
	apWG.Wait()
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	vctx, vcancel := context.WithTimeout(context.WithoutCancel(ctx), 60*time.Second)
	defer vcancel()
	rep, err := verify(vctx, db, fd.cases, ap.snapshot(), sk, m.kills, time.Now())
	if err != nil {
		return false, fmt.Errorf("verify: %w", err)
	}
	for _, e := range m.errs {
		rep.bad("chaos action failed: %v", e)
	}
	_ = chaosEnd
	fmt.Printf("    logs: %s\n", filepath.Join(dir, "logs"))
	rep.queuedAtKill = m.queued
	rep.print(m.events, len(m.kills), time.Since(begin), c.retries.Load())
	return rep.failed(), nil
}
