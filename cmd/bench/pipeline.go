package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hibiken/asynq"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/foiaflow/foiaflow/cmd/internal/fleet"
	"github.com/foiaflow/foiaflow/dataset"
)

// bench is the state of one pipeline run.
type bench struct {
	o          options
	db         *pgxpool.Pool // the bench database, for measurements
	c          *fleet.Client
	replies    []dataset.Reply
	metricsURL string
	pprofURL   string // the worker's CPU profile; apiPprof the api's
	apiPprof   string
	workerPID  int
	pids       map[string]int // api, worker, scheduler
	next       atomic.Int64   // case numbering
}

// prepared is a case created through the API and its reply, ready to post.
type prepared struct {
	k   fleet.Case
	raw []byte
}

// runStats is what measureRuns found for a set of runs.
type runStats struct {
	n, done, steps int
	lat            []float64 // inbound → parked/completed, ms
	window         float64   // first created → last step finished, s
	status         map[string]int
}

func (s runStats) runsPerSec() float64  { return float64(s.done) / max(s.window, 1e-9) }
func (s runStats) stepsPerSec() float64 { return float64(s.steps) / max(s.window, 1e-9) }

// row is one line of the printed table.
type row struct {
	phase, n, perSec, steps, p50, p99, pmax, load, note string
}

func run(ctx context.Context, o options) (err error) {
	dir, err := filepath.Abs(o.dir)
	if err != nil {
		return err
	}
	left, err := fleet.Guard(dir)
	if err != nil {
		return err
	}
	prefix := "bench-" + fleet.RandHex(3) + "-"
	defer cleanQueues(o.redisAddr, prefix)
	step("recreating database %s", o.dbName)
	if err := fleet.RecreateDB(ctx, o.adminURL, o.dbName); err != nil {
		return err
	}
	dbURL := strings.Replace(o.adminURL, "/postgres?", "/"+o.dbName+"?", 1)
	if dbURL == o.adminURL {
		return fmt.Errorf("-admin-url must name the postgres database with query parameters, got %s", o.adminURL)
	}
	ports := make([]int, 4)
	for i := range ports {
		if ports[i], err = fleet.FreePort(); err != nil {
			return err
		}
	}
	key, secret := "bench-admin-"+fleet.RandHex(8), fleet.RandHex(16)
	f := &fleet.Fleet{Dir: dir, Left: left, Env: append(os.Environ(),
		"DATABASE_URL="+dbURL, "REDIS_ADDR="+o.redisAddr, "QUEUE_PREFIX="+prefix,
		fmt.Sprintf("DATABASE_MAX_CONNS=%d", o.dbConns), fmt.Sprintf("WORKER_CONCURRENCY=%d", o.concurrency),
		fmt.Sprintf("API_ADDR=127.0.0.1:%d", ports[0]), "API_BOOTSTRAP_ADMIN_KEY="+key, "INBOUND_RAW_SECRET="+secret,
		"MAIL_DOMAIN=bench.foiaflow.local", "MAIL_FROM=foiaflow bench <requests@bench.foiaflow.local>",
		"MAIL_SINK_DIR="+filepath.Join(dir, "outbox"), "SEND_BUSINESS_HOURS=false", "SEND_MAX_JITTER=0s",
		"ANALYZER=offline", "DRAFTER=offline", "SMTP_HOST=", "DECISIONS_PER_CASE_PER_MINUTE=1000",
		fmt.Sprintf("WORKER_METRICS_ADDR=127.0.0.1:%d", ports[1]), fmt.Sprintf("SCHEDULER_METRICS_ADDR=127.0.0.1:%d", ports[2]),
		fmt.Sprintf("WORKER_POLL_INTERVAL=%s", o.poll), "LOG_LEVEL=info")}
	_ = os.RemoveAll(filepath.Join(dir, "outbox"))
	step("building api, worker and scheduler")
	if err := f.Build(ctx); err != nil {
		return err
	}
	step("migrating")
	if err := f.Run(ctx, "worker", "migrate"); err != nil {
		return err
	}
	step("ceiling: in-process asynq server (concurrency %d), advisory lock + read + upsert + enqueue, %s", o.concurrency, o.ceilingFor)
	ceil, err := runCeiling(ctx, dbURL, o, prefix+"ceil-")
	if err != nil {
		return fmt.Errorf("ceiling: %w", err)
	}
	fmt.Printf("    %d tasks in %.1fs = %.0f steps/s (%d lock-busy)\n", ceil.tasks, ceil.window.Seconds(), ceil.perSec, ceil.busy)
	db, err := pgxpool.New(ctx, dbURL)
	if err != nil {
		return err
	}
	defer db.Close()
	step("starting api (127.0.0.1:%d), worker and scheduler; logs in %s", ports[0], filepath.Join(dir, "logs"))
	defer func() {
		step("stopping the fleet")
		if serr := f.Stop(); serr != nil && err == nil {
			err = serr
		}
		left.Done()
		if err != nil {
			err = fmt.Errorf("%w (see logs in %s)", err, filepath.Join(dir, "logs"))
		}
	}()
	b := &bench{o: o, db: db, c: &fleet.Client{Base: fmt.Sprintf("http://127.0.0.1:%d", ports[0]), Key: key,
		Secret: []byte(secret), HTTP: &http.Client{Timeout: 30 * time.Second,
			Transport: &http.Transport{MaxIdleConnsPerHost: 64}}},
		metricsURL: fmt.Sprintf("http://127.0.0.1:%d/metrics", ports[1]),
		pprofURL:   fmt.Sprintf("http://127.0.0.1:%d/debug/pprof/profile", ports[1]),
		apiPprof:   fmt.Sprintf("http://127.0.0.1:%d/debug/pprof/profile", ports[3]), pids: map[string]int{}}
	workerEnv := []string{"DB_TRACE_COUNT=true"}
	var apiEnv []string
	if o.pprof {
		workerEnv = append(workerEnv, "PPROF=true")
		apiEnv = append(apiEnv, fmt.Sprintf("API_PPROF_ADDR=127.0.0.1:%d", ports[3]))
	}
	for _, p := range []struct {
		name string
		env  []string
	}{{"api", apiEnv}, {"worker", workerEnv}, {"scheduler", nil}} {
		pid, err := f.Start(p.name, p.env...)
		if err != nil {
			return err
		}
		b.pids[p.name] = pid
	}
	b.workerPID = b.pids["worker"]
	rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for _, u := range []string{b.c.Base + "/readyz", fmt.Sprintf("http://127.0.0.1:%d/readyz", ports[1])} {
		if err := fleet.WaitReady(rctx, u); err != nil {
			return err
		}
	}
	if b.replies, err = dataset.Corpus(); err != nil {
		return err
	}
	return b.phases(ctx, ceil, dir)
}

