// Package inbound owns what happens to an agency's email after the webhook
// stored its bytes (issue 10, "Store first, parse after"; issue 11,
// "Message store"): the bounded parse, the attachments put in the message
// store, deduplication by Message-ID, matching by proof only, loop safety
// for automatic mail, and the run it starts. The API's webhook only
// verifies, stores the raw bytes and queues an inbound:parse job
// (jobs/inbound_parse.go), which calls Processor.Parse.
//
// A message is never dropped: one that fails to parse, or is over
// MESSAGE_MAX_BYTES, is kept with what its headers say, marked, and either
// attached to its case with an escalation or put in the orphan queue with
// the reason.
package inbound

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"go.uber.org/zap"

	"github.com/foiaflow/foiaflow/blobstore"
	"github.com/foiaflow/foiaflow/mail"
	"github.com/foiaflow/foiaflow/store"
	"github.com/foiaflow/foiaflow/workflow"
)

// StartRunFunc creates a run and its first step's outbox row inside tx
// (jobs.StartRun).
type StartRunFunc func(ctx context.Context, tx *store.Tx, n store.NewRun) (store.Run, bool, error)

// Processor parses stored raw messages. Build it in cmd/.
type Processor struct {
	Store   *store.Store
	Blobs   blobstore.Store
	Matcher CaseMatcher
	// Limits bound the parse (MESSAGE_MAX_BYTES, MIME_MAX_DEPTH, …).
	Limits mail.Limits
	// AttachmentMaxBytes flags larger attachments (ATTACHMENT_MAX_BYTES);
	// they are stored all the same.
	AttachmentMaxBytes int64
	// Budget bounds the raw bytes parsed at once in this process (nil: no
	// bound); a parse that finds it spent returns ErrParseBusy.
	Budget   *ParseBudget
	StartRun StartRunFunc
	Log      *zap.Logger
}

// Result is what Parse did with one raw message.
type Result struct {
	RawID     int64
	Status    string // store.RawParsed | RawFailed | RawDuplicate; "" when already handled by an earlier task
	MessageID int64  // messages.id (the earlier one for a duplicate)
	CaseID    int64  // 0 for an orphan
	RunID     int64  // 0 when no run was started
	Match     string
	AutoKind  mail.AutoKind
}

// errHandled rolls a transaction back when another task finished the raw
// message first.
var errHandled = errors.New("inbound: raw message already handled")

// Parse turns raw message rawID into a messages row (its attachments in the
// message store), matches it and, for a genuine reply on a case, starts its
// agency_reply run. It is idempotent: a raw message no longer "received"
// is left alone. Each parse that starts is counted (raw_messages.
// parse_attempts). It returns the outbox rows to dispatch after commit.
// Errors: ErrParseBusy (the budget is spent: try again shortly, nothing
// was done); others are transient (database, message store): the task
// retries.
func (p *Processor) Parse(ctx context.Context, rawID int64) (Result, []store.OutboxRow, error) {
	raw, err := p.Store.GetRawMessage(ctx, rawID)
	if err != nil {
		return Result{RawID: rawID}, nil, err
	}
	return p.parse(ctx, raw, p.Store.InTx)
}

// ParseLocked is Parse for a raw message read under its parse lock
// (store.TryLockRawMessageRead): the commit runs on the lock's connection
// and releases the lock in its last round trip (store.CaseLock.
// CommitUnlock). The caller still calls lock.Unlock, which then only
// returns the connection (or releases the lock when nothing committed).
func (p *Processor) ParseLocked(ctx context.Context, lock *store.CaseLock, raw store.RawMessage) (Result, []store.OutboxRow, error) {
	return p.parse(ctx, raw, func(ctx context.Context, fn func(tx *store.Tx) error) ([]store.OutboxRow, error) {
		return lock.CommitUnlock(ctx, fn)
	})
}

