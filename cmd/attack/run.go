package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/foiaflow/foiaflow/blobstore"
	"github.com/foiaflow/foiaflow/cmd/internal/fleet"
)

const (
	mailDomain   = "attack.foiaflow.local"
	autoSendsCap = 3 // AUTO_SENDS_PER_CASE_PER_DAY of the fleet under attack
)

// run starts the private services and the fleet, replays the attacks,
// checks the invariants and prints the report. It returns whether a
// counter is not zero.
func run(ctx context.Context, o options) (bool, error) {
	begin := time.Now()
	dir, err := filepath.Abs(o.dir)
	if err != nil {
		return false, err
	}
	left, err := fleet.Guard(dir)
	if err != nil {
		return false, err
	}
	defer left.Done()
	for _, d := range []string{"logs", "data", "outbox"} {
		_ = os.RemoveAll(filepath.Join(dir, d))
	}
	priv, err := fleet.StartPrivate(ctx, "attack", "foiaflow", left)
	if err != nil {
		return false, err
	}
	defer priv.Stop()
	pg, rd := priv.PG, priv.Redis

	key, secret, mgKey := "attack-admin-"+fleet.RandHex(8), fleet.RandHex(16), fleet.RandHex(16)
	dataDir, sinkDir := filepath.Join(dir, "data"), filepath.Join(dir, "outbox")
	f := &fleet.Fleet{Dir: dir, Left: left, Env: append(os.Environ(),
		"DATABASE_URL="+pg.URL("foiaflow", "attack-fleet"), "REDIS_ADDR="+rd.Addr, "QUEUE_PREFIX=attack-",
		fmt.Sprintf("API_ADDR=127.0.0.1:%d", priv.APIPort), "API_BOOTSTRAP_ADMIN_KEY="+key, "INBOUND_RAW_SECRET="+secret,
		"MAILGUN_SIGNING_KEY="+mgKey, "MAIL_ID_SECRET="+fleet.RandHex(32), "MAIL_DOMAIN="+mailDomain,
		"MAIL_FROM=foiaflow attack <requests@"+mailDomain+">", "MAIL_SINK_DIR="+sinkDir, "SMTP_HOST=",
		"SEND_BUSINESS_HOURS=false", "SEND_MAX_JITTER=0s", "ANALYZER=offline", "DRAFTER=offline",
		"FEE_AUTO_APPROVE_MAX_CENTS=5000", fmt.Sprintf("AUTO_SENDS_PER_CASE_PER_DAY=%d", autoSendsCap),
		"DECISIONS_PER_CASE_PER_MINUTE=1000", fmt.Sprintf("INBOUND_MAX_BYTES=%d", 32<<20),
		"DATA_DIR="+dataDir, "MESSAGE_STORE=dir", "WORKER_SHUTDOWN_TIMEOUT=5s",
		"WORKER_METRICS_ADDR=127.0.0.1:0", "SCHEDULER_METRICS_ADDR=127.0.0.1:0", "LOG_LEVEL=info")}
	fleet.Step("building api, worker and scheduler into %s", filepath.Join(dir, "bin"))
	if err := f.Build(ctx); err != nil {
		return false, err
	}
	if err := f.Run(ctx, "worker", "migrate"); err != nil {
		return false, err
	}
	defer func() {
		if err := f.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "attack: stopping the fleet:", err)
		}
	}()
	pids := map[string]int{}
	for _, name := range []string{"api", "worker", "scheduler"} {
		if pids[name], err = f.Start(name); err != nil {
			return false, err
		}
	}
	base := fmt.Sprintf("http://127.0.0.1:%d", priv.APIPort)
	rctx, rcancel := context.WithTimeout(ctx, 60*time.Second)
	err = fleet.WaitReady(rctx, base+"/readyz")
	rcancel()
	if err != nil {
		return false, err
	}
	db, err := pgxpool.New(ctx, pg.URL("foiaflow", "attack-harness"))
	if err != nil {
		return false, err
	}
	defer db.Close()
	blobs, err := blobstore.NewDir(filepath.Join(dataDir, "messages")) // MESSAGE_STORE=dir keeps DATA_DIR/messages
	if err != nil {
		return false, err
	}
	a := &attack{o: o, db: db, blobs: blobs, pg: pg, sinkDir: sinkDir, mgKey: []byte(mgKey),
		c:        &client{fc: &fleet.Client{Base: base, Key: key, Secret: []byte(secret), HTTP: &http.Client{Timeout: 60 * time.Second}}},
		accepted: map[int64]string{}, expect: map[string]expectation{}}
	if err := a.replay(ctx); err != nil {
		return false, fmt.Errorf("%w (logs in %s)", err, filepath.Join(dir, "logs"))
	}
	vctx, vcancel := context.WithTimeout(context.WithoutCancel(ctx), 60*time.Second)
	defer vcancel()
	rep, err := a.verify(vctx)
	if err != nil {
		return false, fmt.Errorf("verify: %w", err)
	}
	for _, name := range []string{"api", "worker"} {
		mb, err := peakRSSMB(pids[name])
		if err != nil {
			return false, err
		}
		fmt.Printf("    %s peak RSS (VmHWM): %d MB\n", name, mb)
		rep.maxRSSMB = max(rep.maxRSSMB, mb)
	}
	fmt.Printf("    logs: %s; .eml sink: %s; took %s\n", filepath.Join(dir, "logs"), sinkDir, time.Since(begin).Round(time.Second))
	rep.print()
	return rep.failed(), nil
}

// peakRSSMB reads VmHWM (peak resident set) of pid from /proc, in MB.
func peakRSSMB(pid int) (int, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, fmt.Errorf("read status of pid %d: %w", pid, err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			var kb int
			if _, err := fmt.Sscanf(strings.TrimSpace(rest), "%d kB", &kb); err != nil {
				return 0, fmt.Errorf("VmHWM of pid %d: %q: %w", pid, rest, err)
			}
			return (kb + 1023) / 1024, nil
		}
	}
	return 0, fmt.Errorf("no VmHWM for pid %d", pid)
}