// phases runs full load, approvals, idle and half load, then prints.
func (b *bench) phases(ctx context.Context, ceil ceilingResult, dir string) error {
	o := b.o
	var rows []row
	rows = append(rows, row{phase: "ceiling (in-process)", n: fmt.Sprint(ceil.tasks), perSec: "-",
		steps: fmt.Sprintf("%.0f", ceil.perSec), p50: "-", p99: "-", pmax: "-", load: ceil.load,
		note: fmt.Sprintf("%d lock-busy", ceil.busy)})

	step("full load: creating %d cases through the API", o.cases)
	full, err := b.prepare(ctx, o.cases)
	if err != nil {
		return err
	}
	q0, err := scrape(ctx, b.metricsURL, "foiaflow_db_queries_total")
	if err != nil {
		return err
	}
	s0, err := scrape(ctx, b.metricsURL, "foiaflow_db_statements_total")
	if err != nil {
		return err
	}
	step("full load: posting %d corpus replies from %d concurrent posters", len(full), o.posters)
	profs := map[string]chan error{}
	if o.pprof {
		for name, url := range map[string]string{"worker": b.pprofURL, "api": b.apiPprof} {
			ch := make(chan error, 1)
			profs[name] = ch
			go func() { ch <- saveProfile(ctx, url, filepath.Join(dir, name+".cpu.pprof"), 30*time.Second) }()
		}
	}
	c0, _ := cpuSeconds(b.workerPID)
	mb0, mt0 := machineBusy()
	cpu0 := sampleCPU(b.pids, o.dbName)
	t0 := time.Now()
	raws, err := b.postAll(ctx, full, o.posters)
	if err != nil {
		return err
	}
	postDur := time.Since(t0)
	ids, err := b.waitRuns(ctx, raws, 3*time.Minute, bulkPoll)
	if err != nil {
		return err
	}
	fullLoad := loadavg()
	c1, _ := cpuSeconds(b.workerPID)
	mb1, mt1 := machineBusy()
	cpuFull := cpu0.to(sampleCPU(b.pids, o.dbName))
	fs, err := b.measureRuns(ctx, ids)
	if err != nil {
		return err
	}
	q1, err := scrape(ctx, b.metricsURL, "foiaflow_db_queries_total")
	if err != nil {
		return err
	}
	s1, err := scrape(ctx, b.metricsURL, "foiaflow_db_statements_total")
	if err != nil {
		return err
	}
	qps := (q1 - q0) / float64(max(fs.steps, 1))
	sps := (s1 - s0) / float64(max(fs.steps, 1))
	for _, name := range []string{"api", "worker"} {
		if ch := profs[name]; ch != nil {
			if err := <-ch; err != nil {
				fmt.Printf("    %s cpu profile: %v\n", name, err)
			} else {
				fmt.Printf("    %s cpu profile: %s\n", name, filepath.Join(dir, name+".cpu.pprof"))
			}
		}
	}
	cpuNote := fmt.Sprintf("worker CPU %.2f ms/step; machine CPU busy %.0f%% during full load",
		(c1-c0)*1000/float64(max(fs.steps, 1)), 100*(mb1-mb0)/max(mt1-mt0, 1))
	rows = append(rows, runRow("pipeline full load", fs, fullLoad,
		fmt.Sprintf("posted in %.1fs; %s; %.1f steps/run", postDur.Seconds(), statusNote(fs.status), float64(fs.steps)/float64(max(fs.done, 1)))))

	step("approvals: approving every parked email proposal through the API")
	ap, err := b.approveAll(ctx, ids)
	if err != nil {
		return err
	}
	rows = append(rows, row{phase: "approve → email sent", n: fmt.Sprint(len(ap.lat)), perSec: fmt.Sprintf("%.1f", ap.perSec),
		steps: "-", p50: ms(pct(ap.lat, 50)), p99: ms(pct(ap.lat, 99)), pmax: ms(pct(ap.lat, 100)), load: loadavg(),
		note: fmt.Sprintf("%d approved, %s", ap.approved, ap.note)})

	step("idle: %d cases one at a time", o.idle)
	is, err := b.idlePhase(ctx, o.idle)
	if err != nil {
		return err
	}
	rows = append(rows, runRow("pipeline idle (sequential)", is, loadavg(), statusNote(is.status)))

	rate := fs.runsPerSec() / 2
	n := min(max(int(rate*o.halfFor.Seconds()), 10), 5000)
	step("half load: %d cases paced at %.1f runs/s", n, rate)
	hs, err := b.pacedPhase(ctx, n, rate)
	if err != nil {
		return err
	}
	rows = append(rows, runRow(fmt.Sprintf("pipeline half load (%.1f/s)", rate), hs, loadavg(), statusNote(hs.status)))

	rss, err := rssMiB(b.workerPID)
	if err != nil {
		return err
	}
	printTable(rows)
	ratio := fs.stepsPerSec() / ceil.perSec
	fmt.Printf("Postgres queries (round trips) per step (worker, full load): %.1f; statements per step: %.1f\n", qps, sps)
	fmt.Printf("worker RSS at end: %.0f MiB\n", rss)
	fmt.Println(cpuNote)
	fmt.Println(ceil.cpu.note("the ceiling", "step", int(ceil.tasks)))
	fmt.Println(cpuFull.note("full load", "run", fs.done))
	fmt.Println(cpuFull.note("full load", "step", fs.steps))
	fmt.Printf("targets: ratio >= 0.6 (%.2f), idle p50 <= 50 ms (%s), half-load p99 <= 250 ms (%s)\n",
		ratio, ms(pct(is.lat, 50)), ms(pct(hs.lat, 99)))
	// Each latency is named for its phase: the full-load inbound→parked
	// figures are queueing under a burst and stay in the table above.
	fmt.Printf("bench: runs_per_s=%.1f steps_per_s=%.0f ceiling_steps_per_s=%.0f ratio=%.2f idle_p50_ms=%.0f half_p99_ms=%.0f queries_per_step=%.1f\n",
		fs.runsPerSec(), fs.stepsPerSec(), ceil.perSec, ratio, pct(is.lat, 50), pct(hs.lat, 99), qps)
	return nil
}

