package main

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/foiaflow/foiaflow/workflow"
)

// backlog counts work still in flight according to Postgres.
type backlog struct {
	runs, decisions, sends, outbox int
}

func (b backlog) zero() bool { return b.runs == 0 && b.decisions == 0 && b.sends == 0 }

func (b backlog) String() string {
	return fmt.Sprintf("runs queued/running=%d decisions accepted=%d sends QUEUED/SENDING=%d outbox undispatched=%d",
		b.runs, b.decisions, b.sends, b.outbox)
}

func readBacklog(ctx context.Context, db *pgxpool.Pool) (backlog, error) {
	var b backlog
	err := db.QueryRow(ctx, `SELECT
		(SELECT count(*) FROM runs WHERE status IN ('queued','running')),
		(SELECT count(*) FROM decisions WHERE status = 'accepted'),
		(SELECT count(*) FROM email_sends WHERE status IN ('QUEUED','SENDING')),
		(SELECT count(*) FROM outbox WHERE dispatched_at IS NULL)`).Scan(&b.runs, &b.decisions, &b.sends, &b.outbox)
	return b, err
}

// waitQuiet polls until nothing is in flight and no approvals are pending
// for two consecutive polls, or until limit. It returns the last backlog.
func waitQuiet(ctx context.Context, db *pgxpool.Pool, ap *approver, limit time.Duration) (backlog, time.Duration) {
	start := time.Now()
	quiet := 0
	var b backlog
	for time.Since(start) < limit && ctx.Err() == nil {
		var err error
		b, err = readBacklog(ctx, db)
		if err == nil && b.zero() && len(ap.pending(ctx)) == 0 {
			quiet++
			if quiet >= 2 {
				return b, time.Since(start)
			}
		} else {
			quiet = 0
		}
		select {
		case <-ctx.Done():
		case <-time.After(500 * time.Millisecond):
		}
	}
	return b, time.Since(start)
}

// windowDup is a resend inside the I5 window: delivered at first, not
// recorded, delivered again at again, recorded SENT at sentAt.
type windowDup struct {
	key                  string
	first, again, sentAt time.Time
}

// report is the verdict of a chaos run.
type report struct {
	cases, posted, redelivered, emails        int
	duplicates, window, missingAtSink         int
	unknownAtSink, failedSends                int
	lostReplies, dupReplies                   int
	stranded                                  int
	strandedDetail                            backlog
	unexpected                                []string
	recoveryMax                               time.Duration
	recoveryWhat                              string
	recoveries                                int
	unrecovered                               []string
	approvals, approvalsApplied, approvalsBad int
	finalRuns                                 map[string]int
	windowDetail                              []windowDup
	maxByKind                                 map[string]time.Duration
	queuedAtKill                              int // steps of held case locks waiting in a queue (not measured)
}

func (r *report) bad(format string, args ...any) {
	if len(r.unexpected) < 1000 {
		r.unexpected = append(r.unexpected, fmt.Sprintf(format, args...))
	}
}

// verify checks Postgres and the SMTP sink against what was posted and
// approved.
func verify(ctx context.Context, db *pgxpool.Pool, cases []*chaosCase, aps []approval, s *sink, kills []kill, end time.Time) (*report, error) {
	r := &report{cases: len(cases), finalRuns: map[string]int{}, maxByKind: map[string]time.Duration{}}
	if err := verifyReplies(ctx, db, cases, r); err != nil {
		return r, err
	}
	if err := verifyApprovals(ctx, db, aps, r); err != nil {
		return r, err
	}
	if err := verifyEmails(ctx, db, s, r); err != nil {
		return r, err
	}
	b, err := readBacklog(ctx, db)
	if err != nil {
		return r, err
	}
	r.strandedDetail = b
	r.stranded = b.runs + b.decisions + b.sends
	return r, measureRecovery(ctx, db, kills, end, r)
}

