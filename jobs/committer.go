package jobs

import (
	"context"
	"encoding/json"
	"time"

	"github.com/hibiken/asynq"

	"github.com/foiaflow/foiaflow/store"
	"github.com/foiaflow/foiaflow/workflow"
)

// caseTx is the graph's transaction: the store's Tx plus the outbox rows that
// only this package knows how to build.
type caseTx struct {
	*store.Tx
	queues Queues
}

// QueueEmail claims the execution key and adds its email:send outbox row,
// due at the stored send-time (I5).
func (t caseTx) QueueEmail(ctx context.Context, e workflow.EmailSend) error {
	created, err := t.InsertEmailSend(ctx, e)
	if err != nil || !created {
		return err
	}
	row, err := emailOutbox(t.queues, e.ExecutionKey, e.SendAfter, 0)
	if err != nil {
		return err
	}
	return t.InsertOutbox(ctx, row)
}

// committer implements workflow.Checkpointer for one task: effects,
// checkpoint CAS, step history and the next step's outbox row in one
// transaction (I2). It keeps the outbox rows for dispatch after commit.
//
// The transaction runs on the connection that holds the case lock and its
// commit releases the lock (store.CaseLock.CommitUnlock): effects,
// checkpoint, outbox row, COMMIT and unlock in one round trip when no
// effect reads a result back.
type committer struct {
	lock     *store.CaseLock
	queues   Queues
	workerID string
	caseID   int64
	outbox   []store.OutboxRow
}

func (c *committer) CommitStep(ctx context.Context, runID int64, fromSeq int, apply func(context.Context, workflow.CaseTx) (workflow.Checkpoint, error)) error {
	rows, err := c.lock.CommitUnlock(ctx, func(tx *store.Tx) error {
		cp, err := apply(ctx, caseTx{Tx: tx, queues: c.queues})
		if err != nil {
			return err
		}
		if err := tx.AdvanceRun(ctx, cp, c.workerID); err != nil {
			return err
		}
		if cp.Status == workflow.RunRunning {
			row, err := stepOutbox(c.queues, c.caseID, runID, cp.ToSeq(), 0)
			if err != nil {
				return err
			}
			return tx.InsertOutbox(ctx, row)
		}
		return nil
	})
	c.outbox = rows
	return err
}

// outboxRow turns a task into the outbox row that enqueues it with its
// deterministic id.
func outboxRow(t *asynq.Task, err error, id, queue string, at time.Time) (store.OutboxRow, error) {
	if err != nil {
		return store.OutboxRow{}, err
	}
	return store.OutboxRow{TaskType: t.Type(), TaskID: id, Payload: t.Payload(), Queue: queue, ProcessAt: at}, nil
}

func stepOutbox(q Queues, caseID, runID int64, seq, gen int) (store.OutboxRow, error) {
	t, err := NewAgentStepTask(StepPayload{RunID: runID, StepSeq: seq, CaseID: caseID})
	return outboxRow(t, err, StepTaskID(runID, seq, gen), q.AgentFor(gen), time.Now().UTC())
}

func emailOutbox(q Queues, key string, at time.Time, gen int) (store.OutboxRow, error) {
	t, err := NewEmailSendTask(key)
	return outboxRow(t, err, emailTaskID(key, gen), q.Email, at)
}

func resumeOutbox(q Queues, decisionID int64, gen int) (store.OutboxRow, error) {
	t, err := NewAgentResumeTask(decisionID)
	return outboxRow(t, err, resumeTaskID(decisionID, gen), q.AgentFor(gen), time.Now().UTC())
}

// StartRun creates a run (deduplicated by its trigger key) and the outbox row
// of its first step inside tx, so a stored reply and its run commit together.
// It returns the run and whether it was created now.
func StartRun(ctx context.Context, tx *store.Tx, q Queues, n store.NewRun) (store.Run, bool, error) {
	if n.StartNode == "" {
		n.StartNode = workflow.NodeLoadContext
	}
	if n.State == nil {
		st := workflow.CaseState{CaseID: n.CaseID, Trigger: n.Trigger, TriggerKey: n.TriggerKey, TriggerMessageID: n.TriggerMessageID}
		b, err := json.Marshal(st)
		if err != nil {
			return store.Run{}, false, err
		}
		n.State = b
	}
	run, created, err := tx.CreateRun(ctx, n)
	if err != nil || !created {
		return run, created, err
	}
	row, err := stepOutbox(q, run.CaseID, run.ID, 0, 0)
	if err != nil {
		return run, created, err
	}
	return run, true, tx.InsertOutbox(ctx, row)
}

// QueueResume adds the agent:resume outbox row of a decision inside tx and
// returns its task id.
func QueueResume(ctx context.Context, tx *store.Tx, q Queues, decisionID int64) (string, error) {
	row, err := resumeOutbox(q, decisionID, 0)
	if err != nil {
		return "", err
	}
	return row.TaskID, tx.InsertOutbox(ctx, row)
}
