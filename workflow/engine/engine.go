// Package engine is foiaflow's generic durable step engine (DESIGN.md "The
// graph"; seed 000 §2): a Graph[S, T] is a set of named nodes over a typed
// state S. One call to Engine.Step runs exactly one node: the node computes
// outside any transaction (reads, LLM calls through Memo) under the step's
// deadline, then its Commit function applies its effects inside the
// transaction T that also advances the run's checkpoint (I2).
//
// It imports nothing of the project and knows nothing about FOIA, Postgres
// or asynq: persistence is behind Checkpointer and Memoizer (the store
// implements them, jobs drives the engine from tasks, and the FOIA graph in
// package workflow is one graph built on it).
package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// RouteKind says what happens after a node.
type RouteKind string

// Route kinds.
const (
	RouteNext RouteKind = "next" // continue with Route.Next in a new task
	RoutePark RouteKind = "park" // stop at a human gate with Route.Interrupt
	RouteEnd  RouteKind = "end"  // the run is finished
)

// Route is a node's decision about what comes next. Build it with Next, Park
// or End.
type Route struct {
	Kind      RouteKind
	Next      string
	Interrupt any       // Park only: JSON-encodable gate payload
	EndStatus RunStatus // End only: run status, default RunCompleted
}

// Next continues the run with the named node.
func Next(node string) Route { return Route{Kind: RouteNext, Next: node} }

// Park stops the run at a human gate; payload is stored as the run's
// interrupt payload and shown to reviewers.
func Park(payload any) Route { return Route{Kind: RoutePark, Interrupt: payload} }

// End finishes the run with status (RunCompleted when empty).
func End(status RunStatus) Route {
	if status == "" {
		status = RunCompleted
	}
	return Route{Kind: RouteEnd, EndStatus: status}
}

// RunStatus is a run's lifecycle state (runs.status in the schema).
type RunStatus string

// Run statuses.
const (
	RunQueued     RunStatus = "queued"
	RunRunning    RunStatus = "running"
	RunParked     RunStatus = "parked"
	RunCompleted  RunStatus = "completed"
	RunFailed     RunStatus = "failed"
	RunSuperseded RunStatus = "superseded"
	RunCancelled  RunStatus = "cancelled"
)

// Active reports whether a step may still run without a human: queued or
// running.
func (s RunStatus) Active() bool { return s == RunQueued || s == RunRunning }

// Final reports whether the run is over (completed, failed, superseded or
// cancelled).
func (s RunStatus) Final() bool {
	return s == RunCompleted || s == RunFailed || s == RunSuperseded || s == RunCancelled
}

// StepStatus is how one step ended (run_steps.outcome): its route kind, or
// StepError when the engine failed the run.
type StepStatus string

// Step statuses.
const (
	StepNext  StepStatus = StepStatus(RouteNext)
	StepPark  StepStatus = StepStatus(RoutePark)
	StepEnd   StepStatus = StepStatus(RouteEnd)
	StepError StepStatus = "error"
)

// Outcome is what a node returns: its new state, its route and, optionally,
// the effects to commit with the checkpoint. Commit may change State and
// Route (for example to put a proposal id assigned by the database into the
// state and the gate payload).
type Outcome[S, T any] struct {
	State  S
	Route  Route
	Commit func(ctx context.Context, tx T, o *Outcome[S, T]) error
}

// Env is what the engine gives a node besides its state.
type Env struct {
	RunID   int64
	StepSeq int
	Node    string
	Memo    *Memo
	Now     time.Time // step start, UTC, from the injected clock
}

// NodeFunc runs one node. It must not write to the database itself: writes go
// in Outcome.Commit so they commit with the checkpoint.
type NodeFunc[S, T any] func(ctx context.Context, env Env, s S) (Outcome[S, T], error)

// Graph is a named set of nodes with a start node and a step bound.
type Graph[S, T any] struct {
	Start    string
	MaxSteps int // a run that takes more steps than this fails (loop guard)
	nodes    map[string]NodeFunc[S, T]
	order    []string
}

// NewGraph returns an empty graph starting at start, failing runs after
// maxSteps steps.
func NewGraph[S, T any](start string, maxSteps int) *Graph[S, T] {
	return &Graph[S, T]{Start: start, MaxSteps: maxSteps, nodes: map[string]NodeFunc[S, T]{}}
}

// Add registers a node. Adding a name twice panics (a programming error).
func (g *Graph[S, T]) Add(name string, fn NodeFunc[S, T]) *Graph[S, T] {
	if _, dup := g.nodes[name]; dup {
		panic("engine: duplicate node " + name)
	}
	g.nodes[name] = fn
	g.order = append(g.order, name)
	return g
}

// Nodes returns node names in registration order.
func (g *Graph[S, T]) Nodes() []string { return append([]string(nil), g.order...) }

// Has reports whether a node exists.
func (g *Graph[S, T]) Has(name string) bool { _, ok := g.nodes[name]; return ok }