// verifyReplies: every posted Message-ID stored exactly once with exactly
// one run, and each case's run in an expected state.
func verifyReplies(ctx context.Context, db *pgxpool.Pool, cases []*chaosCase, r *report) error {
	for _, cc := range cases {
		if cc.twice {
			r.redelivered++
		}
		if !cc.posted {
			r.lostReplies++
			r.bad("case #%d: reply never acknowledged by the webhook: %v", cc.idx, cc.err)
			continue
		}
		r.posted++
		var n, runs int
		err := db.QueryRow(ctx, `SELECT count(*), coalesce(sum((SELECT count(*) FROM runs WHERE trigger_message_id = m.id)),0)
			FROM messages m WHERE m.message_id = $1 AND m.case_id = $2`, cc.messageID, cc.caseID).Scan(&n, &runs)
		if err != nil {
			return err
		}
		switch {
		case n == 0:
			r.lostReplies++
			r.bad("case %d: reply %s acknowledged but not stored", cc.caseID, cc.messageID)
			continue
		case n > 1 || runs > 1:
			r.dupReplies++
			r.bad("case %d: reply %s stored %d times with %d runs", cc.caseID, cc.messageID, n, runs)
		case runs == 0:
			r.lostReplies++
			r.bad("case %d: reply %s stored but started no run", cc.caseID, cc.messageID)
			continue
		}
		var status, action string
		err = db.QueryRow(ctx, `SELECT r.status, coalesce(r.interrupt->>'action','') FROM runs r
			WHERE r.case_id = $1 ORDER BY r.id DESC LIMIT 1`, cc.caseID).Scan(&status, &action)
		if err != nil {
			return fmt.Errorf("run of case %d: %w", cc.caseID, err)
		}
		r.finalRuns[status]++
		switch {
		case status == "completed":
		case status == "parked" && !emailActions[workflow.ActionType(action)]:
		case status == "parked":
			r.bad("case %d: parked at an email gate (%s) that was never approved", cc.caseID, action)
		case status == "queued" || status == "running":
			// counted as stranded from the backlog
		default:
			r.bad("case %d: run ended %s", cc.caseID, status)
		}
	}
	return nil
}

// verifyApprovals: every accepted APPROVE applied, and its proposal's email
// recorded SENT.
func verifyApprovals(ctx context.Context, db *pgxpool.Pool, aps []approval, r *report) error {
	for _, ap := range aps {
		r.approvals++
		if ap.status/100 != 2 {
			r.approvalsBad++
			r.bad("approval of proposal %d v%d: HTTP %d %v", ap.proposalID, ap.version, ap.status, ap.err)
			continue
		}
		var dstatus, reason, send string
		err := db.QueryRow(ctx, `SELECT d.status, d.reject_reason, coalesce((SELECT e.status FROM email_sends e
			WHERE e.proposal_id = d.proposal_id ORDER BY e.id DESC LIMIT 1), '')
			FROM decisions d WHERE d.id = $1`, ap.decisionID).Scan(&dstatus, &reason, &send)
		if err != nil {
			return fmt.Errorf("decision %d: %w", ap.decisionID, err)
		}
		switch {
		case dstatus == "applied" && send == "SENT":
			r.approvalsApplied++
		case dstatus == "accepted":
			// stranded: counted from the backlog
		default:
			r.approvalsBad++
			r.bad("decision %d (proposal %d, %s): %s %q, email %q", ap.decisionID, ap.proposalID, ap.action, dstatus, reason, send)
		}
	}
	return nil
}

