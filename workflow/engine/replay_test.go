package engine

import (
	"context"
	"encoding/json"
	"testing"
)

type trail struct {
	N     int      `json:"n"`
	Tag   string   `json:"tag,omitempty"`
	Items []string `json:"items,omitempty"`
}

// StateAt over the deltas the engine recorded gives back, for every step,
// the state that step read: a fork from step k starts where step k started.
func TestStateAtRebuildsEveryCheckpoint(t *testing.T) {
	t.Parallel()
	step := func(next string, f func(*trail)) NodeFunc[trail, *[]string] {
		return func(ctx context.Context, env Env, s trail) (Outcome[trail, *[]string], error) {
			f(&s)
			if next == "" {
				return Outcome[trail, *[]string]{State: s, Route: End("")}, nil
			}
			return Outcome[trail, *[]string]{State: s, Route: Next(next)}, nil
		}
	}
	g := NewGraph[trail, *[]string]("a", 10).
		Add("a", step("b", func(s *trail) { s.N++; s.Items = append(s.Items, "x") })).
		Add("b", step("c", func(s *trail) { s.Tag = ""; s.Items = append(s.Items, "y") })).
		Add("c", step("d", func(s *trail) { s.N *= 10 })).
		Add("d", step("", func(s *trail) { s.Items = nil; s.Tag = "done" }))
	initial := json.RawMessage(`{"n":1,"tag":"start"}`)
	cp := &memCP{run: RunState{RunID: 1, Status: RunQueued, NextNode: "a", State: initial}}
	e := &Engine[trail, *[]string]{Graph: g, CP: cp}
	read := []json.RawMessage{initial} // read[k]: the state step k read
	for seq := 0; cp.run.Status == RunQueued || cp.run.Status == RunRunning; seq++ {
		if _, err := e.Step(context.Background(), cp.run, seq); err != nil {
			t.Fatalf("step %d: %v", seq, err)
		}
		read = append(read, cp.run.State)
	}
	if len(cp.steps) != 4 {
		t.Fatalf("ran %d steps, want 4", len(cp.steps))
	}
	for k := range read {
		var deltas []json.RawMessage
		for _, s := range cp.steps[:k] {
			deltas = append(deltas, s.StateDelta)
		}
		got, err := StateAt(initial, deltas...)
		if err != nil {
			t.Fatalf("StateAt(%d): %v", k, err)
		}
		var want, have trail
		_ = json.Unmarshal(read[k], &want)
		if err := json.Unmarshal(got, &have); err != nil {
			t.Fatalf("StateAt(%d) = %s: %v", k, got, err)
		}
		if wb, _ := json.Marshal(want); string(wb) != mustJSON(t, have) {
			t.Fatalf("state before step %d = %s, want %s", k, got, read[k])
		}
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestMergeStateReplacesAndRemovesTopLevelFields(t *testing.T) {
	t.Parallel()
	s := map[string]json.RawMessage{"a": json.RawMessage(`1`), "b": json.RawMessage(`{"x":1}`)}
	if err := MergeState(s, json.RawMessage(`{"a":null,"b":{"y":2},"c":"new"}`)); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(s)
	if string(b) != `{"b":{"y":2},"c":"new"}` {
		t.Fatalf("merged = %s", b)
	}
	for _, bad := range []string{`[1]`, `"x"`, `null`, `{`} {
		if err := MergeState(s, json.RawMessage(bad)); err == nil {
			t.Errorf("MergeState(%s) = nil, want an error", bad)
		}
	}
	if _, err := StateAt(json.RawMessage(`[]`)); err == nil {
		t.Error("StateAt of a non-object initial state = nil error")
	}
}
