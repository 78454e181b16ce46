package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/foiaflow/foiaflow/cmd/internal/fleet"
)

// findings are the invariant violations found, per counter.
type findings struct {
	mu                                        sync.Mutex
	steered, loops, lost, stuck, serverErrors []string
}

func (f *findings) add(to *[]string, format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	*to = append(*to, fmt.Sprintf(format, args...))
}

// report is the outcome of the run.
type report struct {
	attempts int
	f        *findings
	maxRSSMB int
}

func (r *report) failed() bool {
	return len(r.f.steered)+len(r.f.loops)+len(r.f.lost)+len(r.f.stuck)+len(r.f.serverErrors) > 0 || r.maxRSSMB > 300
}

func (r *report) print() {
	for _, c := range []struct {
		name string
		list []string
	}{{"steered", r.f.steered}, {"loops", r.f.loops}, {"lost", r.f.lost}, {"stuck", r.f.stuck}, {"server_errors", r.f.serverErrors}} {
		for _, s := range c.list {
			fmt.Printf("    %s: %s\n", c.name, s)
		}
	}
	fmt.Printf("attack: attempts=%d steered=%d loops=%d lost=%d stuck=%d server_errors=%d max_rss_mb=%d\n",
		r.attempts, len(r.f.steered), len(r.f.loops), len(r.f.lost), len(r.f.stuck), len(r.f.serverErrors), r.maxRSSMB)
}

// emailActions are the proposal actions that send an email.
const emailActions = `('SEND_INITIAL_REQUEST','SEND_FOLLOWUP','SEND_REBUTTAL','SEND_CLARIFICATION','APPROVE_FEE','SEND_APPEAL')`

// verify checks every invariant from Postgres, the message store and the
// .eml sink.
func (a *attack) verify(ctx context.Context) (*report, error) {
	fleet.Step("checking the invariants")
	for _, check := range []func(context.Context) error{a.checkForged, a.checkTargets, a.checkLoops, a.checkLost, a.checkStuck, a.checkSink} {
		if err := check(ctx); err != nil {
			return nil, err
		}
	}
	for _, s := range serverErrors(a.c.hits, a.o.unavailableLimit, isOversizeLabel) {
		a.findings.add(&a.findings.serverErrors, "%s", s)
	}
	return &report{attempts: a.attempts, f: &a.findings}, nil
}

