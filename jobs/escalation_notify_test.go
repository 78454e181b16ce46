package jobs_test

import (
	"context"
	"crypto/hmac"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/foiaflow/foiaflow/jobs"
	"github.com/foiaflow/foiaflow/store"
)

// webhookSink is a real HTTP server that checks each delivery's signature,
// answers 503 to the first attempt of every delivery id (so the retry path
// runs), 200 after, and keeps the bodies (decoded as T) and delivery ids it
// accepted. The escalation notice and stale digest tests share it.
type webhookSink[T any] struct {
	mu       sync.Mutex
	secret   []byte
	attempts map[string]int
	accepted []T
	ids      []string
	badSig   int
}

func newWebhookSink[T any](t *testing.T) (*webhookSink[T], *httptest.Server) {
	s := &webhookSink[T]{secret: []byte("desk-webhook-secret"), attempts: map[string]int{}}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return s, srv
}

func (s *webhookSink[T]) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	ts := r.Header.Get(jobs.HeaderWebhookTimestamp)
	want := jobs.SignWebhook(s.secret, ts, body)
	s.mu.Lock()
	defer s.mu.Unlock()
	if ts == "" || !hmac.Equal([]byte(want), []byte(r.Header.Get(jobs.HeaderWebhookSignature))) {
		s.badSig++
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	id := r.Header.Get(jobs.HeaderWebhookDelivery)
	if s.attempts[id]++; s.attempts[id] == 1 {
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	var v T
	if err := json.Unmarshal(body, &v); err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	s.accepted, s.ids = append(s.accepted, v), append(s.ids, id)
}

// snapshot returns what was accepted so far, the delivery ids in the same
// order, and how many deliveries had a bad signature.
func (s *webhookSink[T]) snapshot() ([]T, []string, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]T(nil), s.accepted...), append([]string(nil), s.ids...), s.badSig
}

// Every new escalation is posted to the webhook once, signed with the
// shared secret, retried after a failed delivery; queueing again (a second
// scheduler pass) posts nothing more.
func TestEscalationWebhookSignedOncePerEscalation(t *testing.T) {
	t.Parallel()
	h := newHarness(t, feeQuote(0))
	sink, srv := newWebhookSink[jobs.EscalationNotice](t)
	hs := h.handlers("w")
	hs.EscalationNotify = &jobs.EscalationNotifyHandler{Store: h.st, Webhook: jobs.Webhook{URL: srv.URL, Secret: sink.secret}}
	h.startWorker("w", hs)
	caseID := h.newCase("SUPERVISED", "")
	ctx := context.Background()
	if _, err := h.st.InTx(ctx, func(tx *store.Tx) error {
		if err := tx.OpenEscalation(ctx, "webhook-a", caseID, 0, "agency threatened legal action"); err != nil {
			return err
		}
		return tx.OpenEscalation(ctx, "webhook-b", caseID, 0, "send failed for good")
	}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ { // a second pass finds nothing new
		n, err := jobs.QueueEscalationNotices(ctx, h.st, h.dispatch, h.queues, 100)
		if err != nil || n != map[int]int{0: 2, 1: 0}[i] {
			t.Fatalf("pass %d queued %d: %v", i, n, err)
		}
	}
	waitFor(t, "both notices accepted", func() bool {
		got, _, _ := sink.snapshot()
		return len(got) == 2
	})
	waitFor(t, "both marked notified", func() bool {
		return h.db.Int(t, `SELECT count(*) FROM escalations WHERE case_id=$1 AND notified_at IS NOT NULL`, caseID) == 2
	})
	got, _, bad := sink.snapshot()
	if bad != 0 {
		t.Fatalf("%d deliveries with a bad signature", bad)
	}
	reasons := map[string]bool{}
	for _, n := range got {
		if n.Type != "escalation.opened" || n.Escalation.CaseID != caseID || n.Escalation.Status != "open" {
			t.Fatalf("notice %+v", n)
		}
		reasons[n.Escalation.Reason] = true
	}
	if !reasons["agency threatened legal action"] || !reasons["send failed for good"] {
		t.Fatalf("reasons %v", reasons)
	}
	// A redelivered task (the outbox relay or reaper) posts nothing again.
	task, _ := jobs.NewEscalationNotifyTask(got[0].Escalation.ID)
	if err := hs.EscalationNotify.ProcessTask(ctx, task); err != nil {
		t.Fatal(err)
	}
	if again, _, _ := sink.snapshot(); len(again) != 2 {
		t.Fatalf("a repeated task posted again: %d notices", len(again))
	}
}
