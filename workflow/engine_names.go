// Package workflow owns the FOIA case graph (DESIGN.md "The graph"; seed 000
// §3–§4): its domain types, nodes and routing, built on the generic step
// engine in workflow/engine. It declares the interfaces it needs from
// storage (CaseReader, CaseTx) and from judgement (Analyzer, Drafter).
package workflow

import "github.com/foiaflow/foiaflow/workflow/engine"

// The engine's names as the FOIA graph and its callers use them; the
// definitions and their documentation are in workflow/engine.
type (
	Route        = engine.Route
	RouteKind    = engine.RouteKind
	RunStatus    = engine.RunStatus
	StepStatus   = engine.StepStatus
	Env          = engine.Env
	RunState     = engine.RunState
	Checkpoint   = engine.Checkpoint
	StepRecord   = engine.StepRecord
	StepResult   = engine.StepResult
	Clock        = engine.Clock
	Memo         = engine.Memo
	Memoizer     = engine.Memoizer
	MemoCall     = engine.MemoCall
	Checkpointer = engine.Checkpointer[CaseTx]
)

// Route kinds and run statuses (engine).
const (
	RouteNext     = engine.RouteNext
	RoutePark     = engine.RoutePark
	RouteEnd      = engine.RouteEnd
	RunQueued     = engine.RunQueued
	RunRunning    = engine.RunRunning
	RunParked     = engine.RunParked
	RunCompleted  = engine.RunCompleted
	RunFailed     = engine.RunFailed
	RunSuperseded = engine.RunSuperseded
	RunCancelled  = engine.RunCancelled
)

// Engine errors and route constructors.
var (
	ErrStaleCheckpoint = engine.ErrStaleCheckpoint
	ErrNotRunnable     = engine.ErrNotRunnable
	Next               = engine.Next
	Park               = engine.Park
	End                = engine.End
	StateAt            = engine.StateAt
)
