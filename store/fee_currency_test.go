package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/foiaflow/foiaflow/store"
	"github.com/foiaflow/foiaflow/store/storetest"
	"github.com/foiaflow/foiaflow/workflow"
)

// A fee keeps its currency on the case, its proposal, the review queue and
// the stored analysis (issue 9: a UK council's £450 was shown as $450.00);
// facts without a fee leave the case's fee and currency as they were, and
// an empty currency is stored as USD.
func TestFeeCurrencyIsStoredBesideTheFee(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	ctx := context.Background()
	caseID, err := newCase(t, db, "UK")
	if err != nil {
		t.Fatal(err)
	}
	fee := int64(4500)
	var runID, msgID int64
	if _, err := db.Store.InTx(ctx, func(tx *store.Tx) error {
		r, _, err := tx.CreateRun(ctx, store.NewRun{CaseID: caseID, Trigger: workflow.TriggerManualReview, TriggerKey: "m",
			StartNode: "load_context", State: []byte(`{}`)})
		if err != nil {
			return err
		}
		runID = r.ID
		if err := tx.UpdateCaseFacts(ctx, caseID, workflow.CaseFacts{FeeCents: &fee, FeeCurrency: "GBP"}); err != nil {
			return err
		}
		if err := tx.UpdateCaseFacts(ctx, caseID, workflow.CaseFacts{TrackingNumber: "FOI-1"}); err != nil {
			return err
		}
		_, err = tx.UpsertProposal(ctx, workflow.ProposalUpsert{CaseID: caseID, RunID: runID, Key: "fee", Action: workflow.ActionApproveFee,
			Status: workflow.ProposalPending, Version: 1, VersionSource: workflow.SourceAIGenerated, Subject: "s", BodyText: "b",
			FeeCents: &fee, FeeCurrency: "GBP"})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	c, err := db.Store.LoadCase(ctx, caseID)
	if err != nil {
		t.Fatal(err)
	}
	if c.FeeCents == nil || *c.FeeCents != fee || c.FeeCurrency != "GBP" || c.TrackingNumber != "FOI-1" {
		t.Fatalf("case fee %v %q tracking %q, want 4500 GBP FOI-1", c.FeeCents, c.FeeCurrency, c.TrackingNumber)
	}
	pid := db.Int(t, `SELECT id FROM proposals`)
	p, err := db.Store.GetProposal(ctx, pid)
	if err != nil {
		t.Fatal(err)
	}
	if p.FeeCurrency != "GBP" {
		t.Fatalf("proposal fee currency %q, want GBP", p.FeeCurrency)
	}
	if r, err := db.Store.LoadProposal(ctx, pid); err != nil || r.FeeCurrency != "GBP" {
		t.Fatalf("graph's proposal fee currency %q (%v), want GBP", r.FeeCurrency, err)
	}
	q, err := db.Store.ReviewQueue(ctx, store.QueueFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(q) != 1 || q[0].FeeCurrency != "GBP" {
		t.Fatalf("queue %+v, want one GBP fee", q)
	}

	// An analysis without a currency is USD; one with a currency keeps it.
	usd := int64(1200)
	if _, err := db.Store.InTx(ctx, func(tx *store.Tx) error {
		var err error
		if msgID, _, err = tx.InsertMessage(ctx, store.Message{CaseID: &caseID, Direction: "inbound", MessageID: "<fee@test>",
			Subject: "s", Text: "b", ReceivedAt: time.Now()}); err != nil {
			return err
		}
		if err := tx.SaveAnalysis(ctx, caseID, msgID, runID, workflow.Analysis{Class: workflow.ClassFeeQuote, Confidence: 0.9,
			Sentiment: workflow.SentimentNeutral, FeeCents: &usd}); err != nil {
			return err
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if cur := db.String(t, `SELECT fee_currency FROM response_analyses WHERE message_id = $1`, msgID); cur != "USD" {
		t.Fatalf("analysis fee currency %q, want USD", cur)
	}
	if _, err := db.Store.Pool().Exec(ctx, `UPDATE cases SET fee_currency = 'pounds' WHERE id = $1`, caseID); err == nil {
		t.Fatal("a currency that is not an ISO 4217 code was stored")
	}
}
