// Package jobs adapts asynq tasks to the engine (STYLE.md §2): one task type
// per file, deterministic TaskIDs (I4), the outbox dispatcher and relay (I6),
// and the one place where errors map to asynq outcomes (errors.go).
package jobs

import (
	"fmt"
	"time"
)

// Queues names the asynq queues. Tests prefix them so parallel tests sharing
// one Redis never take each other's tasks.
type Queues struct {
	Agent string
	Email string
}

// DefaultQueues are the production queue names.
var DefaultQueues = Queues{Agent: "agent", Email: "email"}

// PrefixedQueues returns the queues with prefix prepended.
func PrefixedQueues(prefix string) Queues {
	return Queues{Agent: prefix + "agent", Email: prefix + "email"}
}

// Weights returns asynq queue priorities: email sends before graph steps so
// approved mail never waits behind a backlog.
func (q Queues) Weights() map[string]int {
	return map[string]int{q.Agent: 3, q.Email: 6}
}

// Retry policy.
const (
	// MaxRetry is the retry budget of every task; lock contention and lease
	// expiry do not consume it.
	MaxRetry = 8
	// lockBusyDelay is the re-queue delay when a case is locked.
	lockBusyDelay = 25 * time.Millisecond
)

// StepTaskID is the deterministic TaskID of a run's step (I4); gen > 0 is a
// reaper re-dispatch of the same step.
func StepTaskID(runID int64, seq, gen int) string {
	if gen > 0 {
		return fmt.Sprintf("step:%d:%d:g%d", runID, seq, gen)
	}
	return fmt.Sprintf("step:%d:%d", runID, seq)
}

// ResumeTaskID is the TaskID of the resume of a decision.
func ResumeTaskID(decisionID int64) string { return resumeTaskID(decisionID, 0) }

// resumeTaskID: gen > 0 is a reaper re-dispatch of the same resume.
func resumeTaskID(decisionID int64, gen int) string {
	if gen > 0 {
		return fmt.Sprintf("resume:%d:g%d", decisionID, gen)
	}
	return fmt.Sprintf("resume:%d", decisionID)
}

// EmailTaskID is the TaskID of the send of an execution key.
func EmailTaskID(executionKey string) string { return emailTaskID(executionKey, 0) }

// emailTaskID: gen > 0 is a reaper re-dispatch of the same send.
func emailTaskID(executionKey string, gen int) string {
	if gen > 0 {
		return fmt.Sprintf("email:%s:g%d", executionKey, gen)
	}
	return "email:" + executionKey
}