// verifyEmails compares email_sends with the sink. A delivery after the
// send was recorded SENT is a true duplicate; extra deliveries before it
// are the I5 window (transport accepted, not recorded, resent with the
// same Message-ID).
func verifyEmails(ctx context.Context, db *pgxpool.Pool, s *sink, r *report) error {
	got, noID := s.snapshot()
	r.unknownAtSink = noID
	rows, err := db.Query(ctx, `SELECT execution_key, message_id, status, attempts, sent_at FROM email_sends ORDER BY id`)
	if err != nil {
		return err
	}
	defer rows.Close()
	known := map[string]bool{}
	for rows.Next() {
		var key, mid, status string
		var attempts int
		var sentAt *time.Time
		if err := rows.Scan(&key, &mid, &status, &attempts, &sentAt); err != nil {
			return err
		}
		known[mid] = true
		ds := got[mid]
		switch status {
		case "SENT":
			r.emails++
			if len(ds) == 0 {
				r.missingAtSink++
				r.bad("email %s recorded SENT but never reached the SMTP sink", key)
				continue
			}
			for i, at := range ds {
				if i == 0 {
					continue
				}
				if at.After(*sentAt) {
					r.duplicates++
					r.bad("email %s delivered again at %s after it was recorded SENT at %s (%d deliveries, %d attempts)",
						key, at.Format("15:04:05.000"), sentAt.Format("15:04:05.000"), len(ds), attempts)
				} else {
					r.window++
					r.windowDetail = append(r.windowDetail, windowDup{key: key, first: ds[i-1], again: at, sentAt: *sentAt})
				}
			}
		case "FAILED":
			r.failedSends++
			r.bad("email %s FAILED after its retries", key)
		}
	}
	for mid, ds := range got {
		if !known[mid] {
			r.unknownAtSink += len(ds)
		}
	}
	if r.unknownAtSink > 0 {
		r.bad("%d deliveries at the sink match no email_sends row", r.unknownAtSink)
	}
	return rows.Err()
}

// measureRecovery: for each kill, the time from the SIGKILL until every
// piece of work the killed worker held was completed by someone — a step or
// resume of a run whose case lock its sessions held (done when run_steps
// has that run's step at the held seq), or an email in SENDING (done at
// sent_at). Work already finished before the kill counts 0.
func measureRecovery(ctx context.Context, db *pgxpool.Pool, kills []kill, end time.Time, r *report) error {
	for _, k := range kills {
		if !k.measured {
			continue
		}
		for _, h := range k.runs {
			var fin, started *time.Time
			var node, worker *string
			var nowSeq int
			var status string
			err := db.QueryRow(ctx, `SELECT s.finished_at, s.started_at, s.node, s.worker_id, r.step_seq, r.status
				FROM runs r LEFT JOIN LATERAL (SELECT finished_at, started_at, node, worker_id FROM run_steps
					WHERE run_id = r.id AND seq = $2 ORDER BY id LIMIT 1) s ON true
				WHERE r.id = $1`, h.runID, h.seq).Scan(&fin, &started, &node, &worker, &nowSeq, &status)
			if err != nil {
				return err
			}
			what := fmt.Sprintf("run %d step %d (case %d) held by %s", h.runID, h.seq, h.caseID, k.slot)
			switch {
			case fin != nil:
				// Where the time went: waiting for a new dispatch and a
				// free worker (kill → started) or running the node again.
				what += fmt.Sprintf("; killed %s, %s started %s on %s, finished %s",
					k.at.Format("15:04:05.000"), *node, started.Format("15:04:05.000"), *worker, fin.Format("15:04:05.000"))
				r.recovered(fin.Sub(k.at), what)
			case nowSeq > h.seq:
				// moved on without a step row (superseded): not measurable
			case h.status == "parked" && status == "parked":
				// The lock guarded a parked run: a late or duplicate task, or a
				// decision rejected as stale — nothing was owed to the run.
			default:
				r.unrecovered = append(r.unrecovered, what+" never completed ("+status+")")
				r.recovered(end.Sub(k.at), what+" (unrecovered)")
			}
		}
		for _, key := range k.sends {
			var sentAt *time.Time
			if err := db.QueryRow(ctx, `SELECT sent_at FROM email_sends WHERE execution_key = $1`, key).Scan(&sentAt); err != nil {
				return err
			}
			what := fmt.Sprintf("email %s in SENDING at a kill of %s", key, k.slot)
			if sentAt == nil {
				r.unrecovered = append(r.unrecovered, what+" never sent")
				r.recovered(end.Sub(k.at), what+" (unrecovered)")
				continue
			}
			r.recovered(sentAt.Sub(k.at), what)
		}
	}
	return nil
}

