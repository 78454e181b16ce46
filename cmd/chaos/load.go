package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	sharedfleet "github.com/foiaflow/foiaflow/cmd/internal/fleet"
	"github.com/foiaflow/foiaflow/dataset"
	"github.com/foiaflow/foiaflow/mail"
	"github.com/foiaflow/foiaflow/workflow"
)

// chaosCase is one case the feeder created and the reply it posted.
type chaosCase struct {
	idx       int
	mode      string // AUTO | SUPERVISED
	reply     dataset.Reply
	caseID    int64
	messageID string // RFC 5322 Message-ID with <>
	posted    bool   // the webhook acknowledged the reply (2xx)
	twice     bool   // delivered a second time (same Message-ID)
	err       error
}

// emailActions are the gated actions whose approval sends an email; the
// reviewer approves exactly these (others stay parked as human tasks).
var emailActions = map[workflow.ActionType]bool{
	workflow.ActionApproveFee: true, workflow.ActionSendRebuttal: true, workflow.ActionSendClarification: true,
	workflow.ActionSendFollowup: true, workflow.ActionSendAppeal: true,
}

// feeder creates cases and posts their agency replies, paced over d so
// replies keep arriving during the chaos.
type feeder struct {
	c       *client
	replies []dataset.Reply
	cases   []*chaosCase
	redeliv atomic.Int64
}

func newFeeder(c *client, n int) (*feeder, error) {
	rs, err := dataset.Corpus()
	if err != nil {
		return nil, err
	}
	if len(rs) == 0 {
		return nil, fmt.Errorf("empty corpus")
	}
	f := &feeder{c: c, replies: rs}
	for i := range n {
		mode := "AUTO"
		if i%2 == 1 {
			mode = "SUPERVISED"
		}
		f.cases = append(f.cases, &chaosCase{idx: i, mode: mode, reply: rs[i%len(rs)], twice: i%4 == 0})
	}
	return f, nil
}

// run feeds every case with `workers` concurrent clients, case i not before
// start + i·d/n. It returns when all are posted (or ctx ends).
func (f *feeder) run(ctx context.Context, d time.Duration, workers int) {
	start := time.Now()
	next := make(chan *chaosCase)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for cc := range next {
				cc.err = f.one(ctx, cc, &wg)
			}
		}()
	}
	n := len(f.cases)
	for i, cc := range f.cases {
		at := start.Add(time.Duration(int64(d) * int64(i) / int64(n)))
		select {
		case <-ctx.Done():
		case <-time.After(time.Until(at)):
		}
		if ctx.Err() != nil {
			break
		}
		next <- cc
	}
	close(next)
	wg.Wait()
}

func (f *feeder) one(ctx context.Context, cc *chaosCase, wg *sync.WaitGroup) error {
	var created struct {
		Case struct {
			CaseID       int64  `json:"case_id"`
			ReplyAddress string `json:"reply_address"`
		} `json:"case"`
	}
	agency := fmt.Sprintf("records%d@agency%d.example.gov", cc.idx, cc.idx)
	err := f.c.doJSON(ctx, http.MethodPost, "/v1/cases", map[string]any{
		"agency_name": fmt.Sprintf("Chaos Agency %d", cc.idx), "agency_email": agency, "jurisdiction": "US",
		"subject": "Records request " + cc.reply.Name, "requested_records": []string{"the records described in the request"},
		"autopilot_mode": cc.mode, "sent_at": time.Now().Add(-25 * 24 * time.Hour).UTC()}, &created, nil)
	if err != nil {
		return fmt.Errorf("create case %d: %w", cc.idx, err)
	}
	cc.caseID = created.Case.CaseID
	cc.messageID = fmt.Sprintf("<chaos-%d-%s@agency%d.example.gov>", cc.idx, sharedfleet.RandHex(4), cc.idx)
	raw, err := mail.BuildMessage(mail.Outbound{From: agency, To: []string{created.Case.ReplyAddress},
		Subject: "RE: Records request " + cc.reply.Name, Text: cc.reply.Text, MessageID: cc.messageID,
		Headers: map[string]string{"X-Corpus-Source": cc.reply.Source}, Date: time.Now().UTC()})
	if err != nil {
		return err
	}
	var in struct {
		RunID *int64 `json:"run_id"`
		Match string `json:"match"`
	}
	if err := f.c.postMIME(ctx, raw, &in); err != nil {
		return fmt.Errorf("post reply of case %d: %w", cc.caseID, err)
	}
	cc.posted = true
	if cc.twice { // the provider redelivers the same webhook a little later
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case <-ctx.Done():
				return
			case <-time.After(time.Duration(rand.IntN(3000)) * time.Millisecond):
			}
			if err := f.c.postMIME(ctx, raw, nil); err == nil {
				f.redeliv.Add(1)
			}
		}()
	}
	return nil
}

