package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/hibiken/asynq"
	"go.uber.org/zap"

	"github.com/foiaflow/foiaflow/inbound"
	"github.com/foiaflow/foiaflow/store"
	"github.com/foiaflow/foiaflow/workflow"
)

// TypeInboundReanalyze parses and analyses a stored message again for an
// admin (issue 11, "Re-analysis"): a new analysis, no run, nothing sent.
const TypeInboundReanalyze = "inbound:reanalyze"

// ReanalyzePayload names the reanalyses row.
type ReanalyzePayload struct {
	ReanalysisID int64 `json:"reanalysis_id"`
}

// NewInboundReanalyzeTask builds the inbound:reanalyze task of a
// re-analysis (enqueued through the outbox with id "reanalyze:<id>").
func NewInboundReanalyzeTask(reanalysisID int64) (*asynq.Task, error) {
	b, err := json.Marshal(ReanalyzePayload{ReanalysisID: reanalysisID})
	if err != nil {
		return nil, err
	}
	return asynq.NewTask(TypeInboundReanalyze, b), nil
}

// QueueReanalysis adds the inbound:reanalyze outbox row inside tx and
// returns its task id.
func QueueReanalysis(ctx context.Context, tx *store.Tx, q Queues, reanalysisID int64) (string, error) {
	t, err := NewInboundReanalyzeTask(reanalysisID)
	row, err := outboxRow(t, err, fmt.Sprintf("reanalyze:%d", reanalysisID), q.Agent, time.Now().UTC())
	if err != nil {
		return "", err
	}
	return row.TaskID, tx.InsertOutbox(ctx, row)
}

// InboundReanalyzeHandler runs inbound:reanalyze tasks with the worker's
// analyzer. A message that cannot be re-analysed fails the re-analysis
// with the reason instead of retrying; so does the last retry.
type InboundReanalyzeHandler struct {
	Proc     *inbound.Processor
	Analyzer workflow.Analyzer
	Log      *zap.Logger
}

// ProcessTask implements asynq.Handler.
func (h *InboundReanalyzeHandler) ProcessTask(ctx context.Context, t *asynq.Task) error {
	p, err := decodePayload(t, func(p ReanalyzePayload) bool { return p.ReanalysisID > 0 })
	if err != nil {
		return err
	}
	err = h.Proc.Reanalyze(ctx, p.ReanalysisID, h.Analyzer)
	if err == nil {
		return nil
	}
	retried, _ := asynq.GetRetryCount(ctx)
	maxRetry, ok := asynq.GetMaxRetry(ctx)
	final := errors.Is(err, inbound.ErrCannotReanalyze) || errors.Is(err, store.ErrNotFound) || (ok && retried >= maxRetry)
	h.Log.Warn("re-analysis failed", zap.Int64("reanalysis", p.ReanalysisID), zap.Bool("final", final), zap.Error(err))
	if !final {
		return err
	}
	if ferr := h.Proc.Store.FailReanalysis(ctx, p.ReanalysisID, err.Error()); ferr != nil {
		return ferr
	}
	return fmt.Errorf("%w: %w", err, asynq.SkipRetry)
}