// RunState is the checkpoint the engine reads before a step.
type RunState struct {
	RunID    int64
	Status   RunStatus
	NextNode string
	StepSeq  int
	State    json.RawMessage
}

// Checkpoint is what a step commits: the run advances from FromSeq to
// FromSeq+1 only if its checkpoint is still at FromSeq (I3).
type Checkpoint struct {
	RunID     int64
	FromSeq   int
	Status    RunStatus // RunRunning (next node queued), RunParked, or a final status
	NextNode  string
	State     json.RawMessage
	Interrupt json.RawMessage // nil unless parked
	Error     string
	Step      StepRecord
}

// ToSeq is the step_seq after this checkpoint.
func (c Checkpoint) ToSeq() int { return c.FromSeq + 1 }

// StepRecord is one row of step history (run_steps).
type StepRecord struct {
	Seq        int
	Node       string
	Outcome    StepStatus
	NextNode   string
	StateDelta json.RawMessage
	Error      string
	StartedAt  time.Time
	FinishedAt time.Time
}

// Checkpointer commits a step: it opens one transaction, calls apply (which
// runs the node's effects in it and returns the checkpoint), advances the
// run's checkpoint with compare-and-set on fromSeq, records the step and the
// outbox row for the next task, and commits (I2). It returns
// ErrStaleCheckpoint when the run was no longer at fromSeq; nothing is
// committed then.
type Checkpointer[T any] interface {
	CommitStep(ctx context.Context, runID int64, fromSeq int, apply func(ctx context.Context, tx T) (Checkpoint, error)) error
}

// ErrStaleCheckpoint means the run's checkpoint moved past the step that was
// about to commit: the task was a duplicate or late (I3), and is a no-op.
var ErrStaleCheckpoint = errors.New("engine: stale checkpoint")

// ErrNotRunnable means the run is not in a state where a step may run
// (parked, finished). The task is a no-op.
var ErrNotRunnable = errors.New("engine: run not runnable")

// Clock gives the current time; tests pass a fixed one.
type Clock func() time.Time

// Engine runs one step of a graph.
type Engine[S, T any] struct {
	Graph *Graph[S, T]
	CP    Checkpointer[T]
	Memo  Memoizer
	Clock Clock
}

// StepResult reports what a step did.
type StepResult struct {
	Node   string
	Route  Route
	ToSeq  int
	Status RunStatus
}

// Step runs the node the run's checkpoint points at, if the checkpoint is
// still at seq. Duplicate or late tasks return ErrStaleCheckpoint; runs not
// in queued/running return ErrNotRunnable. A node error is returned wrapped
// and nothing is committed (the task is retried). An unknown node or an
// exceeded step bound fails the run (committed, status failed).
func (e *Engine[S, T]) Step(ctx context.Context, rs RunState, seq int) (StepResult, error) {
	if rs.StepSeq != seq {
		return StepResult{}, ErrStaleCheckpoint
	}
	if rs.Status != RunQueued && rs.Status != RunRunning {
		return StepResult{}, ErrNotRunnable
	}
	fn, ok := e.Graph.nodes[rs.NextNode]
	if !ok {
		return e.fail(ctx, rs, e.now(), fmt.Sprintf("unknown node %q", rs.NextNode))
	}
	if e.Graph.MaxSteps > 0 && seq >= e.Graph.MaxSteps {
		return e.fail(ctx, rs, e.now(), fmt.Sprintf("step bound %d exceeded", e.Graph.MaxSteps))
	}
	return e.run(ctx, rs, seq, rs.NextNode, fn)
}

// Resume runs fn as a step named node on a parked run whose checkpoint is at
// seq: the human decision is applied with the same atomic checkpoint as any
// step (I2, I3). Runs not parked return ErrNotRunnable.
func (e *Engine[S, T]) Resume(ctx context.Context, rs RunState, seq int, node string, fn NodeFunc[S, T]) (StepResult, error) {
	if rs.StepSeq != seq {
		return StepResult{}, ErrStaleCheckpoint
	}
	if rs.Status != RunParked {
		return StepResult{}, ErrNotRunnable
	}
	return e.run(ctx, rs, seq, node, fn)
}

func (e *Engine[S, T]) run(ctx context.Context, rs RunState, seq int, node string, fn NodeFunc[S, T]) (StepResult, error) {
	start := e.now()
	var s S
	before := rs.State
	if len(rs.State) > 0 {
		if err := json.Unmarshal(rs.State, &s); err != nil {
			return e.fail(ctx, rs, start, fmt.Sprintf("decode state: %v", err))
		}
		// The step's delta compares encodings by bytes: the state as read
		// is re-encoded as the outcome will be (Postgres returns jsonb with
		// its own spacing and key order, so every object or array field of
		// the stored text would look changed).
		b, err := json.Marshal(s)
		if err != nil {
			return e.fail(ctx, rs, start, fmt.Sprintf("encode state: %v", err))
		}
		before = b
	}
	env := Env{RunID: rs.RunID, StepSeq: seq, Node: node, Now: start,
		Memo: &Memo{store: e.Memo, runID: rs.RunID, seq: seq}}
	out, err := callNode(ctx, fn, env, s)
	if err != nil {
		return StepResult{}, fmt.Errorf("node %s: %w", node, err)
	}
	var res StepResult
	err = e.CP.CommitStep(ctx, rs.RunID, seq, func(ctx context.Context, tx T) (Checkpoint, error) {
		o := out // a retried transaction starts again from the node's outcome
		if o.Commit != nil {
			if err := o.Commit(ctx, tx, &o); err != nil {
				return Checkpoint{}, err
			}
		}
		cp, err := e.checkpoint(rs, before, seq, node, start, o)
		res = StepResult{Node: node, Route: o.Route, ToSeq: cp.ToSeq(), Status: cp.Status}
		return cp, err
	})
	if err != nil {
		return StepResult{}, err
	}
	return res, nil
}