// parse is Parse of raw whose transaction runs through inTx.
func (p *Processor) parse(ctx context.Context, raw store.RawMessage,
	inTx func(context.Context, func(tx *store.Tx) error) ([]store.OutboxRow, error)) (Result, []store.OutboxRow, error) {
	rawID := raw.ID
	res := Result{RawID: rawID}
	if raw.Status != store.RawReceived {
		return res, nil, nil
	}
	if !p.Budget.tryAcquire(raw.SizeBytes) {
		return res, nil, ErrParseBusy
	}
	defer p.Budget.release(raw.SizeBytes)
	if _, err := p.Store.CountParseAttempt(ctx, rawID); err != nil {
		return res, nil, err
	}
	in, status, perr, err := p.read(ctx, raw)
	if err != nil {
		return res, nil, err
	}
	atts, err := p.storeFiles(ctx, in)
	if err != nil {
		return res, nil, err
	}
	m, err := p.Matcher.Match(ctx, in)
	if err != nil {
		return res, nil, err
	}
	res.Match, res.AutoKind = m.Method, in.Auto()
	rows, err := inTx(ctx, func(tx *store.Tx) error {
		return p.commit(ctx, tx, raw, in, status, perr, atts, m, &res)
	})
	if errors.Is(err, errHandled) {
		return Result{RawID: rawID}, nil, nil
	}
	if err != nil {
		return res, nil, fmt.Errorf("inbound: commit raw message %d: %w", rawID, err)
	}
	p.Log.Info("inbound message parsed", zap.Int64("raw", rawID), zap.String("status", res.Status),
		zap.Int64("message", res.MessageID), zap.Int64("case", res.CaseID), zap.String("match", res.Match),
		zap.String("auto", string(res.AutoKind)), zap.Int64("run", res.RunID), zap.Int("attachments", len(atts)))
	return res, rows, nil
}

// read parses the stored bytes. A message over the size limit, or one the
// bounded parser refuses, is read from its headers only (status oversize
// or failed, with the reason).
func (p *Processor) read(ctx context.Context, raw store.RawMessage) (in mail.Inbound, status, perr string, err error) {
	limits := p.Limits
	if limits.MaxBytes <= 0 {
		limits.MaxBytes = mail.DefaultLimits.MaxBytes
	}
	obj, err := p.Blobs.Open(ctx, raw.SHA256)
	if err != nil {
		return in, "", "", fmt.Errorf("inbound: open raw message %d: %w", raw.ID, err)
	}
	defer obj.Close()
	if raw.Oversize || raw.SizeBytes > limits.MaxBytes {
		head, err := io.ReadAll(io.LimitReader(obj, int64(max(limits.MaxHeaderBytes, mail.DefaultLimits.MaxHeaderBytes))))
		if err != nil {
			return in, "", "", fmt.Errorf("inbound: read raw message %d: %w", raw.ID, err)
		}
		in = mail.ParseHeaders(head, limits)
		in.SizeBytes = raw.SizeBytes
		return in, store.ParseStatusOversize, fmt.Sprintf("message of %d bytes is over MESSAGE_MAX_BYTES (%d): stored, not parsed",
			raw.SizeBytes, limits.MaxBytes), nil
	}
	b := make([]byte, raw.SizeBytes) // one allocation of the known size
	if _, err := io.ReadFull(obj, b); err != nil {
		return in, "", "", fmt.Errorf("inbound: read raw message %d (%d bytes): %w", raw.ID, raw.SizeBytes, err)
	}
	in, err = mail.ParseBounded(ctx, b, limits)
	switch {
	case err == nil:
		return in, store.ParseStatusParsed, "", nil
	case ctx.Err() != nil:
		return in, "", "", ctx.Err()
	case errors.Is(err, mail.ErrMalformed), errors.Is(err, mail.ErrLimit), errors.Is(err, mail.ErrTooLarge):
		p.Log.Warn("inbound message kept unparsed", zap.Int64("raw", raw.ID), zap.Error(err))
		return mail.ParseHeaders(b, limits), store.ParseStatusFailed, mail.Describe(err), nil
	}
	return in, "", "", fmt.Errorf("inbound: parse raw message %d: %w", raw.ID, err)
}

// storeFiles puts every attachment's bytes in the message store (before
// any row names them) and returns their rows; the message's attachment
// metadata gets their hashes.
func (p *Processor) storeFiles(ctx context.Context, in mail.Inbound) ([]store.Attachment, error) {
	out := make([]store.Attachment, 0, len(in.Files))
	for i, f := range in.Files {
		d := blobstore.Digest(f.Content)
		if err := p.Blobs.Put(ctx, d, bytes.NewReader(f.Content), int64(len(f.Content))); err != nil {
			return nil, fmt.Errorf("inbound: store attachment %q: %w", f.Filename, err)
		}
		in.Attachments[i].SHA256 = d
		out = append(out, store.Attachment{PartIndex: i, Filename: f.Filename, ContentType: f.ContentType,
			SizeBytes: int64(len(f.Content)), SHA256: d,
			Oversize: p.AttachmentMaxBytes > 0 && int64(len(f.Content)) > p.AttachmentMaxBytes})
	}
	return out, nil
}