func (r *report) recovered(d time.Duration, what string) {
	if d < 0 {
		d = 0
	}
	r.recoveries++
	kind := strings.Fields(what)[0]
	r.maxByKind[kind] = max(r.maxByKind[kind], d)
	if d > r.recoveryMax {
		r.recoveryMax, r.recoveryWhat = d, what
	}
}

// print writes the summary; the last line is the measuring contract.
func (r *report) print(events []event, kills int, elapsed time.Duration, retries int64) {
	fmt.Println()
	fmt.Println("==> chaos summary")
	fmt.Printf("    elapsed %s, %d worker kills, chaos events %d, client retries %d\n", elapsed.Round(time.Second), kills, len(events), retries)
	fmt.Printf("    cases %d, replies acknowledged %d (+%d redelivered with the same Message-ID), duplicate replies stored %d, lost %d\n",
		r.cases, r.posted, r.redelivered, r.dupReplies, r.lostReplies)
	var fr []string
	for k, v := range r.finalRuns {
		fr = append(fr, fmt.Sprintf("%s=%d", k, v))
	}
	sort.Strings(fr)
	fmt.Printf("    final runs: %s\n", strings.Join(fr, " "))
	fmt.Printf("    approvals %d: applied+sent %d, bad %d\n", r.approvals, r.approvalsApplied, r.approvalsBad)
	fmt.Printf("    emails SENT %d: true duplicates %d, window duplicates (I5: accepted, not recorded, resent same Message-ID) %d, "+
		"missing at sink %d, FAILED %d, unknown at sink %d\n", r.emails, r.duplicates, r.window, r.missingAtSink, r.failedSends, r.unknownAtSink)
	for _, w := range r.windowDetail {
		cause := "no chaos event in between"
		for _, e := range events {
			if !e.at.Before(w.first.Add(-time.Second)) && e.at.Before(w.again) {
				cause = e.at.Format("15:04:05.000") + " " + e.what
				break // the first event after the acceptance
			}
		}
		fmt.Printf("      window: %s accepted %s, resent %s, recorded SENT %s; cause: %s\n", w.key,
			w.first.Format("15:04:05.000"), w.again.Format("15:04:05.000"), w.sentAt.Format("15:04:05.000"), cause)
	}
	fmt.Printf("    stranded %d (%s)\n", r.stranded, r.strandedDetail)
	fmt.Printf("    recovery after a kill: %d held items measured, max %.1fs (%s); %d steps of locked cases were waiting in a queue, not held\n",
		r.recoveries, r.recoveryMax.Seconds(), r.recoveryWhat, r.queuedAtKill)
	for _, k := range []string{"run", "email"} {
		fmt.Printf("      max for held %s work: %.1fs\n", k, r.maxByKind[k].Seconds())
	}
	for _, u := range r.unrecovered {
		fmt.Println("    UNRECOVERED:", u)
	}
	for i, u := range r.unexpected {
		if i == 30 {
			fmt.Printf("    … and %d more\n", len(r.unexpected)-30)
			break
		}
		fmt.Println("    PROBLEM:", u)
	}
	fmt.Printf("chaos: cases=%d emails=%d duplicates=%d lost_replies=%d stranded=%d recovery_max_s=%.1f\n",
		r.cases, r.emails, r.duplicates, r.lostReplies, r.stranded, r.recoveryMax.Seconds())
}

// failed reports whether the run must exit non-zero.
func (r *report) failed() bool {
	return r.duplicates > 0 || r.lostReplies > 0 || r.stranded > 0 || r.dupReplies > 0 || r.missingAtSink > 0 ||
		len(r.unexpected) > 0
}
