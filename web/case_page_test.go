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
