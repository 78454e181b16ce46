package analysis

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/foiaflow/foiaflow/dataset"
	"github.com/foiaflow/foiaflow/workflow"
)

// TestOfflineOutputsFrozen pins the offline analyzer's full output on all
// embedded reply sets (dataset.AllReplies, 155 replies): every field of every Analysis, byte for byte. Any
// change to rules, extraction or the matching machinery that alters an
// output shows up here. Each reply runs twice: as cmd/eval sends it (text
// only) and with a subject, a receive date and pending scope items, so the
// relative-deadline and scope paths are pinned too.
func TestOfflineOutputsFrozen(t *testing.T) {
	replies, err := dataset.AllReplies()
	if err != nil {
		t.Fatal(err)
	}
	type entry struct {
		Name     string            `json:"name"`
		Variant  string            `json:"variant"`
		Analysis workflow.Analysis `json:"analysis"`
	}
	received := time.Date(2024, 3, 15, 14, 30, 0, 0, time.UTC)
	scope := []workflow.ScopeItem{
		{Item: "body camera footage", Status: workflow.ScopePending},
		{Item: "incident reports", Status: workflow.ScopePending},
		{Item: "email correspondence", Status: workflow.ScopePending},
		{Item: "contracts and invoices", Status: workflow.ScopePending},
	}
	var got []entry
	for _, r := range replies {
		a, err := Offline{}.Analyze(context.Background(), workflow.Reply{Text: r.Text}, workflow.CaseContext{})
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, entry{r.Set + "/" + r.Name, "text", a})
		a, err = Offline{}.Analyze(context.Background(),
			workflow.Reply{Subject: "Public records request " + r.Name, Text: r.Text, ReceivedAt: received},
			workflow.CaseContext{ScopeItems: scope})
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, entry{r.Set + "/" + r.Name, "context", a})
	}
	b, err := json.MarshalIndent(got, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	b = append(b, '\n')
	path := filepath.Join("testdata", "corpus_analyses.golden.json")
	if *update {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./analysis -run TestOfflineOutputsFrozen -update)", err)
	}
	if !bytes.Equal(b, want) {
		var w []entry
		if err := json.Unmarshal(want, &w); err != nil || len(w) != len(got) {
			t.Fatalf("golden differs (and does not decode to %d entries: %v)", len(got), err)
		}
		for i := range got {
			gb, _ := json.Marshal(got[i])
			wb, _ := json.Marshal(w[i])
			if !bytes.Equal(gb, wb) {
				t.Errorf("%s/%s changed:\n got %s\nwant %s", got[i].Name, got[i].Variant, gb, wb)
			}
		}
		t.Fatal("output differs from testdata/corpus_analyses.golden.json")
	}
}
