package workflow

import "github.com/foiaflow/foiaflow/workflow/engine"

// Node names of the FOIA case graph (seed 000 §4.1).
const (
	NodeLoadContext       = "load_context"
	NodeClassifyInbound   = "classify_inbound"
	NodeUpdateConstraints = "update_constraints"
	NodeDecideNextAction  = "decide_next_action"
	NodeDraftResponse     = "draft_response"
	NodeSafetyCheck       = "safety_check"
	NodeGateOrExecute     = "gate_or_execute"
	NodeExecuteAction     = "execute_action"
	NodeCommitState       = "commit_state"
	NodeResume            = "resume"
)

// CaseGraph is the FOIA graph's type: state CaseState, transaction CaseTx.
type CaseGraph = engine.Graph[CaseState, CaseTx]

// CaseEngine runs the FOIA graph.
type CaseEngine = engine.Engine[CaseState, CaseTx]

// CaseOutcome is a FOIA node's outcome.
type CaseOutcome = engine.Outcome[CaseState, CaseTx]

// CaseNode is a FOIA node.
type CaseNode = engine.NodeFunc[CaseState, CaseTx]

// NewCaseGraph builds the FOIA case graph on the engine.
func NewCaseGraph(d *Deps) *CaseGraph {
	max := d.MaxSteps
	if max <= 0 {
		max = 64
	}
	return engine.NewGraph[CaseState, CaseTx](NodeLoadContext, max).
		Add(NodeLoadContext, d.loadContext).
		Add(NodeClassifyInbound, d.classifyInbound).
		Add(NodeUpdateConstraints, d.updateConstraints).
		Add(NodeDecideNextAction, d.decideNextAction).
		Add(NodeDraftResponse, d.draftResponse).
		Add(NodeSafetyCheck, d.safetyCheck).
		Add(NodeGateOrExecute, d.gateOrExecute).
		Add(NodeExecuteAction, d.executeAction).
		Add(NodeCommitState, d.commitState)
}