// approval is one APPROVE a reviewer sent.
type approval struct {
	caseID, proposalID int64
	version            int
	action             workflow.ActionType
	decisionID         int64
	status             int // HTTP status of the final answer (2xx, 409…)
	err                error
}

// approver plays the reviewers: it finds runs parked at a gate on an email
// action (from Postgres) and approves them through the API, retrying with
// the same Idempotency-Key.
type approver struct {
	c    *client
	db   *pgxpool.Pool
	mu   sync.Mutex
	done map[int64]*approval // proposal id → approval
}

func (a *approver) loop(ctx context.Context, workers int) {
	if a.done == nil {
		a.done = map[int64]*approval{}
	}
	work := make(chan *approval)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ap := range work {
				a.approve(ctx, ap)
			}
		}()
	}
	defer func() { close(work); wg.Wait() }()
	for ctx.Err() == nil {
		for _, ap := range a.pending(ctx) {
			select {
			case work <- ap:
			case <-ctx.Done():
				return
			}
		}
		select {
		case <-ctx.Done():
		case <-time.After(300 * time.Millisecond):
		}
	}
}

// pending lists parked email gates not approved yet (and claims them).
func (a *approver) pending(ctx context.Context) []*approval {
	qctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	rows, err := a.db.Query(qctx, `SELECT interrupt FROM runs WHERE status = 'parked' AND interrupt IS NOT NULL ORDER BY id`)
	if err != nil {
		return nil // Postgres restarting: next tick
	}
	defer rows.Close()
	var out []*approval
	a.mu.Lock()
	defer a.mu.Unlock()
	for rows.Next() {
		var raw []byte
		if rows.Scan(&raw) != nil {
			return out
		}
		var g workflow.GatePayload
		if json.Unmarshal(raw, &g) != nil || !emailActions[g.Action] || a.done[g.ProposalID] != nil {
			continue
		}
		ap := &approval{caseID: g.CaseID, proposalID: g.ProposalID, version: g.Version, action: g.Action}
		a.done[g.ProposalID] = ap
		out = append(out, ap)
	}
	return out
}

func (a *approver) approve(ctx context.Context, ap *approval) {
	var dec struct {
		DecisionID int64 `json:"decision_id"`
	}
	path := fmt.Sprintf("/v1/cases/%d/proposals/%d/approve", ap.caseID, ap.proposalID)
	err := a.c.doJSON(ctx, http.MethodPost, path, map[string]any{"version": ap.version}, &dec,
		map[string]string{"Idempotency-Key": fmt.Sprintf("chaos-approve-%d-v%d", ap.proposalID, ap.version)})
	a.mu.Lock()
	defer a.mu.Unlock()
	ap.err, ap.status, ap.decisionID = err, statusOf(err), dec.DecisionID
	if err == nil {
		ap.status = http.StatusOK
	}
	if err != nil && (ap.status == 0 || ap.status >= 500) && ctx.Err() == nil {
		delete(a.done, ap.proposalID) // gave up for now: approve again (same key) next tick
	}
}

// snapshot copies the approvals.
func (a *approver) snapshot() []approval {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]approval, 0, len(a.done))
	for _, ap := range a.done {
		out = append(out, *ap)
	}
	return out
}
