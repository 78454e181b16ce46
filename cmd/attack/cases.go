package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/foiaflow/foiaflow/blobstore"
	"github.com/foiaflow/foiaflow/cmd/internal/fleet"
)

// expectation is what must become of a message the attack forged.
type expectation int

const (
	expectOrphan     expectation = iota // proves nothing: orphan queue
	expectUnverified                    // proves the thread, sender not allowed: attached, never acted on
	expectAutomatic                     // automatic mail: stored, never answered
)

// attack holds the fleet under attack and what was sent to it.
type attack struct {
	o       options
	c       *client
	db      *pgxpool.Pool
	blobs   *blobstore.Dir
	pg      *fleet.PrivatePG
	sinkDir string
	mgKey   []byte

	attempts int
	accepted map[int64]string       // raw_messages.id of every 2xx delivery → label
	expect   map[string]expectation // Message-ID (with <>) of each forged or automatic message → expectation
	cases    map[string]*target
	// replayID and replaySHA name the forged body sent under a replayed
	// Mailgun token: it must never be stored.
	replayID, replaySHA string
	findings            findings
	// never: inbound deliveries that were refused and never accepted on
	// redelivery (counted lost).
	never []string
}

// target is a case the attack aims at, with what it looked like before.
type target struct {
	name  string
	k     fleet.Case
	mode  string
	sent  string // Message-ID of its initial request ("" when created as already sent)
	facts string // case facts a forged message must not change
	// genuine is the pending proposal a forged message must not supersede.
	genuine *proposal
}

// proposal is a proposal's identity and what a forger would change.
type proposal struct {
	id        int64
	status    string
	version   int
	action    string
	feeCents  *int64
	pauseWhy  string
	createdBy int64 // trigger message
}

// How a target case's initial request went out.
type initialRequest int

const (
	initialNone   initialRequest = iota // created as already sent 25 days ago
	initialParked                       // parked at its gate
	initialSent                         // approved here and sent: the case has one of our Message-IDs
)

// newCase creates a case through the API with its initial request as said.
func (a *attack) newCase(ctx context.Context, name, mode string, initial initialRequest) (*target, error) {
	agency := fmt.Sprintf("records@%s.example.gov", name)
	body := map[string]any{"agency_name": "Agency " + name, "agency_email": agency, "jurisdiction": "US",
		"subject": "Records request " + name, "requested_records": []string{"use-of-force reports, 2024"},
		"autopilot_mode": mode}
	if initial != initialNone {
		body["send_initial_request"] = true
	} else {
		body["sent_at"] = time.Now().Add(-25 * 24 * time.Hour).UTC()
	}
	var created struct {
		Case struct {
			CaseID       int64  `json:"case_id"`
			ReplyAddress string `json:"reply_address"`
		} `json:"case"`
	}
	if err := a.c.mustJSON(ctx, http.MethodPost, "/v1/cases", body, &created, nil); err != nil {
		return nil, err
	}
	t := &target{name: name, mode: mode, k: fleet.Case{ID: created.Case.CaseID, ReplyAddress: created.Case.ReplyAddress, AgencyEmail: agency}}
	a.cases[name] = t
	if initial == initialNone {
		return t, nil
	}
	if err := a.waitIdle(ctx, t.k.ID); err != nil {
		return nil, err
	}
	if initial == initialParked {
		return t, nil
	}
	p, err := a.pending(ctx, t.k.ID)
	if err != nil {
		return nil, fmt.Errorf("case %s: initial request not parked: %w", name, err)
	}
	if err := a.approve(ctx, t.k.ID, p); err != nil {
		return nil, err
	}
	t.sent, err = a.lastSent(ctx, t.k.ID)
	return t, err
}

// approve approves p at its version and waits until the case is idle.
func (a *attack) approve(ctx context.Context, caseID int64, p proposal) error {
	path := fmt.Sprintf("/v1/cases/%d/proposals/%d/approve", caseID, p.id)
	if err := a.c.mustJSON(ctx, http.MethodPost, path, map[string]any{"version": p.version}, nil,
		map[string]string{"Idempotency-Key": "attack-" + fleet.RandHex(8)}); err != nil {
		return err
	}
	return a.waitIdle(ctx, caseID)
}

// lastSent is the Message-ID of the case's newest SENT email.
func (a *attack) lastSent(ctx context.Context, caseID int64) (string, error) {
	var id string
	err := a.db.QueryRow(ctx, `SELECT message_id FROM email_sends WHERE case_id=$1 AND status='SENT' ORDER BY id DESC LIMIT 1`,
		caseID).Scan(&id)
	if err != nil {
		return "", fmt.Errorf("case %d: no email sent: %w", caseID, err)
	}
	return id, nil
}

// pending is the case's one proposal awaiting a decision.
func (a *attack) pending(ctx context.Context, caseID int64) (proposal, error) {
	var p proposal
	err := a.db.QueryRow(ctx, `SELECT id, status, current_version, action_type, fee_cents, pause_reason, coalesce(trigger_message_id, 0)
		FROM proposals WHERE case_id=$1 AND status='PENDING_APPROVAL' ORDER BY id DESC LIMIT 1`, caseID).
		Scan(&p.id, &p.status, &p.version, &p.action, &p.feeCents, &p.pauseWhy, &p.createdBy)
	return p, err
}