func runRow(name string, s runStats, load, note string) row {
	perSec, steps := fmt.Sprintf("%.1f", s.runsPerSec()), fmt.Sprintf("%.0f", s.stepsPerSec())
	if s.window == 0 {
		perSec, steps = "-", "-"
	}
	return row{phase: name, n: fmt.Sprintf("%d/%d", s.done, s.n), perSec: perSec, steps: steps, p50: ms(pct(s.lat, 50)), p99: ms(pct(s.lat, 99)),
		pmax: ms(pct(s.lat, 100)), load: load, note: note}
}

func ms(v float64) string { return fmt.Sprintf("%.0f", v) }

func statusNote(m map[string]int) string {
	var parts []string
	for _, s := range []string{"parked", "completed", "failed", "superseded", "cancelled", "queued", "running"} {
		if m[s] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", s, m[s]))
		}
	}
	return strings.Join(parts, ", ")
}

// prepare creates n cases through the API (8 at a time) and builds their
// replies, cycling through the corpus.
func (b *bench) prepare(ctx context.Context, n int) ([]prepared, error) {
	out := make([]prepared, n)
	err := parallel(ctx, n, 8, func(ctx context.Context, i int) error {
		num := int(b.next.Add(1))
		r := b.replies[num%len(b.replies)]
		subject := fmt.Sprintf("Records request %d (%s)", num, r.Name)
		k, err := b.c.CreateCase(ctx, num, subject)
		if err != nil {
			return err
		}
		raw, err := fleet.ReplyMIME(k, r, subject, "bench")
		out[i] = prepared{k: k, raw: raw}
		return err
	})
	return out, err
}

