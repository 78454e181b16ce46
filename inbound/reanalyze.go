package inbound

import (
	"context"
	"errors"
	"fmt"

	"go.uber.org/zap"

	"github.com/foiaflow/foiaflow/store"
	"github.com/foiaflow/foiaflow/workflow"
)

// ErrCannotReanalyze: the message has no stored raw bytes (outbound mail,
// or stored before the message store) or no case to analyse it for.
var ErrCannotReanalyze = errors.New("inbound: message cannot be re-analysed")

// Reanalyze carries out re-analysis id (issue 11): the message's stored
// raw bytes are parsed again with today's parser, its parsed view replaced
// (raw bytes, case and match stay; new attachments are stored), and
// analyzer reads it again as a new analysis. No run starts, the case is
// not changed and nothing is sent. A message that still does not parse is
// analysed from its headers. It is idempotent per re-analysis.
func (p *Processor) Reanalyze(ctx context.Context, id int64, analyzer workflow.Analyzer) error {
	r, err := p.Store.GetReanalysis(ctx, id)
	if err != nil || r.Status != "queued" {
		return err
	}
	m, err := p.Store.GetMessage(ctx, r.MessageID)
	if err != nil {
		return err
	}
	if m.RawMessageID == nil || m.CaseID == nil {
		return fmt.Errorf("%w: message %d has no stored raw bytes or no case", ErrCannotReanalyze, m.ID)
	}
	raw, err := p.Store.GetRawMessage(ctx, *m.RawMessageID)
	if err != nil {
		return err
	}
	in, status, perr, err := p.read(ctx, raw)
	if err != nil {
		return err
	}
	atts, err := p.storeFiles(ctx, in)
	if err != nil {
		return err
	}
	c, err := p.Store.LoadCase(ctx, *m.CaseID)
	if err != nil {
		return err
	}
	reply := in.Reply(m.ReceivedAt)
	reply.MessageID, reply.SenderUnverified = m.MessageID, !m.SenderAllowed
	a, err := analyzer.Analyze(ctx, reply, c.CaseContext)
	if err != nil {
		return fmt.Errorf("analyze message %d: %w", m.ID, err)
	}
	_, err = p.Store.InTx(ctx, func(tx *store.Tx) error {
		_, err := tx.FinishReanalysis(ctx, id, *m.CaseID, m.ID, store.Reparsed{Subject: in.Subject, Text: in.Text,
			HTML: in.HTML, Headers: in.Headers, Attachments: in.Attachments, ParseStatus: status, ParseError: perr}, atts, a)
		if err != nil {
			return err
		}
		return tx.LogActivity(ctx, *m.CaseID, 0, "message_reanalyzed", r.RequestedBy, map[string]any{
			"message_id": m.ID, "reanalysis_id": id, "class": a.Class, "parse_status": status})
	})
	if err != nil {
		return fmt.Errorf("inbound: reanalysis %d: %w", id, err)
	}
	p.Log.Info("message re-analysed", zap.Int64("reanalysis", id), zap.Int64("message", m.ID), zap.String("class", string(a.Class)))
	return nil
}
