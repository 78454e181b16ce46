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
)

// TypeInboundParse parses one stored raw inbound message (issue 10, "Store
// first, parse after"): the webhook stored the bytes and answered 2xx;
// this task parses them under limits, stores attachments, matches the
// message to its case and starts its run (inbound.Processor).
const TypeInboundParse = "inbound:parse"

// InboundParsePayload names the raw_messages row.
type InboundParsePayload struct {
	RawMessageID int64 `json:"raw_message_id"`
}

// NewInboundParseTask builds the inbound:parse task of a raw message
// (enqueued through the outbox with id InboundParseTaskID).
func NewInboundParseTask(rawMessageID int64) (*asynq.Task, error) {
	b, err := json.Marshal(InboundParsePayload{RawMessageID: rawMessageID})
	if err != nil {
		return nil, err
	}
	return asynq.NewTask(TypeInboundParse, b), nil
}

// InboundParseTaskID is the deterministic TaskID of a raw message's parse
// (I4); gen > 0 is a reaper re-dispatch.
func InboundParseTaskID(rawMessageID int64, gen int) string {
	if gen > 0 {
		return fmt.Sprintf("parse:%d:g%d", rawMessageID, gen)
	}
	return fmt.Sprintf("parse:%d", rawMessageID)
}

func parseOutbox(q Queues, rawMessageID int64, gen int) (store.OutboxRow, error) {
	t, err := NewInboundParseTask(rawMessageID)
	return outboxRow(t, err, InboundParseTaskID(rawMessageID, gen), q.AgentFor(gen), time.Now().UTC())
}

// QueueInboundParse adds the inbound:parse outbox row of a raw message
// inside tx (the webhook's transaction) and returns its task id.
func QueueInboundParse(ctx context.Context, tx *store.Tx, q Queues, rawMessageID int64) (string, error) {
	row, err := parseOutbox(q, rawMessageID, 0)
	if err != nil {
		return "", err
	}
	return row.TaskID, tx.InsertOutbox(ctx, row)
}

// parseBusyDelay is how soon a parse that found the parse budget spent
// comes back.
const parseBusyDelay = 250 * time.Millisecond

// InboundParseHandler runs inbound:parse tasks: under the raw message's
// advisory lock (so the reaper can tell a dead worker's parse from a live
// one), taken in the round trip that reads the raw message, it calls the
// processor, whose commit releases the lock, then dispatches the run it
// started.
type InboundParseHandler struct {
	Proc     *inbound.Processor
	Dispatch *Dispatcher
	Log      *zap.Logger
}

// ProcessTask implements asynq.Handler.
func (h *InboundParseHandler) ProcessTask(ctx context.Context, t *asynq.Task) error {
	p, err := decodePayload(t, func(p InboundParsePayload) bool { return p.RawMessageID > 0 })
	if err != nil {
		return err
	}
	lock, raw, err := h.Proc.Store.TryLockRawMessageRead(ctx, p.RawMessageID)
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("inbound:parse raw message %d: %w", p.RawMessageID, asynq.SkipRetry)
	}
	if err != nil {
		return err // ErrLockBusy: another worker parses it; no retry burnt
	}
	res, rows, err := func() (inbound.Result, []store.OutboxRow, error) {
		defer lock.Unlock(ctx)
		return h.Proc.ParseLocked(ctx, lock, raw)
	}()
	if errors.Is(err, inbound.ErrParseBusy) {
		return notYetError{delay: parseBusyDelay} // other large messages are parsing: no retry burnt
	}
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("inbound:parse raw message %d: %w", p.RawMessageID, asynq.SkipRetry)
	}
	if err != nil {
		retried, ok1 := asynq.GetRetryCount(ctx)
		maxRetry, ok2 := asynq.GetMaxRetry(ctx)
		if ok1 && ok2 && retried >= maxRetry && IsFailure(err) {
			h.Log.Error("inbound parse gave up: raw message kept, marked failed", zap.Int64("raw", p.RawMessageID), zap.Error(err))
			if gerr := h.Proc.Store.GiveUpRawMessage(ctx, p.RawMessageID, err.Error()); gerr != nil {
				return fmt.Errorf("%w (and marking it failed: %v)", err, gerr)
			}
			return fmt.Errorf("%w: %w", err, asynq.SkipRetry)
		}
		h.Log.Warn("inbound parse failed; will retry", zap.Int64("raw", p.RawMessageID), zap.Error(err))
		return err
	}
	if len(rows) > 0 {
		if derr := h.Dispatch.Dispatch(ctx, rows); derr != nil {
			h.Log.Warn("dispatch after parse failed; relay will retry", zap.Int64("run", res.RunID), zap.Error(derr))
		}
	}
	return nil
}
