package api

import (
	"context"

	"github.com/foiaflow/foiaflow/store"
)

// dispatchAfterCommit hands committed outbox rows to asynq
// (jobs.Dispatcher.AfterCommit: a failure is logged and the relay heals it,
// I6).
func (s *Server) dispatchAfterCommit(ctx context.Context, rows []store.OutboxRow) {
	s.dispatch.AfterCommit(ctx, rows)
}
