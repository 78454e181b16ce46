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
	// Recovery holds the steps, resumes and parses the reaper dispatches
	// again (dispatch generation > 0): work a dead worker or a Redis wipe
	// left behind goes ahead of the backlog of new work, so it recovers in
	// seconds (I6) rather than after every queued step.
	Recovery string
}

// DefaultQueues are the production queue names.
var DefaultQueues = PrefixedQueues("")

// PrefixedQueues returns the queues with prefix prepended.
func PrefixedQueues(prefix string) Queues {
	return Queues{Agent: prefix + "agent", Email: prefix + "email", Recovery: prefix + "recovery"}
}

// Weights returns asynq queue priorities: email sends and recovered work
// before graph steps, so approved mail and work a dead worker held never
// wait behind a backlog.
func (q Queues) Weights() map[string]int {
	return map[string]int{q.Agent: 3, q.Email: 6, q.Recovery: 6}
}

// AgentFor is the queue of an agent-side task (step, resume, parse) of
// dispatch generation gen: the first dispatch goes to Agent, the reaper's
// re-dispatches to Recovery.
func (q Queues) AgentFor(gen int) string {
	if gen > 0 {
		return q.Recovery
	}
	return q.Agent
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
