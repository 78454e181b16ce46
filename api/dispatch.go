package api

import (
	"context"
	"time"

	"go.uber.org/zap"

	"github.com/foiaflow/foiaflow/store"
)

// dispatchTimeout bounds the post-commit enqueue of a request's outbox rows.
const dispatchTimeout = 5 * time.Second

// dispatchAfterCommit hands committed outbox rows to asynq. It survives the
// client hanging up (the work is committed) and a failure is logged, not
// returned: the rows stay in the outbox and the scheduler's relay heals it
// (I6).
func (s *Server) dispatchAfterCommit(ctx context.Context, rows []store.OutboxRow) {
	if len(rows) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), dispatchTimeout)
	defer cancel()
	if err := s.dispatch.Dispatch(ctx, rows); err != nil {
		s.log.Warn("dispatch after commit failed; the outbox relay will retry", zap.Int("rows", len(rows)), zap.Error(err))
	}
}
