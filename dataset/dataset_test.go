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
