package api

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/foiaflow/foiaflow/store"
	"github.com/foiaflow/foiaflow/store/storetest"
	"github.com/foiaflow/foiaflow/workflow"
)

// sseEvent is one parsed server-sent event.
type sseEvent struct {
	ID   int64
	Data CaseEvent
}

// stream opens GET /v1/cases/{id}/events with a real HTTP client and
// parses events into a channel until cancel is called.
func (e *env) stream(caseID int64, lastID string) (<-chan sseEvent, context.CancelFunc) {
	e.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	rq, err := http.NewRequestWithContext(ctx, "GET", e.ts.URL+"/v1/cases/"+itoa(caseID)+"/events", nil)
	if err != nil {
		e.t.Fatal(err)
	}
	rq.Header.Set("Authorization", "Bearer "+e.reviewerKey)
	if lastID != "" {
		rq.Header.Set("Last-Event-ID", lastID)
	}
	res, err := http.DefaultClient.Do(rq)
	if err != nil {
		e.t.Fatal(err)
	}
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		e.t.Fatalf("events: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	out := make(chan sseEvent, 64)
	go func() {
		defer close(out)
		defer res.Body.Close()
		sc := bufio.NewScanner(res.Body)
		var ev sseEvent
		var data string
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "id: "):
				ev.ID, _ = strconv.ParseInt(strings.TrimPrefix(line, "id: "), 10, 64)
			case strings.HasPrefix(line, "data: "):
				data = strings.TrimPrefix(line, "data: ")
			case line == "" && data != "":
				if err := json.Unmarshal([]byte(data), &ev.Data); err != nil {
					e.t.Errorf("event data %q: %v", data, err)
					return
				}
				out <- ev
				ev, data = sseEvent{}, ""
			}
		}
	}()
	t := e.t
	t.Cleanup(cancel)
	return out, cancel
}

// next waits for the next event (the stream is driven by committed rows,
// so it comes; the deadline only bounds a broken stream).
func next(t *testing.T, ch <-chan sseEvent) sseEvent {
	t.Helper()
	select {
	case ev, ok := <-ch:
		if !ok {
			t.Fatal("event stream ended")
		}
		return ev
	case <-time.After(15 * time.Second):
		t.Fatal("no event within 15 s")
	}
	return sseEvent{}
}

// commitStep commits one step of run like the worker does (AdvanceRun).
func (e *env) commitStep(runID int64, seq int, node string, outcome workflow.StepStatus, status workflow.RunStatus) {
	e.t.Helper()
	ctx := context.Background()
	now := time.Now().UTC()
	_, err := e.st.InTx(ctx, func(tx *store.Tx) error {
		return tx.AdvanceRun(ctx, workflow.Checkpoint{RunID: runID, FromSeq: seq, Status: status, State: json.RawMessage("{}"),
			Step: workflow.StepRecord{Seq: seq, Node: node, Outcome: outcome, StartedAt: now, FinishedAt: now}}, "test-worker")
	})
	if err != nil {
		e.t.Fatalf("commit step %d: %v", seq, err)
	}
}

// The stream delivers one event per committed step as it commits, and a
// reconnect with Last-Event-ID gets exactly the events after it: no gap,
// no duplicate, then live events again.
func TestCaseEventsLiveAndResume(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, _ := e.newCase()
	run, _, err := func() (store.Run, bool, error) {
		var r store.Run
		var created bool
		_, err := e.st.InTx(context.Background(), func(tx *store.Tx) error {
			var err error
			r, created, err = tx.CreateRun(context.Background(), store.NewRun{CaseID: c, Trigger: workflow.TriggerAgencyReply,
				TriggerKey: "events:" + itoa(c), StartNode: workflow.NodeLoadContext, State: json.RawMessage("{}")})
			return err
		})
		return r, created, err
	}()
	if err != nil {
		t.Fatal(err)
	}
	events, cancel := e.stream(c, "")
	e.commitStep(run.ID, 0, workflow.NodeLoadContext, "next", workflow.RunRunning)
	first := next(t, events)
	if first.Data.Type != "status" || first.Data.Step != workflow.NodeLoadContext || first.Data.RunID == nil || *first.Data.RunID != run.ID ||
		first.Data.Message != workflow.StepMessage(workflow.NodeLoadContext) || first.ID != first.Data.ID || first.Data.At == "" {
		t.Fatalf("first event %+v", first)
	}
	e.commitStep(run.ID, 1, workflow.NodeClassifyInbound, "next", workflow.RunRunning)
	second := next(t, events)
	if second.Data.Step != workflow.NodeClassifyInbound || second.Data.Message != "Reading the agency's reply…" || second.ID <= first.ID {
		t.Fatalf("second event %+v after %d", second, first.ID)
	}
	cancel()
	storetest.Eventually(t, 15*time.Second, "stream unsubscribed after disconnect", func() bool {
		e.srv.events.mu.Lock()
		defer e.srv.events.mu.Unlock()
		return len(e.srv.events.subs) == 0
	})

	// While nobody listens: a step that parks, and an escalation.
	e.commitStep(run.ID, 2, workflow.NodeGateOrExecute, "park", workflow.RunParked)
	if _, err := e.st.InTx(context.Background(), func(tx *store.Tx) error {
		return tx.OpenEscalation(context.Background(), "events-test", c, run.ID, "agency threatened legal action")
	}); err != nil {
		t.Fatal(err)
	}

	resumed, _ := e.stream(c, strconv.FormatInt(second.ID, 10))
	var got []string
	last := second.ID
	for i := 0; i < 3; i++ {
		ev := next(t, resumed)
		if ev.ID <= last {
			t.Fatalf("event %d after %d: duplicate or out of order", ev.ID, last)
		}
		last = ev.ID
		got = append(got, ev.Data.Type+":"+ev.Data.Step)
	}
	if want := "status:gate_or_execute parked:gate_or_execute escalated:"; strings.Join(got, " ") != want {
		t.Fatalf("resumed events %v, want %s", got, want)
	}
	// Live again on the resumed stream.
	e.commitStep(run.ID, 3, workflow.NodeResume, "end", workflow.RunCompleted)
	if ev := next(t, resumed); ev.Data.Type != "status" || ev.Data.Step != workflow.NodeResume || ev.ID <= last {
		t.Fatalf("live event after resume %+v", ev)
	}
	if ev := next(t, resumed); ev.Data.Type != "completed" {
		t.Fatalf("want completed, got %+v", ev)
	}
	if n := e.count(`SELECT count(*) FROM case_events WHERE case_id = $1`, c); n != 7 {
		t.Fatalf("case_events rows = %d, want 7", n)
	}
}

func TestCaseEventsRefusals(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, _ := e.newCase()
	e.req("GET", "/v1/cases/"+itoa(c)+"/events", "", nil).expect(401, "unauthorized")
	e.req("GET", "/v1/cases/999999/events", e.reviewerKey, nil).expect(404, "case_not_found")
	e.req("GET", "/v1/cases/"+itoa(c)+"/events", e.reviewerKey, nil, "Last-Event-ID", "x1").expect(400, "invalid_last_event_id")
}
