package api

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"

	"go.uber.org/zap"

	"github.com/foiaflow/foiaflow/jobs"
	"github.com/foiaflow/foiaflow/mail"
	"github.com/foiaflow/foiaflow/store"
	"github.com/foiaflow/foiaflow/workflow"
)

// providerMailgun names Mailgun's tokens in webhook_tokens.
const providerMailgun = "mailgun"

// inboundResult is the answer of POST /v1/inbound/email: 202 for a new
// message (matched: its run was created; orphan: case_id null), 200 with
// duplicate=true for a Message-ID already stored (nothing new is stored).
type inboundResult struct {
	MessageID    int64  `json:"message_id"`     // messages.id
	RFCMessageID string `json:"rfc_message_id"` // RFC 5322 Message-ID with <>
	CaseID       *int64 `json:"case_id"`        // null for an orphan
	RunID        *int64 `json:"run_id"`         // the agency_reply run started, or null
	Match        string `json:"match"`          // reply_token | in_reply_to | sender | orphan
	Duplicate    bool   `json:"duplicate"`
}

// inboundEmail: POST /v1/inbound/email. Content-Type message/rfc822 is the
// raw-MIME webhook signed with X-Foiaflow-Timestamp/X-Foiaflow-Signature
// (INBOUND_RAW_SECRET); multipart/form-data or x-www-form-urlencoded is
// Mailgun's inbound route with body-mime (MAILGUN_SIGNING_KEY, each token
// accepted once). Errors: 401 bad_signature / stale_webhook, 409
// webhook_replayed, 413 body_too_large, 400 malformed_message, 415
// unsupported_media_type.
func (s *Server) inboundEmail(w http.ResponseWriter, r *http.Request) error {
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	var raw []byte
	var token string
	var err error
	switch mt {
	case "message/rfc822":
		raw, err = s.readSignedRaw(w, r)
	case "multipart/form-data", "application/x-www-form-urlencoded":
		raw, token, err = mail.DecodeMailgunForm(r, []byte(s.cfg.MailgunSigningKey), s.now(), s.cfg.ReplayWindow, s.cfg.InboundMaxBytes)
	default:
		return apiErr(http.StatusUnsupportedMediaType, "unsupported_media_type",
			"Content-Type must be message/rfc822, multipart/form-data or application/x-www-form-urlencoded")
	}
	if err != nil {
		return fmt.Errorf("inbound email: %w", err)
	}
	in, err := mail.ParseMIME(raw, s.cfg.InboundMaxBytes)
	if err != nil {
		return fmt.Errorf("inbound email: %w", err)
	}
	res, err := s.ingest(r.Context(), in, token)
	if err != nil {
		return err
	}
	status := http.StatusAccepted
	if res.Duplicate {
		status = http.StatusOK
	}
	writeJSON(w, status, res)
	return nil
}

// readSignedRaw reads at most InboundMaxBytes of raw MIME and verifies its
// HMAC signature.
func (s *Server) readSignedRaw(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	if r.ContentLength > s.cfg.InboundMaxBytes {
		return nil, fmt.Errorf("%w: body is %d bytes, limit %d", mail.ErrTooLarge, r.ContentLength, s.cfg.InboundMaxBytes)
	}
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.cfg.InboundMaxBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, fmt.Errorf("%w: body over %d bytes", mail.ErrTooLarge, s.cfg.InboundMaxBytes)
		}
		return nil, fmt.Errorf("read body: %w", err)
	}
	err = mail.VerifyRawSignature([]byte(s.cfg.InboundRawSecret), r.Header.Get(mail.HeaderTimestamp),
		r.Header.Get(mail.HeaderSignature), raw, s.now(), s.cfg.ReplayWindow)
	return raw, err
}

// ingest stores a parsed message in one transaction: the webhook token
// claim (Mailgun), the message (deduplicated by Message-ID) and, when it
// matched a case, the supersession of pending proposals and the new
// agency_reply run with its first outbox row. The run's first step is
// dispatched after commit.
func (s *Server) ingest(ctx context.Context, in mail.Inbound, token string) (inboundResult, error) {
	caseID, method, err := s.match(ctx, in)
	if err != nil {
		return inboundResult{}, fmt.Errorf("ingest %s: %w", in.MessageID, err)
	}
	res := inboundResult{RFCMessageID: in.MessageID, Match: method}
	msg := store.Message{Direction: "inbound", MessageID: in.MessageID, InReplyTo: in.InReplyTo,
		References: in.References, From: in.From.Address, To: append(append([]string{}, in.To...), in.Cc...),
		Subject: in.Subject, Text: in.Text, HTML: in.HTML, Headers: in.Headers, Attachments: in.Attachments,
		RawSize: int(in.SizeBytes), ReceivedAt: s.now().UTC()}
	if caseID != 0 {
		msg.CaseID, msg.MatchMethod, res.CaseID = &caseID, method, &caseID
	}
	rows, err := s.st.InTx(ctx, func(tx *store.Tx) error {
		if token != "" {
			fresh, err := tx.ClaimWebhookToken(ctx, providerMailgun, token)
			if err != nil {
				return err
			}
			if !fresh {
				return apiErr(http.StatusConflict, "webhook_replayed", "this signed delivery (token) was already accepted")
			}
		}
		id, created, err := tx.InsertMessage(ctx, msg)
		if err != nil {
			return err
		}
		res.MessageID, res.Duplicate = id, !created
		if !created || caseID == 0 {
			return nil
		}
		if _, err := tx.SupersedePending(ctx, caseID, 0); err != nil {
			return err
		}
		run, _, err := jobs.StartRun(ctx, tx, s.queues, store.NewRun{CaseID: caseID, Trigger: workflow.TriggerAgencyReply,
			TriggerKey: fmt.Sprintf("reply:%d", id), TriggerMessageID: &id})
		res.RunID = &run.ID
		return err
	})
	if err != nil {
		return inboundResult{}, fmt.Errorf("ingest %s: %w", in.MessageID, err)
	}
	if res.Duplicate {
		return s.duplicate(ctx, res)
	}
	s.dispatchAfterCommit(ctx, rows)
	s.log.Info("inbound email stored", zap.Int64("message", res.MessageID), zap.String("match", method),
		zap.Int64("case", caseID))
	return res, nil
}

// duplicate fills the answer for a redelivered Message-ID from the row
// stored the first time.
func (s *Server) duplicate(ctx context.Context, res inboundResult) (inboundResult, error) {
	m, err := s.st.GetMessage(ctx, res.MessageID)
	if err != nil {
		return res, fmt.Errorf("duplicate %s: %w", res.RFCMessageID, err)
	}
	res.CaseID, res.RunID, res.Match = m.CaseID, nil, m.MatchMethod
	if m.CaseID == nil {
		res.Match = matchOrphan
	}
	return res, nil
}
