package web

import (
	"strings"
	"testing"
)

func TestHighlightMarksEvidenceAcrossLineBreaksAndCase(t *testing.T) {
	spans := evidenceSpans([]string{
		"class FEE_QUOTE: probability 0.93 (calibrated), next DENIAL 0.03",
		`+1.20 FEE_QUOTE over DENIAL cue:fee.estimate: "the estimated cost to fulfil this request is $237.50"`,
		`+0.40 FEE_QUOTE over DENIAL word:deposit: "deposit…"`,
	})
	if len(spans) != 2 {
		t.Fatalf("spans %q", spans)
	}
	text := "Hello,\nThe estimated cost to fulfil\n  this request is $237.50. A Deposit is due."
	segs := highlight(text, spans)
	var marked []string
	var whole strings.Builder
	for _, s := range segs {
		whole.WriteString(s.Text)
		if s.Mark {
			marked = append(marked, s.Text)
		}
	}
	if whole.String() != text {
		t.Fatalf("segments lose text: %q", whole.String())
	}
	want := []string{"The estimated cost to fulfil\n  this request is $237.50", "Deposit"}
	if strings.Join(marked, "|") != strings.Join(want, "|") {
		t.Fatalf("marked %q, want %q", marked, want)
	}
}
