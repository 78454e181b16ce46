package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/foiaflow/foiaflow/store"
	"github.com/foiaflow/foiaflow/workflow"
)

// eventHeartbeat is how often an idle event stream gets a comment line
// (keeps proxies from closing it) and re-reads the table (a safety net for
// a lost notification).
const eventHeartbeat = 15 * time.Second

// eventBatch bounds one read of case_events.
const eventBatch = 100

// CaseEvent is one server-sent event of GET /v1/cases/{id}/events: self
// contained, in the order the facts committed.
type CaseEvent struct {
	ID      int64  `json:"id"`               // also the SSE id: (Last-Event-ID resumes after it)
	Type    string `json:"type"`             // status | parked | completed | failed | sent | escalated
	Step    string `json:"step,omitempty"`   // the graph node (status, parked, completed, failed)
	Message string `json:"message"`          // what happened, for a reviewer
	CaseID  int64  `json:"case_id"`          //
	RunID   *int64 `json:"run_id,omitempty"` // the run, when the event belongs to one
	At      string `json:"at"`               // commit time, RFC 3339 UTC
	Detail  any    `json:"detail,omitempty"` // type-specific: seq/outcome/next_step, execution_key/message_id, escalation_id/reason, error
}

// caseEvents: GET /v1/cases/{id}/events (text/event-stream).
func (s *Server) caseEvents(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	return s.StreamCaseEvents(w, r, id)
}

// StreamCaseEvents streams the case's events as server-sent events until
// the client goes away: first every event after Last-Event-ID (header, or
// the last_event_id query parameter for clients that cannot set headers;
// none: from the start), then each new one as its transaction commits
// (Postgres NOTIFY, so any API replica serves any case), with a comment
// line every 15 s while idle. Errors before the stream starts are *Error:
// 404 case_not_found, 400 invalid_last_event_id. The caller authorises.
func (s *Server) StreamCaseEvents(w http.ResponseWriter, r *http.Request, caseID int64) error {
	ctx := r.Context()
	after, err := lastEventID(r)
	if err != nil {
		return err
	}
	if _, err := s.st.LoadCase(ctx, caseID); errors.Is(err, store.ErrNotFound) {
		return errCaseNotFound
	} else if err != nil {
		return fmt.Errorf("case events: %w", err)
	}
	wake, unsubscribe := s.events.subscribe(caseID) // before the first read: nothing falls between
	defer unsubscribe()
	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	write := func(s string) error {
		_ = rc.SetWriteDeadline(time.Now().Add(eventHeartbeat * 2))
		if _, err := w.Write([]byte(s)); err != nil {
			return err
		}
		return rc.Flush()
	}
	if err := write("retry: 3000\n\n"); err != nil {
		return nil
	}
	tick := time.NewTicker(eventHeartbeat)
	defer tick.Stop()
	for {
		evs, err := s.st.CaseEventsAfter(ctx, caseID, after, eventBatch)
		if err != nil {
			if ctx.Err() == nil {
				s.log.Warn("case events: read failed, closing the stream", zap.Int64("case", caseID), zap.Error(err))
			}
			return nil // the client reconnects with Last-Event-ID
		}
		var b strings.Builder
		for _, e := range evs {
			data, _ := json.Marshal(eventOf(e))
			fmt.Fprintf(&b, "id: %d\ndata: %s\n\n", e.ID, data)
			after = e.ID
		}
		if b.Len() > 0 {
			if err := write(b.String()); err != nil {
				return nil
			}
		}
		if len(evs) == eventBatch {
			continue
		}
		select {
		case <-ctx.Done():
			return nil
		case <-wake:
		case <-tick.C:
			if err := write(": heartbeat\n\n"); err != nil {
				return nil
			}
		}
	}
}

// lastEventID reads Last-Event-ID (or ?last_event_id=); 0 when absent.
func lastEventID(r *http.Request) (int64, error) {
	v := r.Header.Get("Last-Event-ID")
	if v == "" {
		v = r.URL.Query().Get("last_event_id")
	}
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || n < 0 {
		return 0, apiErr(http.StatusBadRequest, "invalid_last_event_id", "Last-Event-ID must be an event id (a non-negative integer)")
	}
	return n, nil
}

// eventOf renders a stored event for the stream.
func eventOf(e store.CaseEvent) CaseEvent {
	out := CaseEvent{ID: e.ID, Type: e.Type, Step: e.Step, CaseID: e.CaseID, RunID: e.RunID,
		At: e.CreatedAt.UTC().Format(time.RFC3339Nano)}
	var detail map[string]any
	if json.Unmarshal(e.Detail, &detail) == nil && len(detail) > 0 {
		out.Detail = detail
	}
	str := func(k string) string { v, _ := detail[k].(string); return v }
	switch e.Type {
	case "status":
		out.Message = workflow.StepMessage(e.Step)
	case "parked":
		out.Message = "Waiting for a reviewer's decision."
	case "completed":
		out.Message = "The run finished."
	case "failed":
		out.Message = "The run failed: " + str("error")
	case "sent":
		out.Message = "The email was sent to the agency."
	case "escalated":
		out.Message = "Escalated to a person: " + str("reason")
	}
	return out
}

// eventHub fans Postgres notifications of new case events out to the
// streams of this process. It listens on one connection, started by the
// first subscriber and reconnected after a failure (every subscriber is
// woken then, so it re-reads what it may have missed).
type eventHub struct {
	st     *store.Store
	log    *zap.Logger
	once   sync.Once
	ctx    context.Context
	cancel context.CancelFunc
	mu     sync.Mutex
	subs   map[int64]map[chan struct{}]struct{}
}

func newEventHub(st *store.Store, log *zap.Logger) *eventHub {
	ctx, cancel := context.WithCancel(context.Background())
	return &eventHub{st: st, log: log, ctx: ctx, cancel: cancel, subs: map[int64]map[chan struct{}]struct{}{}}
}

// subscribe returns a channel that receives (coalesced) wake-ups for the
// case, and the function that ends the subscription.
func (h *eventHub) subscribe(caseID int64) (<-chan struct{}, func()) {
	h.once.Do(func() { go h.run() })
	ch := make(chan struct{}, 1)
	h.mu.Lock()
	if h.subs[caseID] == nil {
		h.subs[caseID] = map[chan struct{}]struct{}{}
	}
	h.subs[caseID][ch] = struct{}{}
	h.mu.Unlock()
	return ch, func() {
		h.mu.Lock()
		delete(h.subs[caseID], ch)
		if len(h.subs[caseID]) == 0 {
			delete(h.subs, caseID)
		}
		h.mu.Unlock()
	}
}

func (h *eventHub) run() {
	for {
		err := h.st.ListenCaseEvents(h.ctx, h.wakeAll, h.wake)
		if h.ctx.Err() != nil {
			return
		}
		h.log.Warn("case events listener failed, reconnecting", zap.Error(err))
		select {
		case <-h.ctx.Done():
			return
		case <-time.After(time.Second):
		}
	}
}

func (h *eventHub) wake(caseID int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for ch := range h.subs[caseID] {
		notify(ch)
	}
}

func (h *eventHub) wakeAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, chans := range h.subs {
		for ch := range chans {
			notify(ch)
		}
	}
}

func notify(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// close stops the listener.
func (h *eventHub) close() { h.cancel() }
