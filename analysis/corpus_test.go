package analysis

import (
	"context"
	"testing"

	"github.com/foiaflow/foiaflow/dataset"
	"github.com/foiaflow/foiaflow/workflow"
)

// Dev-corpus thresholds (issue 3). The corpus's 043 reply lost its fee amount
// when the fixture text was trimmed, so fee exact is capped at 10/11 = 0.909
// on this corpus; the test asserts every recoverable fee instead.
const (
	minCorpusAccuracy = 0.85
)

func TestCorpusAccuracyAndFees(t *testing.T) {
	t.Parallel()
	replies, err := dataset.Corpus()
	if err != nil {
		t.Fatal(err)
	}
	correct, feeN, feeOK := 0, 0, 0
	for _, r := range replies {
		a, err := Offline{}.Analyze(context.Background(), workflow.Reply{Text: r.Text}, workflow.CaseContext{})
		if err != nil {
			t.Fatal(err)
		}
		if string(a.Class) == r.Label {
			correct++
		} else {
			t.Logf("%s: label %s got %s (%.2f)", r.Name, r.Label, a.Class, a.Confidence)
		}
		if want := r.FeeCents(); want != nil {
			feeN++
			if a.FeeCents != nil && *a.FeeCents == *want {
				feeOK++
			} else if amountInText(r.Text, *want) {
				t.Errorf("%s: fee %v, want %d cents (the amount is in the text)", r.Name, a.FeeCents, *want)
			}
		}
	}
	acc := float64(correct) / float64(len(replies))
	t.Logf("accuracy %.3f (%d/%d), fee exact %d/%d", acc, correct, len(replies), feeOK, feeN)
	if acc < minCorpusAccuracy {
		t.Errorf("accuracy %.3f < %.2f", acc, minCorpusAccuracy)
	}
}

// amountInText reports whether cents appears as an amount in text (the
// label is recoverable).
func amountInText(text string, cents int64) bool {
	for _, a := range findAmounts(normalize(text)) {
		if a.cents == cents {
			return true
		}
	}
	return false
}
