package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/foiaflow/foiaflow/cmd/internal/app"
	"github.com/foiaflow/foiaflow/dataset"
	"github.com/foiaflow/foiaflow/jobs"
	"github.com/foiaflow/foiaflow/store"
	"github.com/foiaflow/foiaflow/store/storetest"
	"github.com/foiaflow/foiaflow/workflow"
)

// The real wiring (offline analyzer, templates, clock planner, .eml sink) on a
// real corpus fee quote: the run parks at the gate with the fee extracted;
// approval writes exactly one .eml carrying the deterministic Message-ID.
func TestWorkerEndToEndOnCorpusFeeQuote(t *testing.T) {
	t.Parallel()
	a := app.OpenTest(t, nil)
	w, err := NewWorker(a)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	defer func() { cancel(); <-done }()

	replies, err := dataset.Corpus()
	if err != nil {
		t.Fatal(err)
	}
	var reply dataset.Reply
	for _, r := range replies {
		if r.Label == "FEE_QUOTE" && r.FeeAmount != nil && *r.FeeAmount > 100 {
			reply = r
			break
		}
	}
	st := a.Store
	var caseID int64
	var runID int64
	rows, err := st.InTx(ctx, func(tx *store.Tx) error {
		sent := time.Now().Add(-10 * 24 * time.Hour)
		id, err := tx.CreateCase(ctx, store.NewCase{AgencyName: "City Records Office", AgencyEmail: "records@city.example",
			Jurisdiction: "TX", Subject: "Police reports", RequestedRecords: []string{"incident reports"},
			AutopilotMode: workflow.AutopilotSupervised, ReplyToken: storetest.Suffix(8), SentAt: &sent})
		if err != nil {
			return err
		}
		caseID = id
		mid, _, err := tx.InsertMessage(ctx, store.Message{CaseID: &id, Direction: "inbound",
			MessageID: "<" + storetest.Suffix(6) + "@city.example>", From: "records@city.example", Text: reply.Text, SenderAllowed: true})
		if err != nil {
			return err
		}
		run, _, err := jobs.StartRun(ctx, tx, a.Queues, store.NewRun{CaseID: id, Trigger: workflow.TriggerAgencyReply,
			TriggerKey: fmt.Sprintf("reply:%d", mid), TriggerMessageID: &mid})
		runID = run.ID
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Dispatch.Dispatch(ctx, rows); err != nil {
		t.Fatal(err)
	}
	var run store.Run
	storetest.Eventually(t, 20*time.Second, "run parks", func() bool {
		run, _ = st.GetRun(ctx, runID)
		return run.Status == workflow.RunParked
	})
	var g workflow.GatePayload
	if err := json.Unmarshal(run.Interrupt, &g); err != nil {
		t.Fatal(err)
	}
	want := *reply.FeeCents()
	if g.Action != workflow.ActionApproveFee || g.Summary.FeeCents == nil || *g.Summary.FeeCents != want {
		t.Fatalf("gate %+v, want APPROVE_FEE with fee %d cents (%s)", g, want, reply.Name)
	}
	c, _ := st.LoadCase(ctx, caseID)
	if c.DueAt == nil && c.Status != workflow.CaseNeedsReview {
		t.Fatalf("case %+v", c)
	}

	rows, err = st.InTx(ctx, func(tx *store.Tx) error {
		d, err := tx.InsertDecision(ctx, store.Decision{CaseID: caseID, ProposalID: g.ProposalID, Version: g.Version,
			Action: workflow.DecisionApprove, Actor: "editor", IdempotencyKey: "k1"})
		if err != nil {
			return err
		}
		_, err = jobs.QueueResume(ctx, tx, a.Queues, d.ID)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Dispatch.Dispatch(ctx, rows); err != nil {
		t.Fatal(err)
	}
	var files []string
	storetest.Eventually(t, 20*time.Second, ".eml written", func() bool {
		files, _ = filepath.Glob(filepath.Join(a.Config.MailSinkDir, "*.eml"))
		return len(files) > 0
	})
	storetest.Eventually(t, 10*time.Second, "run completes", func() bool {
		run, _ = st.GetRun(ctx, runID)
		return run.Status == workflow.RunCompleted
	})
	if len(files) != 1 {
		t.Fatalf(".eml files = %d, want 1", len(files))
	}
	b, _ := os.ReadFile(files[0])
	send, err := st.GetEmailSend(ctx, workflow.ExecutionKey(g.ProposalKey, 1))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Message-Id: " + send.MessageID, "To: <records@city.example>", workflow.Cents(want)} {
		if !strings.Contains(strings.ReplaceAll(string(b), "Message-ID", "Message-Id"), want) {
			t.Errorf(".eml lacks %q:\n%s", want, b)
		}
	}
	c, _ = st.LoadCase(ctx, caseID)
	if c.Status != workflow.CaseAwaitingResponse || c.DueAt == nil || c.NextFollowupAt == nil {
		t.Fatalf("after sending: status %s due %v next %v", c.Status, c.DueAt, c.NextFollowupAt)
	}
}
