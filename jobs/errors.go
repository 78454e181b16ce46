package jobs

import (
	"errors"
	"time"

	"github.com/hibiken/asynq"

	"github.com/foiaflow/foiaflow/store"
)

// errCaseBusy: an older run of the case is still queued or running; this
// run's first step waits for it.
var errCaseBusy = errors.New("jobs: case has an older active run")

// notYetError asks for the task to come back at a later time without
// counting a failure.
type notYetError struct{ delay time.Duration }

func (e notYetError) Error() string { return "jobs: not yet due, retry in " + e.delay.String() }

// IsFailure is the asynq IsFailure func: lock contention, an older active
// run, a not-yet-due task and lease expiry are not failures, so they consume
// no retries (I1, I6).
func IsFailure(err error) bool {
	var ny notYetError
	switch {
	case errors.Is(err, store.ErrLockBusy), errors.Is(err, errCaseBusy), errors.As(err, &ny),
		errors.Is(err, asynq.ErrLeaseExpired):
		return false
	}
	return true
}

// RetryDelay is the asynq RetryDelayFunc: milliseconds for contention, the
// requested delay for not-yet-due work, exponential backoff otherwise.
func RetryDelay(n int, err error, t *asynq.Task) time.Duration {
	var ny notYetError
	switch {
	case errors.Is(err, store.ErrLockBusy), errors.Is(err, errCaseBusy):
		return lockBusyDelay
	case errors.As(err, &ny):
		return ny.delay
	case errors.Is(err, asynq.ErrLeaseExpired):
		return 0
	}
	d := 250 * time.Millisecond << min(n, 8)
	return min(d, time.Minute)
}