// post posts one reply to the signed webhook, as a mail provider does
// (answered once the bytes are stored; nothing waits for the parse), and
// returns its raw message id. waitRuns finds the run it started.
func (b *bench) post(ctx context.Context, p prepared) (int64, error) {
	var rc struct {
		RawMessageID int64 `json:"raw_message_id"`
		Duplicate    bool  `json:"duplicate"`
	}
	if err := b.c.PostMIME(ctx, p.raw, &rc); err != nil {
		return 0, err
	}
	if rc.Duplicate || rc.RawMessageID == 0 {
		return 0, fmt.Errorf("reply to case %d was not stored as a new message (raw %d, duplicate %v)", p.k.ID, rc.RawMessageID, rc.Duplicate)
	}
	return rc.RawMessageID, nil
}

// postAll posts every reply from workers concurrent posters and returns
// their raw message ids.
func (b *bench) postAll(ctx context.Context, ps []prepared, workers int) ([]int64, error) {
	ids := make([]int64, len(ps))
	err := parallel(ctx, len(ps), workers, func(ctx context.Context, i int) error {
		var err error
		ids[i], err = b.post(ctx, ps[i])
		return err
	})
	return ids, err
}

// parallel calls fn(i) for i in [0,n) from workers goroutines; the first
// error cancels the rest.
func parallel(ctx context.Context, n, workers int, fn func(context.Context, int) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Go(func() {
			for ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if err := fn(ctx, i); err != nil {
					cancel(err)
				}
			}
		})
	}
	wg.Wait()
	if err := context.Cause(ctx); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return ctx.Err()
}

// bulkPoll is how often waitRuns polls for a phase of many runs: often
// enough to end the phase promptly, rarely enough that the bench's own
// queries stay out of the pipeline's CPU budget.
const bulkPoll = 100 * time.Millisecond

// terminal run statuses: the run stopped on its own (parked at a gate or
// finished).
const terminal = `('parked','completed','failed','superseded','cancelled')`

// runOfRaw joins a raw message (raw_messages.id = $1's elements) to the
// run its parse started (through the matched message and its case); run
// is NULL until the parse committed or when it started none.
const runOfRaw = `FROM raw_messages rm
	LEFT JOIN messages m ON m.id = rm.message_row_id
	LEFT JOIN runs r ON r.case_id = m.case_id AND r.trigger_message_id = m.id
	WHERE rm.id = ANY($1)`

