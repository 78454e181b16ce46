package jobs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hibiken/asynq"
	"go.uber.org/zap"

	"github.com/foiaflow/foiaflow/store"
)

// Dispatcher hands committed outbox rows to asynq with their deterministic
// TaskIDs. An ErrTaskIDConflict means the task is already queued: success.
type Dispatcher struct {
	Client *asynq.Client
	Store  *store.Store
	Log    *zap.Logger
	// Marker, when set, stamps rows dispatched asynchronously in batches
	// (the worker's hot path); nil stamps them before Dispatch returns.
	Marker *DispatchMarker
	// Timeout bounds each task's run (asynq.Timeout, STEP_TIMEOUT); 0 leaves
	// asynq's 30 min default.
	Timeout time.Duration
}

// Dispatch enqueues rows and stamps them dispatched. Rows that fail stay
// undispatched for the relay; the first error is returned.
func (d *Dispatcher) Dispatch(ctx context.Context, rows []store.OutboxRow) error {
	var ok []int64
	var first error
	for _, r := range rows {
		if err := d.enqueue(ctx, r); err != nil {
			if first == nil {
				first = err
			}
			_ = d.Store.MarkDispatchFailed(ctx, r.ID, err.Error())
			continue
		}
		ok = append(ok, r.ID)
	}
	if d.Marker != nil {
		d.Marker.Add(ok)
		return first
	}
	if err := d.Store.MarkDispatched(ctx, ok); err != nil && first == nil {
		first = err
	}
	return first
}

func (d *Dispatcher) enqueue(ctx context.Context, r store.OutboxRow) error {
	opts := []asynq.Option{asynq.TaskID(r.TaskID), asynq.Queue(r.Queue), asynq.MaxRetry(MaxRetry)}
	if d.Timeout > 0 {
		opts = append(opts, asynq.Timeout(d.Timeout))
	}
	if r.ProcessAt.After(time.Now().Add(50 * time.Millisecond)) {
		opts = append(opts, asynq.ProcessAt(r.ProcessAt))
	}
	_, err := d.Client.EnqueueContext(ctx, asynq.NewTask(r.TaskType, r.Payload), opts...)
	if err != nil && !errors.Is(err, asynq.ErrTaskIDConflict) {
		return fmt.Errorf("enqueue %s: %w", r.TaskID, err)
	}
	return nil
}

// Relay dispatches outbox rows left undispatched for longer than grace (a
// process died between commit and dispatch, or Redis was down). It returns
// how many rows it dispatched.
func (d *Dispatcher) Relay(ctx context.Context, grace time.Duration, limit int) (int, error) {
	rows, err := d.Store.PendingOutbox(ctx, time.Now().Add(-grace), limit)
	if err != nil {
		return 0, fmt.Errorf("relay: list outbox: %w", err)
	}
	if len(rows) == 0 {
		return 0, nil
	}
	err = d.Dispatch(ctx, rows)
	if d.Log != nil {
		d.Log.Info("outbox relay dispatched", zap.Int("rows", len(rows)), zap.Error(err))
	}
	return len(rows), err
}

// afterCommitTimeout bounds the post-commit enqueue of a use case's outbox
// rows.
const afterCommitTimeout = 5 * time.Second

// AfterCommit hands a committed transaction's outbox rows to asynq. It
// survives the caller's context ending (the work is committed) and a
// failure is logged, not returned: the rows stay in the outbox and the
// scheduler's relay dispatches them (I6).
func (d *Dispatcher) AfterCommit(ctx context.Context, rows []store.OutboxRow) {
	if len(rows) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), afterCommitTimeout)
	defer cancel()
	if err := d.Dispatch(ctx, rows); err != nil && d.Log != nil {
		d.Log.Warn("dispatch after commit failed; the outbox relay will retry", zap.Int("rows", len(rows)), zap.Error(err))
	}
}
