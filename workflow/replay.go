package workflow

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/foiaflow/foiaflow/workflow/engine"
)

// ErrForkState is returned by ForkState when the edited state cannot start
// a replay: not a JSON object, an unknown or read-only field, or a value of
// the wrong type. The message names the field.
var ErrForkState = errors.New("workflow: invalid fork state")

// forkReadOnly are the state fields a fork's edit may not set: they tie the
// run to its case and trigger, or belong to the parent's proposal and its
// human decisions, which the replay does not inherit.
var forkReadOnly = []string{"case_id", "trigger", "trigger_key", "trigger_message_id", "replay_of",
	"proposal_id", "proposal_key", "proposal_version", "adjust_count", "human", "dismissed", "skipped",
	"execution_key", "executed"}

// ForkState is the state a replay of run parentID starts from (time
// travel): checkpoint is the state the chosen step read (engine.StateAt),
// edit an optional JSON object of top-level CaseState fields that replace
// the checkpoint's (null removes one), and triggerKey the replay's own
// trigger key, so its proposal keys are its own (I4). The replay keeps the
// parent's case and trigger, starts with no proposal and no human decision,
// and is marked ReplayOf parentID: it proposes and executes nothing without
// a human decision. Errors wrap ErrForkState.
func ForkState(checkpoint, edit json.RawMessage, parentID int64, triggerKey string) (CaseState, error) {
	base := map[string]json.RawMessage{}
	if err := json.Unmarshal(checkpoint, &base); err != nil {
		return CaseState{}, fmt.Errorf("%w: checkpoint of run %d: %v", ErrForkState, parentID, err)
	}
	if len(bytes.TrimSpace(edit)) > 0 && string(bytes.TrimSpace(edit)) != "null" {
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(edit, &fields); err != nil || fields == nil {
			return CaseState{}, fmt.Errorf("%w: state must be a JSON object of CaseState fields", ErrForkState)
		}
		keys := make([]string, 0, len(fields))
		for k := range fields {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if slices.Contains(forkReadOnly, k) {
				return CaseState{}, fmt.Errorf("%w: field %q cannot be edited (read-only: %v)", ErrForkState, k, forkReadOnly)
			}
		}
		if err := engine.MergeState(base, edit); err != nil {
			return CaseState{}, fmt.Errorf("%w: %v", ErrForkState, err)
		}
	}
	merged, err := json.Marshal(base)
	if err != nil {
		return CaseState{}, fmt.Errorf("%w: %v", ErrForkState, err)
	}
	var s CaseState
	dec := json.NewDecoder(bytes.NewReader(merged))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return CaseState{}, fmt.Errorf("%w: %v", ErrForkState, err)
	}
	if s.Analysis != nil && !s.Analysis.Class.Valid() {
		return CaseState{}, fmt.Errorf("%w: analysis.class %q is not a known class", ErrForkState, s.Analysis.Class)
	}
	if s.AutopilotMode != "" && !s.AutopilotMode.Valid() {
		return CaseState{}, fmt.Errorf("%w: autopilot_mode %q is not AUTO, SUPERVISED or MANUAL", ErrForkState, s.AutopilotMode)
	}
	s.TriggerKey, s.ReplayOf = triggerKey, parentID
	s.ProposalID, s.ProposalKey, s.ProposalVersion, s.AdjustCount = 0, "", 0, 0
	s.Human, s.Dismissed, s.Skipped, s.ExecutionKey, s.Executed = nil, false, false, "", false
	return s, nil
}

// ProposeOnly reports whether the run is a replay no human has decided
// yet: it may propose, but executes nothing and leaves the case's facts,
// status and schedule as they are.
func (s CaseState) ProposeOnly() bool { return s.ReplayOf != 0 && s.Human == nil }

// GraphNode reports whether name is a node of the FOIA graph (a step a
// replay can start from; resume steps apply a human decision and are not).
func GraphNode(name string) bool { return graphShape.Has(name) }

// graphShape is the graph's node set, for GraphNode.
var graphShape = NewCaseGraph(&Deps{})