// commit stores the message, its attachments and what follows from its
// match, in one transaction with the raw message's status change.
func (p *Processor) commit(ctx context.Context, tx *store.Tx, raw store.RawMessage, in mail.Inbound, status, perr string,
	atts []store.Attachment, m Match, res *Result) error {
	msg := store.Message{Direction: "inbound", MessageID: in.MessageID, InReplyTo: in.InReplyTo,
		References: in.References, From: in.From.Address, To: append(append([]string{}, in.To...), in.Cc...),
		Subject: in.Subject, Text: in.Text, HTML: in.HTML, Headers: in.Headers, Attachments: in.Attachments,
		RawSize: int(raw.SizeBytes), ReceivedAt: raw.ReceivedAt, RawMessageID: &raw.ID, ParseStatus: status,
		ParseError: perr, MatchMethod: m.Method, OrphanReason: m.Reason, SenderAllowed: m.SenderAllowed,
		AutoKind: string(res.AutoKind)}
	var casePtr *int64
	if m.CaseID != 0 {
		casePtr, msg.CaseID = &m.CaseID, &m.CaseID
	}
	id, created, err := tx.InsertMessage(ctx, msg)
	if err != nil {
		return err
	}
	res.MessageID = id
	if !created {
		res.Status, res.CaseID = store.RawDuplicate, 0
		return finish(ctx, tx, raw.ID, store.RawDuplicate, id, "")
	}
	res.Status = store.RawParsed
	if status != store.ParseStatusParsed {
		res.Status = store.RawFailed
	}
	if err := finish(ctx, tx, raw.ID, res.Status, id, perr); err != nil {
		return err
	}
	if err := tx.InsertAttachments(ctx, id, casePtr, atts); err != nil {
		return err
	}
	if m.CaseID == 0 {
		return nil
	}
	res.CaseID = m.CaseID
	return p.onCase(ctx, tx, id, in, status, perr, atts, m, res)
}

func finish(ctx context.Context, tx *store.Tx, rawID int64, status string, messageID int64, perr string) error {
	ok, err := tx.FinishRawMessage(ctx, rawID, status, messageID, perr)
	if err == nil && !ok {
		err = errHandled
	}
	return err
}

// onCase records the message on its case's timeline and decides what may
// follow: a message that failed to parse escalates, automatic mail is
// never answered (a bounce escalates), anything else starts an
// agency_reply run, which a sender off the allowlist cannot steer.
func (p *Processor) onCase(ctx context.Context, tx *store.Tx, id int64, in mail.Inbound, status, perr string,
	atts []store.Attachment, m Match, res *Result) error {
	oversize := 0
	for _, a := range atts {
		if a.Oversize {
			oversize++
		}
	}
	err := tx.LogActivity(ctx, m.CaseID, 0, "message_received", "agency", map[string]any{"message_id": id,
		"from": in.From.Address, "match": m.Method, "sender_allowed": m.SenderAllowed, "auto_kind": res.AutoKind,
		"parse_status": status, "attachments": len(atts), "attachments_over_limit": oversize})
	if err != nil {
		return err
	}
	switch {
	case status != store.ParseStatusParsed:
		return tx.OpenEscalation(ctx, fmt.Sprintf("inbound:%d", id), m.CaseID, 0,
			"an agency message could not be parsed and was kept for review: "+perr)
	case res.AutoKind == mail.AutoBounce:
		return tx.OpenEscalation(ctx, fmt.Sprintf("bounce:%d", id), m.CaseID, 0,
			"a message to the agency bounced: check the agency's address ("+in.Subject+")")
	case res.AutoKind != mail.AutoNone:
		return nil // shown on the case, never answered (RFC 3834)
	}
	if m.SenderAllowed {
		if err := tx.SupersedePending(ctx, m.CaseID, 0); err != nil {
			return err
		}
	}
	n, err := ReplyRun(m.CaseID, id, m.SenderAllowed)
	if err != nil {
		return err
	}
	run, _, err := p.StartRun(ctx, tx, n)
	res.RunID = run.ID
	return err
}

// ReplyRun describes the agency_reply run of message messageID on a case
// (trigger key reply:<message>); a sender off the allowlist makes it a run
// that supersedes nothing and parks for a human.
func ReplyRun(caseID, messageID int64, senderAllowed bool) (store.NewRun, error) {
	key := fmt.Sprintf("reply:%d", messageID)
	st, err := json.Marshal(workflow.CaseState{CaseID: caseID, Trigger: workflow.TriggerAgencyReply, TriggerKey: key,
		TriggerMessageID: &messageID, SenderUnverified: !senderAllowed})
	return store.NewRun{CaseID: caseID, Trigger: workflow.TriggerAgencyReply, TriggerKey: key,
		TriggerMessageID: &messageID, State: st}, err
}
