package api

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"

	"go.uber.org/zap"

	"github.com/foiaflow/foiaflow/blobstore"
	"github.com/foiaflow/foiaflow/jobs"
	"github.com/foiaflow/foiaflow/mail"
	"github.com/foiaflow/foiaflow/store"
)

// Providers (raw_messages.provider, webhook_tokens.provider).
const (
	providerRaw     = "raw"
	providerMailgun = "mailgun"
)

// inboundReceipt is the answer of POST /v1/inbound/email: the bytes are
// stored and their parse is queued (202), or the same bytes were stored
// before (200, duplicate=true). Parsing, matching and the run happen in
// the inbound:parse job; GET /v1/inbound/{id} tells how it ended.
type inboundReceipt struct {
	RawMessageID int64  `json:"raw_message_id"`
	SHA256       string `json:"sha256"`     // of the raw bytes (message store key)
	SizeBytes    int64  `json:"size_bytes"` // of the raw bytes
	Oversize     bool   `json:"oversize"`   // over MESSAGE_MAX_BYTES: stored and flagged, not parsed
	Status       string `json:"status"`     // received | parsed | failed | duplicate
	Duplicate    bool   `json:"duplicate"`  // these exact bytes were already stored
	TaskID       string `json:"task_id,omitempty"`
}

// inboundEmail: POST /v1/inbound/email, the one inbound entry point (issue
// 10, "Store first, parse after"). Content-Type message/rfc822 is the
// raw-MIME webhook signed with X-Foiaflow-Timestamp/X-Foiaflow-Signature
// (INBOUND_RAW_SECRET); multipart/form-data or x-www-form-urlencoded is
// Mailgun's inbound route with body-mime (MAILGUN_SIGNING_KEY, each token
// accepted once). The body is streamed to disk under INBOUND_MAX_BYTES
// while its signature is computed — never buffered in memory — then put in
// the message store, recorded with its Mailgun token and the inbound:parse
// outbox row in one transaction, and answered. Nothing is parsed here.
// Errors: 401 bad_signature / stale_webhook, 409 webhook_replayed, 413
// body_too_large, 400 malformed_message (a form without body-mime), 415
// unsupported_media_type, 503 message_store_unavailable.
func (s *Server) inboundEmail(w http.ResponseWriter, r *http.Request) error {
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	var sp *blobstore.Spooled
	var provider, token string
	var err error
	switch mt {
	case "message/rfc822":
		provider = providerRaw
		if r.ContentLength > s.cfg.InboundMaxBytes {
			return fmt.Errorf("%w: body is %d bytes, limit %d", mail.ErrTooLarge, r.ContentLength, s.cfg.InboundMaxBytes)
		}
		sp, err = mail.SpoolSignedRaw(http.MaxBytesReader(w, r.Body, s.cfg.InboundMaxBytes+1), []byte(s.cfg.InboundRawSecret),
			r.Header.Get(mail.HeaderTimestamp), r.Header.Get(mail.HeaderSignature), s.now(), s.cfg.ReplayWindow,
			s.cfg.InboundMaxBytes, s.cfg.SpoolDir)
	case "multipart/form-data", "application/x-www-form-urlencoded":
		provider = providerMailgun
		sp, token, err = mail.SpoolMailgunForm(r, []byte(s.cfg.MailgunSigningKey), s.now(), s.cfg.ReplayWindow,
			s.cfg.InboundMaxBytes, s.cfg.SpoolDir)
	default:
		return apiErr(http.StatusUnsupportedMediaType, "unsupported_media_type",
			"Content-Type must be message/rfc822, multipart/form-data or application/x-www-form-urlencoded")
	}
	if err != nil {
		return fmt.Errorf("inbound email: %w", err)
	}
	defer sp.Close()
	res, err := s.receive(r.Context(), sp, provider, token)
	if err != nil {
		return err
	}
	status := http.StatusAccepted
	if res.Duplicate {
		status = http.StatusOK
	}
	return writeJSON(w, status, res)
}

// receive puts the spooled bytes in the message store, then records them
// (jobs.UseCases.RecordInboundReply: deduplicated by SHA-256, the provider
// token claimed and the parse queued in one transaction, dispatched after
// commit). 409 webhook_replayed, 503 message_store_unavailable.
func (s *Server) receive(ctx context.Context, sp *blobstore.Spooled, provider, token string) (inboundReceipt, error) {
	if err := sp.Store(ctx, s.blobs); err != nil {
		s.log.Error("message store unavailable: inbound email refused", zap.String("store", s.blobs.Name()), zap.Error(err))
		return inboundReceipt{}, apiErr(http.StatusServiceUnavailable, "message_store_unavailable",
			"the message store could not keep this message; retry later")
	}
	rec, err := s.uc.RecordInboundReply(ctx, jobs.InboundReply{SHA256: sp.Digest, SizeBytes: sp.Size, Provider: provider,
		Token: token, Oversize: sp.Size > s.cfg.MessageMaxBytes})
	if errors.Is(err, jobs.ErrWebhookReplayed) {
		return inboundReceipt{}, apiErr(http.StatusConflict, "webhook_replayed", "this signed delivery (token) was already accepted")
	}
	if err != nil {
		return inboundReceipt{}, fmt.Errorf("inbound email %s: %w", sp.Digest, err)
	}
	raw := rec.Raw
	res := inboundReceipt{RawMessageID: raw.ID, SHA256: raw.SHA256, SizeBytes: raw.SizeBytes, Oversize: raw.Oversize,
		Status: raw.Status, Duplicate: !rec.Created, TaskID: rec.TaskID}
	s.log.Info("inbound email stored", zap.Int64("raw", res.RawMessageID), zap.String("sha256", res.SHA256),
		zap.Int64("bytes", res.SizeBytes), zap.String("provider", provider), zap.Bool("duplicate", res.Duplicate),
		zap.Bool("oversize", res.Oversize))
	return res, nil
}

// getInbound: GET /v1/inbound/{id} → what became of a delivery: its raw
// row and, once parsed, its message, case, match and run. 404
// inbound_not_found.
func (s *Server) getInbound(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	st, err := s.st.InboundStatus(r.Context(), id)
	if errors.Is(err, store.ErrNotFound) {
		return apiErr(http.StatusNotFound, "inbound_not_found", "no inbound delivery %d", id)
	}
	if err != nil {
		return fmt.Errorf("inbound %d: %w", id, err)
	}
	writeJSON(w, http.StatusOK, st)
	return nil
}
