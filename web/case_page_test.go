package web

import (
	"bytes"
	"strings"
	"testing"

	"go.uber.org/zap"

	"github.com/foiaflow/foiaflow/api"
	"github.com/foiaflow/foiaflow/store"
	"github.com/foiaflow/foiaflow/workflow"
)

// The case page lists the case's replays with the run and step each was
// forked from and a link to the proposal it parked.
func TestCasePageListsForks(t *testing.T) {
	t.Parallel()
	k, err := New(Deps{API: &api.Server{}, Store: &store.Store{}, Log: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	pid := int64(45)
	d := caseData{page: page{Session: &store.WebSession{Role: "admin"}}}
	d.State.Forks = []store.Fork{{RunID: 12, ReplayOf: 7, ReplayStep: 3, ReplayBy: "admin@newsroom.test",
		Status: workflow.RunParked, ProposalID: &pid}}
	var b bytes.Buffer
	if err := k.pages["case"].Execute(&b, d); err != nil {
		t.Fatalf("render: %v", err)
	}
	html := b.String()
	for _, want := range []string{`id="fork-12"`, "run 7, step 3", `href="#proposal-45"`, "admin@newsroom.test"} {
		if !strings.Contains(html, want) {
			t.Errorf("case page lacks %q", want)
		}
	}
	d.State.Forks = nil
	b.Reset()
	if err := k.pages["case"].Execute(&b, d); err != nil || strings.Contains(b.String(), `id="forks"`) {
		t.Fatalf("a case without replays shows the replays panel (err %v)", err)
	}
}

// A fee is shown in its own currency on the case page (the case's fee and
// each analysis) and in the review queue: a UK council's £45.00 is never
// "$45.00".
func TestFeesShownInTheirCurrency(t *testing.T) {
	t.Parallel()
	k, err := New(Deps{API: &api.Server{}, Store: &store.Store{}, Log: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	fee := int64(4500)
	d := caseData{page: page{Session: &store.WebSession{Role: "admin"}}}
	d.C.Case.FeeCents, d.C.Case.FeeCurrency = &fee, "GBP"
	d.Messages = []messageItem{{Analyses: []analysisItem{{Analysis: workflow.Analysis{Class: workflow.ClassFeeQuote,
		FeeCents: &fee, FeeCurrency: "EUR"}}}}}
	var b bytes.Buffer
	if err := k.pages["case"].Execute(&b, d); err != nil {
		t.Fatalf("render: %v", err)
	}
	html := b.String()
	if !strings.Contains(html, "<dd>£45.00</dd>") || !strings.Contains(html, "fee €45.00") || strings.Contains(html, "$45.00") {
		t.Errorf("case page does not show the fees in their currencies:\n%s", html)
	}
	b.Reset()
	q := queueData{page: page{Session: &store.WebSession{Role: "admin"}},
		Items: []store.QueueItem{{ProposalID: 1, CaseID: 2, FeeCents: &fee, FeeCurrency: "GBP"}, {ProposalID: 3, CaseID: 4, FeeCents: &fee, FeeCurrency: "USD"}}}
	if err := k.pages["queue"].Execute(&b, q); err != nil {
		t.Fatalf("render queue: %v", err)
	}
	if html := b.String(); !strings.Contains(html, "£45.00") || !strings.Contains(html, "$45.00") {
		t.Errorf("queue does not show each fee in its currency")
	}
}