// proposalByID reads proposal id as it is now.
func (a *attack) proposalByID(ctx context.Context, id int64) (proposal, error) {
	var p proposal
	err := a.db.QueryRow(ctx, `SELECT id, status, current_version, action_type, fee_cents, pause_reason, coalesce(trigger_message_id, 0)
		FROM proposals WHERE id=$1`, id).Scan(&p.id, &p.status, &p.version, &p.action, &p.feeCents, &p.pauseWhy, &p.createdBy)
	return p, err
}

// caseFacts renders what a forged reply must not change on a case.
func (a *attack) caseFacts(ctx context.Context, caseID int64) (string, error) {
	var s string
	err := a.db.QueryRow(ctx, `SELECT concat_ws(' | ', 'fee=' || coalesce(fee_cents::text, '-'), 'constraints=' || constraints::text,
		'tracking=' || tracking_number, 'portal=' || portal_url, 'scope=' || scope_items::text, 'mode=' || autopilot_mode,
		'due=' || coalesce(due_at::text, '-'), 'estimated=' || coalesce(estimated_completion::text, '-'),
		'closed=' || coalesce(closed_at::text, '-'), 'tolled=' || coalesce(tolled_since::text, '-'))
		FROM cases WHERE id=$1`, caseID).Scan(&s)
	return s, err
}

// deliver posts raw MIME and, when accepted, records it and waits until it
// is processed; it returns the answer's status. A message not processed
// in time is left to the checks (lost, stuck), not an error.
func (a *attack) deliver(ctx context.Context, raw []byte, label string) (int, error) {
	ans, rc, err := a.c.postRaw(ctx, raw, label)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", label, err)
	}
	if ans.status/100 != 2 {
		return ans.status, nil
	}
	a.accepted[rc.RawMessageID] = label
	err = a.waitRaw(ctx, rc.RawMessageID)
	if errors.Is(err, errNotReached) {
		fmt.Printf("    %s: %v (left to the checks)\n", label, err)
		return ans.status, nil
	}
	return ans.status, err
}

// waitRaw waits until raw message id left "received" and its case (if
// any) is idle again.
func (a *attack) waitRaw(ctx context.Context, id int64) error {
	var caseID *int64
	err := poll(ctx, a.o.wait, func() (bool, error) {
		var status string
		err := a.db.QueryRow(ctx, `SELECT r.status, m.case_id FROM raw_messages r LEFT JOIN messages m ON m.id = r.message_row_id
			WHERE r.id=$1`, id).Scan(&status, &caseID)
		return status != "received", err
	})
	if err != nil {
		return fmt.Errorf("raw message %d not processed: %w", id, err)
	}
	if caseID != nil {
		return settled(fmt.Sprintf("case %d after raw message %d", *caseID, id), a.waitIdle(ctx, *caseID))
	}
	return nil
}

// waitIdle waits until the case has no run queued or running, no email
// waiting to go out and no decision waiting to be applied.
func (a *attack) waitIdle(ctx context.Context, caseID int64) error {
	return poll(ctx, a.o.wait, func() (bool, error) {
		var busy bool
		err := a.db.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM runs WHERE case_id=$1 AND status IN ('queued','running'))
			OR EXISTS (SELECT 1 FROM email_sends WHERE case_id=$1 AND status IN ('QUEUED','SENDING'))
			OR EXISTS (SELECT 1 FROM decisions WHERE case_id=$1 AND status='accepted')`, caseID).Scan(&busy)
		return !busy, err
	})
}

// settled turns a wait that ran out of time into a note: what is left in
// flight is for the checks to count (stuck, lost), not a harness error.
func settled(what string, err error) error {
	if errors.Is(err, errNotReached) {
		fmt.Printf("    %s: %v (left to the checks)\n", what, err)
		return nil
	}
	return err
}

// waitQuiet waits until nothing is in flight anywhere.
func (a *attack) waitQuiet(ctx context.Context) error {
	return poll(ctx, a.o.settle, func() (bool, error) {
		var busy bool
		err := a.db.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM runs WHERE status IN ('queued','running'))
			OR EXISTS (SELECT 1 FROM email_sends WHERE status IN ('QUEUED','SENDING'))
			OR EXISTS (SELECT 1 FROM decisions WHERE status='accepted')
			OR EXISTS (SELECT 1 FROM raw_messages WHERE status='received')`).Scan(&busy)
		return !busy, err
	})
}

// errNotReached: a poll's condition did not hold within its limit.
var errNotReached = errors.New("not reached")

// poll calls cond every 50 ms until it is true, fails, or limit passes
// (errNotReached).
func poll(ctx context.Context, limit time.Duration, cond func() (bool, error)) error {
	deadline := time.Now().Add(limit)
	for {
		ok, err := cond()
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		if ok && err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%w within %s", errNotReached, limit)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}
