package jobs

import (
	"time"

	"github.com/hibiken/asynq"
)

// ServerOptions configures NewServer. The worker passes its configuration
// (WORKER_CONCURRENCY, WORKER_SHUTDOWN_TIMEOUT, WORKER_POLL_INTERVAL: their
// one default is in cmd/internal/app); a zero duration means asynq's own
// default.
type ServerOptions struct {
	Concurrency     int
	Queues          Queues
	ShutdownTimeout time.Duration
	// PollInterval is how often an idle worker looks for tasks; a graph hop
	// costs about this much, so it is milliseconds (zero: asynq's 1 s).
	PollInterval time.Duration
	// DelayedInterval is how often scheduled and retry tasks are promoted
	// (lock-busy re-queues go through it); 50 ms when zero.
	DelayedInterval time.Duration
	Logger          asynq.Logger
	LogLevel        asynq.LogLevel
}

// NewServer builds the asynq server with foiaflow's retry policy: lock
// contention and lease expiry are not failures (IsFailure), contention
// retries in milliseconds (RetryDelay).
func NewServer(r asynq.RedisConnOpt, o ServerOptions) *asynq.Server {
	if o.DelayedInterval <= 0 {
		o.DelayedInterval = 50 * time.Millisecond
	}
	return asynq.NewServer(r, asynq.Config{
		Concurrency:              o.Concurrency,
		Queues:                   o.Queues.Weights(),
		IsFailure:                IsFailure,
		RetryDelayFunc:           RetryDelay,
		ShutdownTimeout:          o.ShutdownTimeout,
		TaskCheckInterval:        o.PollInterval,
		DelayedTaskCheckInterval: o.DelayedInterval,
		Logger:                   o.Logger,
		LogLevel:                 o.LogLevel,
	})
}
