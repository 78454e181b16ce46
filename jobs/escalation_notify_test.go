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

// webhookSink is a real HTTP server that checks each notice's signature
// and answers 503 to the first delivery of every escalation (so the retry
// path runs), 200 after.
type webhookSink struct {
	mu       sync.Mutex
	secret   []byte
	attempts map[string]int
	accepted []jobs.EscalationNotice
	badSig   int
}

func (s *webhookSink) ServeHTTP(w http.ResponseWriter, r *http.Request) {
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
	d := r.Header.Get(jobs.HeaderWebhookDelivery)
	s.attempts[d]++
	if s.attempts[d] == 1 {
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	var n jobs.EscalationNotice
	if err := json.Unmarshal(body, &n); err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	s.accepted = append(s.accepted, n)
}

func (s *webhookSink) snapshot() ([]jobs.EscalationNotice, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]jobs.EscalationNotice(nil), s.accepted...), s.badSig
}

// Every new escalation is posted to the webhook once, signed with the
// shared secret, retried after a failed delivery; queueing again (a second
// scheduler pass) posts nothing more.
func TestEscalationWebhookSignedOncePerEscalation(t *testing.T) {
	t.Parallel()
	h := newHarness(t, feeQuote(0))
	sink := &webhookSink{secret: []byte("desk-webhook-secret"), attempts: map[string]int{}}
	srv := httptest.NewServer(sink)
	t.Cleanup(srv.Close)
	hs := h.handlers("w")
	hs.EscalationNotify = &jobs.EscalationNotifyHandler{Store: h.st, URL: srv.URL, Secret: sink.secret}
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
		got, _ := sink.snapshot()
		return len(got) == 2
	})
	waitFor(t, "both marked notified", func() bool {
		return h.db.Int(t, `SELECT count(*) FROM escalations WHERE case_id=$1 AND notified_at IS NOT NULL`, caseID) == 2
	})
	got, bad := sink.snapshot()
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
	if again, _ := sink.snapshot(); len(again) != 2 {
		t.Fatalf("a repeated task posted again: %d notices", len(again))
	}
}
