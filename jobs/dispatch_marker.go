package jobs

import (
	"context"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/foiaflow/foiaflow/store"
)

// DispatchMarker stamps outbox rows dispatched in batches, off the task's
// critical path: a step commits, enqueues its next task, and leaves the
// "dispatched" write to this batcher (one UPDATE for many rows). A stamp lost
// to a crash only means the relay enqueues the row again later, which is
// harmless: the task id conflicts or the step is fenced (I3, I4).
type DispatchMarker struct {
	Store *store.Store
	Log   *zap.Logger
	// Every is the flush interval (default 100ms: far under the relay's
	// grace, SCHEDULER_RELAY_GRACE 2s, and one UPDATE per interval instead
	// of about one per step at a few dozen steps/s).
	Every time.Duration

	mu      sync.Mutex
	pending []int64
	kick    chan struct{}
	once    sync.Once
}

func (m *DispatchMarker) init() {
	m.once.Do(func() { m.kick = make(chan struct{}, 1) })
}

// Add queues ids to be stamped.
func (m *DispatchMarker) Add(ids []int64) {
	if len(ids) == 0 {
		return
	}
	m.init()
	m.mu.Lock()
	m.pending = append(m.pending, ids...)
	full := len(m.pending) >= 512
	m.mu.Unlock()
	if full {
		select {
		case m.kick <- struct{}{}:
		default:
		}
	}
}

// Run flushes every Every until ctx ends, then flushes what is left.
func (m *DispatchMarker) Run(ctx context.Context) {
	m.init()
	every := m.Every
	if every <= 0 {
		every = 100 * time.Millisecond
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			m.Flush(context.WithoutCancel(ctx))
			return
		case <-t.C:
		case <-m.kick:
		}
		m.Flush(ctx)
	}
}

// Flush stamps everything queued so far.
func (m *DispatchMarker) Flush(ctx context.Context) {
	m.mu.Lock()
	ids := m.pending
	m.pending = nil
	m.mu.Unlock()
	if len(ids) == 0 {
		return
	}
	if err := m.Store.MarkDispatched(ctx, ids); err != nil && m.Log != nil {
		m.Log.Warn("stamping dispatched outbox rows failed; the relay will re-enqueue them", zap.Int("rows", len(ids)), zap.Error(err))
	}
}
