package engine

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"testing"
)

// memCP is an in-memory Checkpointer: it applies checkpoints to one run with
// the same compare-and-set rule as the store.
type memCP struct {
	run   RunState
	steps []StepRecord
	log   []string
}

func (m *memCP) CommitStep(ctx context.Context, runID int64, fromSeq int, apply func(context.Context, *[]string) (Checkpoint, error)) error {
	tx := append([]string(nil), m.log...)
	cp, err := apply(ctx, &tx)
	if err != nil {
		return err
	}
	if m.run.StepSeq != fromSeq {
		return ErrStaleCheckpoint
	}
	m.log = tx
	m.run = RunState{RunID: runID, Status: cp.Status, NextNode: cp.NextNode, StepSeq: cp.ToSeq(), State: cp.State}
	m.steps = append(m.steps, cp.Step)
	return nil
}

type counter struct {
	N int `json:"n"`
}

func testGraph() *Graph[counter, *[]string] {
	return NewGraph[counter, *[]string]("a", 5).
		Add("a", func(ctx context.Context, env Env, s counter) (Outcome[counter, *[]string], error) {
			s.N++
			return Outcome[counter, *[]string]{State: s, Route: Next("b"), Commit: func(ctx context.Context, tx *[]string, o *Outcome[counter, *[]string]) error {
				*tx = append(*tx, "a")
				return nil
			}}, nil
		}).
		Add("b", func(ctx context.Context, env Env, s counter) (Outcome[counter, *[]string], error) {
			s.N += 10
			if s.N > 20 {
				return Outcome[counter, *[]string]{State: s, Route: End("")}, nil
			}
			return Outcome[counter, *[]string]{State: s, Commit: func(ctx context.Context, tx *[]string, o *Outcome[counter, *[]string]) error {
				*tx = append(*tx, "b")
				o.Route = Park(map[string]int{"n": s.N}) // route decided inside the transaction
				return nil
			}}, nil
		}).
		Add("loop", func(ctx context.Context, env Env, s counter) (Outcome[counter, *[]string], error) {
			return Outcome[counter, *[]string]{State: s, Route: Next("loop")}, nil
		}).
		Add("bad", func(ctx context.Context, env Env, s counter) (Outcome[counter, *[]string], error) {
			return Outcome[counter, *[]string]{State: s, Route: Next("nowhere")}, nil
		})
}

func TestEngineStepsParksAndFences(t *testing.T) {
	ctx := context.Background()
	cp := &memCP{run: RunState{RunID: 1, Status: RunQueued, NextNode: "a", State: json.RawMessage(`{}`)}}
	e := &Engine[counter, *[]string]{Graph: testGraph(), CP: cp}
	if _, err := e.Step(ctx, cp.run, 0); err != nil {
		t.Fatal(err)
	}
	if cp.run.NextNode != "b" || cp.run.StepSeq != 1 || string(cp.run.State) != `{"n":1}` {
		t.Fatalf("after a: %+v", cp.run)
	}
	if string(cp.steps[0].StateDelta) != `{"n":1}` {
		t.Fatalf("delta %s", cp.steps[0].StateDelta)
	}
	// A late duplicate of step 0 is fenced.
	if _, err := e.Step(ctx, RunState{RunID: 1, Status: RunRunning, NextNode: "a", StepSeq: 0}, 0); !errors.Is(err, ErrStaleCheckpoint) {
		t.Fatalf("late step: %v", err)
	}
	res, err := e.Step(ctx, cp.run, 1)
	if err != nil || res.Route.Kind != RoutePark || cp.run.Status != RunParked {
		t.Fatalf("b: %+v %v %+v", res, err, cp.run)
	}
	if len(cp.log) != 2 || cp.log[1] != "b" {
		t.Fatalf("effects %v", cp.log)
	}
	// A parked run takes no step, only a resume.
	if _, err := e.Step(ctx, cp.run, 2); !errors.Is(err, ErrNotRunnable) {
		t.Fatalf("step on parked run: %v", err)
	}
	res, err = e.Resume(ctx, cp.run, 2, "b", e.Graph.nodes["b"])
	if err != nil || cp.run.Status != RunCompleted || res.Status != RunCompleted {
		t.Fatalf("resume: %+v %v %+v", res, err, cp.run)
	}
}

func TestEngineFailsRunOnBadRoutesAndStepBound(t *testing.T) {
	ctx := context.Background()
	cp := &memCP{run: RunState{RunID: 1, Status: RunQueued, NextNode: "loop"}}
	e := &Engine[counter, *[]string]{Graph: testGraph(), CP: cp}
	for seq := 0; seq < 10 && cp.run.Status != RunFailed; seq++ {
		if _, err := e.Step(ctx, cp.run, seq); err != nil {
			t.Fatal(err)
		}
	}
	if cp.run.Status != RunFailed || cp.run.StepSeq != 6 {
		t.Fatalf("loop not bounded: %+v", cp.run)
	}
	if last := cp.steps[len(cp.steps)-1]; last.Outcome != "error" || last.Error == "" {
		t.Fatalf("last step %+v", last)
	}
	cp = &memCP{run: RunState{RunID: 2, Status: RunQueued, NextNode: "missing"}}
	e.CP = cp
	if _, err := e.Step(ctx, cp.run, 0); err != nil || cp.run.Status != RunFailed {
		t.Fatalf("unknown node: %v %+v", err, cp.run)
	}
	cp = &memCP{run: RunState{RunID: 3, Status: RunQueued, NextNode: "bad"}}
	e.CP = cp
	if _, err := e.Step(ctx, cp.run, 0); err == nil || cp.run.StepSeq != 0 {
		t.Fatalf("route to unknown node committed: %v %+v", err, cp.run)
	}
}

// noted is a state with fields a step leaves alone.
type noted struct {
	N     int               `json:"n"`
	Tags  []string          `json:"tags"`
	Notes map[string]string `json:"notes,omitempty"`
	Draft *struct {
		Subject string `json:"subject"`
		Body    string `json:"body"`
	} `json:"draft,omitempty"`
}

func TestStepDeltaHoldsOnlyChangedFieldsOfAStateReadAsJsonb(t *testing.T) {
	ctx := context.Background()
	g := NewGraph[noted, *[]string]("a", 5).
		Add("a", func(ctx context.Context, env Env, s noted) (Outcome[noted, *[]string], error) {
			s.N++
			s.Draft = nil
			return Outcome[noted, *[]string]{State: s, Route: End("")}, nil
		})
	// Postgres returns jsonb with a space after ':' and ',' and its own key
	// order: unchanged fields must not count as changed.
	stored := json.RawMessage(`{"n": 1, "tags": ["a", "b"], "draft": {"body": "text", "subject": "s"}, "notes": {"k": "v"}}`)
	cp := &memCP{run: RunState{RunID: 1, Status: RunRunning, NextNode: "a", State: stored}}
	e := &Engine[noted, *[]string]{Graph: g, CP: cp}
	if _, err := e.Step(ctx, cp.run, 0); err != nil {
		t.Fatal(err)
	}
	if got := string(cp.steps[0].StateDelta); got != `{"draft":null,"n":2}` {
		t.Fatalf("delta %s, want only n and the removed draft", got)
	}
	state, err := StateAt(stored, cp.steps[0].StateDelta)
	if err != nil {
		t.Fatal(err)
	}
	var want, got any
	if err := json.Unmarshal(cp.run.State, &want); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(state, &got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("stored state plus delta = %s, want %s", state, cp.run.State)
	}
}