// checkForged: every forged or automatic message ended where it should,
// and nothing it started was done without a human.
func (a *attack) checkForged(ctx context.Context) error {
	ids := make([]string, 0, len(a.expect))
	for id := range a.expect {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		exp := a.expect[id]
		var msgID int64
		var caseID *int64
		var allowed bool
		var auto, match string
		err := a.db.QueryRow(ctx, `SELECT id, case_id, sender_allowed, auto_kind, match_method FROM messages
			WHERE message_id_hash = encode(sha256(convert_to($1, 'UTF8')), 'hex')`, id).Scan(&msgID, &caseID, &allowed, &auto, &match)
		if err != nil {
			return fmt.Errorf("message %.80s not found: %w", id, err)
		}
		short := id
		if len(short) > 60 {
			short = short[:60] + "…"
		}
		switch {
		case exp == expectOrphan && caseID != nil:
			a.findings.add(&a.findings.steered, "forged %s proves nothing but was attached to case %d (match %s)", short, *caseID, match)
		case exp == expectUnverified && caseID != nil && allowed:
			a.findings.add(&a.findings.steered, "forged %s from a sender off the allowlist was trusted on case %d", short, *caseID)
		case exp == expectAutomatic && auto == "":
			a.findings.add(&a.findings.loops, "automatic message %s was not recognised as automatic (case %v)", short, caseID)
		}
		if exp == expectAutomatic {
			continue // checkLoops counts what automatic mail caused
		}
		rows, err := a.db.Query(ctx, `SELECT p.id, p.status, p.action_type, p.pause_reason,
			EXISTS (SELECT 1 FROM email_sends e WHERE e.proposal_id = p.id)
			FROM proposals p JOIN runs r ON r.id = p.run_id WHERE r.trigger_message_id = $1`, msgID)
		if err != nil {
			return err
		}
		for rows.Next() {
			var pid int64
			var status, action, why string
			var sent bool
			if err := rows.Scan(&pid, &status, &action, &why, &sent); err != nil {
				rows.Close()
				return err
			}
			switch {
			case sent || status == "EXECUTED" || status == "APPROVED":
				a.findings.add(&a.findings.steered, "forged %s got proposal %d %s acted on (%s, email %v)", short, pid, action, status, sent)
			case status == "PENDING_APPROVAL" && why != "UNVERIFIED_SENDER":
				a.findings.add(&a.findings.steered, "forged %s parked proposal %d %s as %s, not UNVERIFIED_SENDER", short, pid, action, why)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
	}
	return nil
}

// checkTargets: the genuine fee proposal still stands as it was, no
// target case's facts changed, and the forged $45 quotes sent nothing.
func (a *attack) checkTargets(ctx context.Context) error {
	f := a.cases["fee"]
	now, err := a.proposalByID(ctx, f.genuine.id)
	if err != nil {
		return err
	}
	was := *f.genuine
	if now.status != was.status || now.version != was.version || fmt.Sprint(deref(now.feeCents)) != fmt.Sprint(deref(was.feeCents)) {
		a.findings.add(&a.findings.steered, "genuine fee proposal %d changed: %s v%d fee %d → %s v%d fee %d", was.id,
			was.status, was.version, deref(was.feeCents), now.status, now.version, deref(now.feeCents))
	}
	for _, name := range []string{"fee", "auto", "loop"} { // hostile gets genuine replies too
		t := a.cases[name]
		facts, err := a.caseFacts(ctx, t.k.ID)
		if err != nil {
			return err
		}
		if facts != t.facts {
			a.findings.add(&a.findings.steered, "case %s (%d) changed: %s → %s", name, t.k.ID, t.facts, facts)
		}
	}
	var replayed bool
	err = a.db.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM raw_messages WHERE sha256=$1)
		OR EXISTS (SELECT 1 FROM messages WHERE message_id=$2)`, a.replaySHA, a.replayID).Scan(&replayed)
	if err != nil {
		return err
	}
	if replayed {
		a.findings.add(&a.findings.steered, "the forged body sent under a replayed Mailgun token was stored")
	}
	for _, name := range []string{"fee", "auto"} {
		t := a.cases[name]
		var n int
		if err := a.db.QueryRow(ctx, `SELECT count(*) FROM email_sends WHERE case_id=$1 AND message_id <> $2`, t.k.ID, t.sent).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			a.findings.add(&a.findings.steered, "case %s (%d) sent %d email(s) after the forged quotes", name, t.k.ID, n)
		}
	}
	return nil
}

func deref(p *int64) int64 {
	if p == nil {
		return -1
	}
	return *p
}

// checkLoops: no email answered automatic mail, the loop case sent nothing
// after its request, and the robot case stayed under the daily cap.
func (a *attack) checkLoops(ctx context.Context) error {
	rows, err := a.db.Query(ctx, `SELECT e.id, e.case_id, m.message_id, m.auto_kind FROM email_sends e
		JOIN proposals p ON p.id = e.proposal_id JOIN messages m ON m.id = p.trigger_message_id
		WHERE m.auto_kind <> '' OR m.message_id LIKE '<auto-%'`)
	if err != nil {
		return err
	}
	seen := map[int64]bool{}
	for rows.Next() {
		var id, caseID int64
		var mid, kind string
		if err := rows.Scan(&id, &caseID, &mid, &kind); err != nil {
			rows.Close()
			return err
		}
		seen[id] = true
		a.findings.add(&a.findings.loops, "email %d on case %d answered automatic mail %s (%s)", id, caseID, mid, kind)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	l := a.cases["loop"]
	rows, err = a.db.Query(ctx, `SELECT id, subject FROM email_sends WHERE case_id=$1 AND message_id <> $2`, l.k.ID, l.sent)
	if err != nil {
		return err
	}
	for rows.Next() {
		var id int64
		var subject string
		if err := rows.Scan(&id, &subject); err != nil {
			rows.Close()
			return err
		}
		if !seen[id] {
			a.findings.add(&a.findings.loops, "the loop case %d sent email %d (%q) after receiving only automatic mail", l.k.ID, id, subject)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	r := a.cases["robot"]
	var autoSends, parked int
	if err := a.db.QueryRow(ctx, `SELECT count(*) FROM email_sends WHERE case_id=$1 AND auto_submitted AND created_at > now() - interval '24 hours'`,
		r.k.ID).Scan(&autoSends); err != nil {
		return err
	}
	if err := a.db.QueryRow(ctx, `SELECT count(*) FROM proposals WHERE case_id=$1 AND pause_reason='AUTO_SEND_LIMIT'`, r.k.ID).Scan(&parked); err != nil {
		return err
	}
	fmt.Printf("    robot case %d: %d automatic sends in 24 h (cap %d), %d proposals parked at AUTO_SEND_LIMIT\n", r.k.ID, autoSends, autoSendsCap, parked)
	if autoSends == 0 {
		return fmt.Errorf("control failed: the robot case sent no automatic email, so the daily cap was not exercised")
	}
	for i := autoSendsCap; i < autoSends; i++ {
		a.findings.add(&a.findings.loops, "robot case %d: automatic send %d in 24 h over the cap of %d", r.k.ID, i+1, autoSendsCap)
	}
	return nil
}

// checkLost: every accepted delivery is in raw_messages, its bytes are in
// the message store, and it became a message (parsed, failed or duplicate).
func (a *attack) checkLost(ctx context.Context) error {
	for id, label := range a.accepted {
		var sha, status string
		var msg *int64
		err := a.db.QueryRow(ctx, `SELECT sha256, status, message_row_id FROM raw_messages WHERE id=$1`, id).Scan(&sha, &status, &msg)
		if err != nil {
			a.findings.add(&a.findings.lost, "%s: accepted as raw message %d, not in raw_messages: %v", label, id, err)
			continue
		}
		if _, err := a.blobs.Stat(ctx, sha); err != nil {
			a.findings.add(&a.findings.lost, "%s: raw message %d's bytes are not in the message store: %v", label, id, err)
		}
		if status == "received" || msg == nil {
			a.findings.add(&a.findings.lost, "%s: raw message %d was never processed (status %s)", label, id, status)
		}
	}
	for _, s := range a.never {
		a.findings.add(&a.findings.lost, "%s", s)
	}
	return nil
}

// checkStuck: every case has a way forward.
func (a *attack) checkStuck(ctx context.Context) error {
	queries := []struct{ what, sql string }{
		{"run neither parked nor finished", `SELECT 'case ' || case_id || ' run ' || id || ' ' || status || ' at ' || next_node
			FROM runs WHERE status IN ('queued','running')`},
		{"failed run without an open escalation", `SELECT 'case ' || r.case_id || ' run ' || r.id || ': ' || left(r.error, 120) FROM runs r
			WHERE r.status = 'failed' AND NOT EXISTS (SELECT 1 FROM escalations x WHERE x.case_id = r.case_id AND x.status = 'open')`},
		{"email neither sent nor escalated", `SELECT 'case ' || e.case_id || ' email ' || e.id || ' ' || e.status || ': ' || left(e.last_error, 120)
			FROM email_sends e WHERE e.status IN ('QUEUED','SENDING') OR (e.status = 'FAILED' AND NOT EXISTS (
			SELECT 1 FROM escalations x WHERE x.case_id = e.case_id AND x.status = 'open'))`},
		{"executed email proposal without its email", `SELECT 'case ' || p.case_id || ' proposal ' || p.id || ' ' || p.action_type
			FROM proposals p WHERE p.status = 'EXECUTED' AND p.action_type IN ` + emailActions + ` AND NOT p.human_task
			AND NOT EXISTS (SELECT 1 FROM email_sends e WHERE e.proposal_id = p.id)`},
		{"decision accepted but never applied", `SELECT 'case ' || case_id || ' decision ' || id || ' ' || action FROM decisions WHERE status = 'accepted'`},
		{"unparsed message on a case without an escalation", `SELECT 'case ' || m.case_id || ' message ' || m.id || ' ' || m.parse_status || ': ' || left(m.parse_error, 120)
			FROM messages m WHERE m.case_id IS NOT NULL AND m.parse_status <> 'parsed'
			AND NOT EXISTS (SELECT 1 FROM escalations x WHERE x.escalation_key = 'inbound:' || m.id)`},
		{"bounce without an escalation", `SELECT 'case ' || m.case_id || ' message ' || m.id FROM messages m
			WHERE m.case_id IS NOT NULL AND m.auto_kind = 'bounce'
			AND NOT EXISTS (SELECT 1 FROM escalations x WHERE x.escalation_key = 'bounce:' || m.id)`},
	}
	for _, q := range queries {
		rows, err := a.db.Query(ctx, q.sql)
		if err != nil {
			return fmt.Errorf("%s: %w", q.what, err)
		}
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				rows.Close()
				return err
			}
			a.findings.add(&a.findings.stuck, "%s: %s", q.what, s)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
	}
	e := a.cases["edit"]
	var status string
	err := a.db.QueryRow(ctx, `SELECT coalesce((SELECT status FROM email_sends WHERE proposal_id=$1), 'none')`, e.genuine.id).Scan(&status)
	if err != nil {
		return err
	}
	if status != "SENT" {
		a.findings.add(&a.findings.stuck, "edit case %d: the approved initial request after the refused CR/LF edits is %s, not SENT", e.k.ID, status)
	}
	return nil
}

// checkSink: no email in the sink carries an injected header.
func (a *attack) checkSink(context.Context) error {
	files, err := filepath.Glob(filepath.Join(a.sinkDir, "*.eml"))
	if err != nil {
		return err
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		head, _, _ := strings.Cut(string(b), "\r\n\r\n")
		if strings.Contains(strings.ToLower(head), "evil.example") {
			a.findings.add(&a.findings.steered, "%s carries an injected header naming evil.example", filepath.Base(f))
		}
	}
	fmt.Printf("    %d emails in the sink\n", len(files))
	return nil
}
