package inbound

import (
	"errors"

	"golang.org/x/sync/semaphore"
)

// ErrParseBusy: the parse budget is spent by other parses of this process;
// the parse should be tried again shortly (not a failure).
var ErrParseBusy = errors.New("inbound: parse budget in use, try again shortly")

// ParseBudget bounds the raw bytes this process parses at once
// (INBOUND_PARSE_BUDGET_BYTES). A parse holds its message's size, at most
// the whole budget, while it runs, so parallel large messages take turns
// instead of multiplying the worker's memory: a parse keeps its raw bytes
// and about 1.5 times as much again (decoded parts, text) alive.
type ParseBudget struct {
	max int64
	sem *semaphore.Weighted
}

// NewParseBudget returns a budget of bytes (> 0).
func NewParseBudget(bytes int64) *ParseBudget {
	return &ParseBudget{max: bytes, sem: semaphore.NewWeighted(bytes)}
}

// weight is what a message of size bytes holds: at least 1, at most the
// whole budget (a message larger than the budget parses alone).
func (b *ParseBudget) weight(size int64) int64 { return min(max(size, 1), b.max) }

// tryAcquire takes a message's share without waiting; false when the
// budget is in use. A nil budget always succeeds.
func (b *ParseBudget) tryAcquire(size int64) bool {
	return b == nil || b.sem.TryAcquire(b.weight(size))
}

// release returns a share taken by tryAcquire.
func (b *ParseBudget) release(size int64) {
	if b != nil {
		b.sem.Release(b.weight(size))
	}
}