// waitRuns polls Postgres every interval until every raw message in raws is
// parsed and the run it started is terminal, and returns those runs (in the
// order of raws). A message whose parse started no run is an error. The
// poll only decides when the bench moves on: every figure is read from
// Postgres timestamps afterwards. While any message of the database is
// unparsed or any run active it only counts those through their partial
// indexes, so that the bench's own queries stay cheap during a phase.
func (b *bench) waitRuns(ctx context.Context, raws []int64, limit, interval time.Duration) ([]int64, error) {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	for {
		var busy bool
		err := b.db.QueryRow(ctx, `SELECT EXISTS (SELECT FROM raw_messages WHERE status = 'received')
			OR EXISTS (SELECT FROM runs WHERE status IN ('queued','running'))`).Scan(&busy)
		var open int
		if err == nil && !busy {
			err = b.db.QueryRow(ctx, `SELECT count(*) `+runOfRaw+` AND (rm.status = 'received' OR r.status NOT IN `+terminal+`)`,
				raws).Scan(&open)
		}
		if err != nil {
			return nil, fmt.Errorf("waiting for %d runs: %w", len(raws), err)
		}
		if !busy && open == 0 {
			break
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%d of %d replies were not parsed or their runs did not park or complete (database busy: %v): %w",
				open, len(raws), busy, ctx.Err())
		case <-time.After(interval):
		}
	}
	rows, err := b.db.Query(ctx, `SELECT rm.id, rm.status, min(r.id) `+runOfRaw+` GROUP BY rm.id`, raws)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	runOf := map[int64]int64{}
	for rows.Next() {
		var raw int64
		var status string
		var run *int64
		if err := rows.Scan(&raw, &status, &run); err != nil {
			return nil, err
		}
		if run == nil {
			return nil, fmt.Errorf("raw message %d (%s) started no run", raw, status)
		}
		runOf[raw] = *run
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	ids := make([]int64, len(raws))
	for i, raw := range raws {
		if ids[i] = runOf[raw]; ids[i] == 0 {
			return nil, fmt.Errorf("raw message %d not found", raw)
		}
	}
	return ids, nil
}

// measureRuns reads latencies and throughput of runs from Postgres: from
// runs.created_at (the inbound transaction) to the last step's finished_at.
func (b *bench) measureRuns(ctx context.Context, ids []int64) (runStats, error) {
	rows, err := b.db.Query(ctx, `SELECT r.status, extract(epoch FROM r.created_at)::float8,
		coalesce(extract(epoch FROM max(s.finished_at))::float8, 0), count(s.run_id)
		FROM runs r LEFT JOIN run_steps s ON s.run_id = r.id WHERE r.id = ANY($1) GROUP BY r.id`, ids)
	if err != nil {
		return runStats{}, err
	}
	defer rows.Close()
	s := runStats{n: len(ids), status: map[string]int{}}
	first, last := 0.0, 0.0
	for rows.Next() {
		var status string
		var created, finished float64
		var steps int
		if err := rows.Scan(&status, &created, &finished, &steps); err != nil {
			return s, err
		}
		s.status[status]++
		s.steps += steps
		if first == 0 || created < first {
			first = created
		}
		if finished > last {
			last = finished
		}
		if status == "parked" || status == "completed" {
			s.done++
			s.lat = append(s.lat, (finished-created)*1000)
		}
	}
	s.window = last - first
	return s, rows.Err()
}

