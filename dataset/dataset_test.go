package dataset

import (
	"strings"
	"testing"
)

func TestCorpusKeepsAttribution(t *testing.T) {
	rs, err := Corpus()
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 42 {
		t.Fatalf("corpus has %d replies, want 42", len(rs))
	}
	for _, r := range rs {
		if !strings.HasPrefix(r.Source, "BoundaryML/gloo-muckrock:") {
			t.Errorf("%s: source %q lacks its attribution", r.Name, r.Source)
		}
	}
	fee := 0
	for _, r := range rs {
		if c := r.FeeCents(); c != nil {
			fee++
			if *c < 0 {
				t.Errorf("%s: negative fee", r.Name)
			}
		}
	}
	if fee != 11 {
		t.Fatalf("%d replies with a labelled fee, want 11", fee)
	}
}

func TestFeeCentsRoundsToTheCent(t *testing.T) {
	for dollars, want := range map[float64]int64{237.5: 23750, 3929.86: 392986, 0.1: 10, 81601.83: 8160183} {
		d := dollars
		if got := *(Reply{FeeAmount: &d}).FeeCents(); got != want {
			t.Errorf("%v → %d, want %d", dollars, got, want)
		}
	}
}

func TestReplySetsKeepAttributionAndGroups(t *testing.T) {
	all, err := AllReplies()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"agency-replies": 42, "muckrock-2022": 53, "foi-international": 60}
	got := map[string]int{}
	for _, r := range all {
		got[r.Set]++
		if strings.TrimSpace(r.Source) == "" {
			t.Errorf("%s/%s has no source", r.Set, r.Name)
		}
	}
	for set, n := range want {
		if got[set] != n {
			t.Errorf("set %s has %d replies, want %d", set, got[set], n)
		}
	}
	// Same-request pairs stay in one group (foi-international README).
	group := map[string]string{}
	for _, r := range all {
		group[r.Set+"/"+r.Name] = r.Group()
	}
	for _, pair := range [][2]string{{"002", "030"}, {"004", "007"}, {"008", "012"}, {"009", "026"}, {"015", "025"}, {"028", "029"}} {
		a, b := group["foi-international/"+pair[0]], group["foi-international/"+pair[1]]
		if a == "" || a != b {
			t.Errorf("foi-international %s and %s are in groups %q and %q", pair[0], pair[1], a, b)
		}
	}
	if group["muckrock-2022/001"] != group["muckrock-2022/002"] || group["agency-replies/041"] == group["agency-replies/043"] {
		t.Error("MuckRock replies are grouped by request, fixture replies by communication")
	}
	if _, err := Set("no-such-set"); err == nil {
		t.Error("unknown set accepted")
	}
}

// The written batches: 120 replies each, 12 of every class, each marked as
// written and saying so in its source, a fee amount only on a fee quote.
func TestWrittenBatchesAreBalancedAndMarked(t *testing.T) {
	rs, err := Written()
	if err != nil {
		t.Fatal(err)
	}
	perBatch := map[string]map[string]int{}
	for _, r := range rs {
		if !r.Written {
			t.Errorf("%s/%s is not marked written", r.Set, r.Name)
		}
		if !strings.HasPrefix(r.Source, "written: ") || !strings.Contains(r.Source, "synthetic, not a real agency reply") {
			t.Errorf("%s/%s: source %q does not say it is written", r.Set, r.Name, r.Source)
		}
		if r.FeeAmount != nil && r.Label != "FEE_QUOTE" {
			t.Errorf("%s/%s: fee amount on a %s", r.Set, r.Name, r.Label)
		}
		if perBatch[r.Set] == nil {
			perBatch[r.Set] = map[string]int{}
		}
		perBatch[r.Set][r.Label]++
	}
	if len(perBatch) != len(WrittenSetNames) {
		t.Fatalf("%d written batches, want %d", len(perBatch), len(WrittenSetNames))
	}
	for set, labels := range perBatch {
		if len(labels) != 10 {
			t.Errorf("batch %s has %d labels, want 10", set, len(labels))
		}
		for l, n := range labels {
			if n != 12 {
				t.Errorf("batch %s has %d %s, want 12", set, n, l)
			}
		}
	}
	real, err := AllReplies()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range real {
		if r.Written {
			t.Fatalf("%s/%s: a real reply marked written", r.Set, r.Name)
		}
	}
}