// callNode runs fn under ctx and returns when fn does or when ctx ends,
// whichever comes first: a node that ignores its context cannot hold the
// step (and whatever the caller holds for it, such as a lock) past the
// step's deadline. A late outcome is discarded; a panic becomes an error.
func callNode[S, T any](ctx context.Context, fn NodeFunc[S, T], env Env, s S) (Outcome[S, T], error) {
	type result struct {
		out Outcome[S, T]
		err error
	}
	ch := make(chan result, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				ch <- result{err: fmt.Errorf("panic: %v", p)}
			}
		}()
		out, err := fn(ctx, env, s)
		ch <- result{out, err}
	}()
	select {
	case r := <-ch:
		return r.out, r.err
	case <-ctx.Done():
		return Outcome[S, T]{}, fmt.Errorf("abandoned at the step deadline: %w", context.Cause(ctx))
	}
}

// checkpoint turns a node outcome into the checkpoint to commit; before is
// the step's input state encoded as the outcome is (for the delta).
func (e *Engine[S, T]) checkpoint(rs RunState, before json.RawMessage, seq int, node string, start time.Time, o Outcome[S, T]) (Checkpoint, error) {
	state, err := json.Marshal(o.State)
	if err != nil {
		return Checkpoint{}, fmt.Errorf("encode state: %w", err)
	}
	cp := Checkpoint{RunID: rs.RunID, FromSeq: seq, State: state,
		Step: StepRecord{Seq: seq, Node: node, Outcome: StepStatus(o.Route.Kind),
			StateDelta: stateDelta(before, state), StartedAt: start, FinishedAt: e.now()}}
	switch o.Route.Kind {
	case RouteNext:
		if !e.Graph.Has(o.Route.Next) {
			return Checkpoint{}, fmt.Errorf("node %s routed to unknown node %q", node, o.Route.Next)
		}
		cp.Status, cp.NextNode = RunRunning, o.Route.Next
	case RoutePark:
		ip, err := json.Marshal(o.Route.Interrupt)
		if err != nil {
			return Checkpoint{}, fmt.Errorf("encode interrupt: %w", err)
		}
		cp.Status, cp.Interrupt = RunParked, ip
	case RouteEnd:
		cp.Status = o.Route.EndStatus
		if cp.Status == "" {
			cp.Status = RunCompleted
		}
	default:
		return Checkpoint{}, fmt.Errorf("node %s returned no route", node)
	}
	cp.Step.NextNode = cp.NextNode
	return cp, nil
}

func (e *Engine[S, T]) now() time.Time {
	if e.Clock != nil {
		return e.Clock().UTC()
	}
	return time.Now().UTC()
}

// fail commits the run as failed with reason.
func (e *Engine[S, T]) fail(ctx context.Context, rs RunState, start time.Time, reason string) (StepResult, error) {
	cp := Checkpoint{RunID: rs.RunID, FromSeq: rs.StepSeq, Status: RunFailed, State: rs.State, Error: reason,
		Step: StepRecord{Seq: rs.StepSeq, Node: rs.NextNode, Outcome: StepError, Error: reason,
			StartedAt: start, FinishedAt: e.now(), StateDelta: json.RawMessage("{}")}}
	if err := e.CP.CommitStep(ctx, rs.RunID, rs.StepSeq, func(context.Context, T) (Checkpoint, error) { return cp, nil }); err != nil {
		return StepResult{}, err
	}
	return StepResult{Node: rs.NextNode, Route: End(RunFailed), ToSeq: cp.ToSeq(), Status: RunFailed}, nil
}

// stateDelta returns the top-level JSON fields of after that differ from
// before, for step history.
func stateDelta(before, after json.RawMessage) json.RawMessage {
	var b, a map[string]json.RawMessage
	_ = json.Unmarshal(before, &b)
	if err := json.Unmarshal(after, &a); err != nil {
		return json.RawMessage("{}")
	}
	d := map[string]json.RawMessage{}
	for k, v := range a {
		if ov, ok := b[k]; !ok || !bytes.Equal(ov, v) {
			d[k] = v
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			d[k] = json.RawMessage("null")
		}
	}
	out, _ := json.Marshal(d)
	return out
}
