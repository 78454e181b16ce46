package jobs_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/foiaflow/foiaflow/workflow"
)

// hangingAnalyzer blocks its first call until released, ignoring its
// context (a hung dependency); later calls go to next.
type hangingAnalyzer struct {
	next    workflow.Analyzer
	once    sync.Once
	hung    chan struct{}
	release chan struct{}
}

func (a *hangingAnalyzer) Analyze(ctx context.Context, r workflow.Reply, c workflow.CaseContext) (workflow.Analysis, error) {
	first := false
	a.once.Do(func() { first = true })
	if first {
		close(a.hung)
		<-a.release
	}
	return a.next.Analyze(ctx, r, c)
}

// A step whose node hangs is bounded by the task's timeout (STEP_TIMEOUT as
// asynq.Timeout): the case lock is released while the node is still hung,
// the failure is recorded on the run, and the retried step completes.
func TestHungStepTimesOutReleasesLockAndRetries(t *testing.T) {
	h := newHarness(t, feeQuote(23750))
	hang := &hangingAnalyzer{next: h.analyzer, hung: make(chan struct{}), release: make(chan struct{})}
	t.Cleanup(func() { close(hang.release) })
	h.deps.Analyzer = hang
	h.dispatch.Timeout = time.Second
	h.startWorker("w", h.handlers("w"))

	caseID := h.newCase(workflow.AutopilotSupervised, "")
	run := h.deliver(caseID, "fee", false)
	waitClosed(t, "the analyzer to hang", hang.hung)
	ctx := context.Background()
	waitFor(t, "the timed-out step's error on the run", func() bool {
		r, err := h.st.GetRun(ctx, run.ID)
		return err == nil && strings.Contains(r.Error, "deadline")
	})
	parked := h.waitRun(run.ID, workflow.RunParked)
	if parked.Error != "" {
		t.Fatalf("parked run still carries the error %q; the committed step should clear it", parked.Error)
	}
	select {
	case <-hang.release:
		t.Fatal("released early")
	default: // the first call is still hung: the retry did not wait for it
	}
	// The retried step parks, then releases the lock: wait for the release
	// (the first call is still hung, so it cannot be what holds the lock).
	waitFor(t, "the case lock to be free while the first call is still hung", func() bool {
		free, err := h.st.CaseLockFree(ctx, caseID)
		return err == nil && free
	})
	if n := h.analyzer.Calls(); n != 1 {
		t.Fatalf("analyzer behind the hang called %d times, want 1 (the retry)", n)
	}
}