// idlePhase runs n cases one at a time: post, wait until the run stops,
// pause, next.
func (b *bench) idlePhase(ctx context.Context, n int) (runStats, error) {
	ps, err := b.prepare(ctx, n)
	if err != nil {
		return runStats{}, err
	}
	ids := make([]int64, 0, n)
	for _, p := range ps {
		raw, err := b.post(ctx, p)
		if err != nil {
			return runStats{}, err
		}
		id, err := b.waitRuns(ctx, []int64{raw}, 30*time.Second, 2*time.Millisecond)
		if err != nil {
			return runStats{}, err
		}
		ids = append(ids, id...)
		select {
		case <-ctx.Done():
			return runStats{}, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	s, err := b.measureRuns(ctx, ids)
	s.window = 0 // sequential: throughput is meaningless
	return s, err
}

// pacedPhase posts n replies at rate per second (open loop: each arrival
// at its scheduled time, whatever the previous ones are doing).
func (b *bench) pacedPhase(ctx context.Context, n int, rate float64) (runStats, error) {
	ps, err := b.prepare(ctx, n)
	if err != nil {
		return runStats{}, err
	}
	raws := make([]int64, n)
	errs := make(chan error, n)
	var wg sync.WaitGroup
	start := time.Now()
	for i, p := range ps {
		at := start.Add(time.Duration(float64(i) / rate * float64(time.Second)))
		select {
		case <-ctx.Done():
			return runStats{}, ctx.Err()
		case <-time.After(time.Until(at)):
		}
		wg.Go(func() {
			raw, err := b.post(ctx, p)
			raws[i] = raw
			if err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return runStats{}, err
	}
	ids, err := b.waitRuns(ctx, raws, 2*time.Minute, bulkPoll)
	if err != nil {
		return runStats{}, err
	}
	return b.measureRuns(ctx, ids)
}

// approvals is what approveAll measured.
type approvals struct {
	approved int
	lat      []float64 // decision created → email sent, ms
	perSec   float64   // emails sent per second over the phase
	note     string
}

// emailActions are the gate actions whose approval sends an email.
var emailActions = []string{"APPROVE_FEE", "SEND_FOLLOWUP", "SEND_REBUTTAL", "SEND_APPEAL", "SEND_CLARIFICATION", "SEND_INITIAL_REQUEST"}

// approveAll approves, through the API, every parked email proposal of the
// runs ids, waits until their emails are handed to the sink and measures
// decisions.created_at → email_sends.sent_at.
func (b *bench) approveAll(ctx context.Context, ids []int64) (approvals, error) {
	type gate struct {
		caseID, proposalID int64
		version            int
	}
	rows, err := b.db.Query(ctx, `SELECT case_id, (interrupt->>'proposal_id')::bigint, (interrupt->>'version')::int
		FROM runs WHERE id = ANY($1) AND status = 'parked' AND interrupt->>'action' = ANY($2)`, ids, emailActions)
	if err != nil {
		return approvals{}, err
	}
	var gates []gate
	for rows.Next() {
		var g gate
		if err := rows.Scan(&g.caseID, &g.proposalID, &g.version); err != nil {
			rows.Close()
			return approvals{}, err
		}
		gates = append(gates, g)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return approvals{}, err
	}
	decisions := make([]int64, len(gates))
	cases := make([]int64, len(gates))
	err = parallel(ctx, len(gates), b.o.posters, func(ctx context.Context, i int) error {
		g := gates[i]
		cases[i] = g.caseID
		var err error
		decisions[i], _, err = b.c.Approve(ctx, g.caseID, g.proposalID, g.version)
		return err
	})
	if err != nil {
		return approvals{}, err
	}
	wctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	for {
		var pending int
		err := b.db.QueryRow(wctx, `SELECT
			(SELECT count(*) FROM decisions WHERE id = ANY($1) AND status = 'accepted') +
			(SELECT count(*) FROM runs WHERE case_id = ANY($2) AND status IN ('queued','running')) +
			(SELECT count(*) FROM email_sends e JOIN decisions d ON d.proposal_id = e.proposal_id
			  WHERE d.id = ANY($1) AND e.status IN ('QUEUED','SENDING'))`, decisions, cases).Scan(&pending)
		if err != nil {
			return approvals{}, fmt.Errorf("waiting for approvals: %w", err)
		}
		if pending == 0 {
			break
		}
		select {
		case <-wctx.Done():
			return approvals{}, fmt.Errorf("%d decisions, runs or sends still pending: %w", pending, wctx.Err())
		case <-time.After(5 * time.Millisecond):
		}
	}
	a := approvals{approved: len(gates)}
	rows, err = b.db.Query(ctx, `SELECT extract(epoch FROM d.created_at)::float8, extract(epoch FROM e.sent_at)::float8
		FROM decisions d JOIN email_sends e ON e.proposal_id = d.proposal_id
		WHERE d.id = ANY($1) AND e.status = 'SENT'`, decisions)
	if err != nil {
		return a, err
	}
	defer rows.Close()
	first, last := 0.0, 0.0
	for rows.Next() {
		var created, sent float64
		if err := rows.Scan(&created, &sent); err != nil {
			return a, err
		}
		a.lat = append(a.lat, (sent-created)*1000)
		if first == 0 || created < first {
			first = created
		}
		last = max(last, sent)
	}
	if err := rows.Err(); err != nil {
		return a, err
	}
	if last > first {
		a.perSec = float64(len(a.lat)) / (last - first)
	}
	var rejected int
	_ = b.db.QueryRow(ctx, `SELECT count(*) FROM decisions WHERE id = ANY($1) AND status = 'rejected'`, decisions).Scan(&rejected)
	a.note = fmt.Sprintf("%d emails sent, %d decisions rejected", len(a.lat), rejected)
	return a, nil
}

// cleanQueues deletes the bench's asynq queues from Redis.
func cleanQueues(addr, prefix string) {
	in := asynq.NewInspector(asynq.RedisClientOpt{Addr: addr})
	defer in.Close()
	qs, err := in.Queues()
	if err != nil {
		return
	}
	for _, q := range qs {
		if strings.HasPrefix(q, prefix) {
			_ = in.DeleteQueue(q, true)
		}
	}
}
