package engine

import (
	"encoding/json"
	"fmt"
)

// StateAt rebuilds a run's checkpointed state from the state it was created
// with and the state deltas of its steps in order (StepRecord.StateDelta, as
// Step writes them): each delta's top-level fields replace the state's, a
// null removes one. With the deltas of steps 0..n-1 it is the state step n
// read, the checkpoint a fork of the run from step n starts from. A state or
// delta that is not a JSON object is an error naming its position (-1: the
// initial state).
func StateAt(initial json.RawMessage, deltas ...json.RawMessage) (json.RawMessage, error) {
	s := map[string]json.RawMessage{}
	if len(initial) > 0 {
		if err := json.Unmarshal(initial, &s); err != nil || s == nil {
			return nil, fmt.Errorf("engine: initial state is not a JSON object: %v", err)
		}
	}
	for i, d := range deltas {
		if err := MergeState(s, d); err != nil {
			return nil, fmt.Errorf("engine: delta %d: %w", i, err)
		}
	}
	return json.Marshal(s)
}

// MergeState applies patch, a JSON object of top-level fields, to s: each
// field replaces s's, a null removes it (JSON merge patch, RFC 7386, one
// level deep). An empty patch changes nothing.
func MergeState(s map[string]json.RawMessage, patch json.RawMessage) error {
	if len(patch) == 0 {
		return nil
	}
	var p map[string]json.RawMessage
	if err := json.Unmarshal(patch, &p); err != nil || p == nil {
		return fmt.Errorf("not a JSON object: %s", truncate(patch, 40))
	}
	for k, v := range p {
		if string(v) == "null" {
			delete(s, k)
			continue
		}
		s[k] = v
	}
	return nil
}

func truncate(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return string(b[:n]) + "…"
}
