package analysis

import (
	"context"
	"strings"
	"testing"

	"github.com/foiaflow/foiaflow/workflow"
)

// With ANALYZER=openai the offline model reads the reply too; two confident
// readings that disagree escalate, anything else acts on the LLM's reading
// with the offline one kept beside it (issue 9, item 7).
func TestSecondOpinionAgainstFakeOpenAI(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		class    string
		conf     float64
		disagree bool
		action   workflow.ActionType
	}{
		{"confident disagreement escalates", "DENIAL", 0.9, true, workflow.ActionEscalate},
		{"agreement acts", "FEE_QUOTE", 0.91, false, workflow.ActionApproveFee},
		{"an unsure LLM is no conflict (its low confidence gates anyway)", "DENIAL", 0.5, false, workflow.ActionEscalate},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, llm := newFake(t, completion(answerJSON(t, func(m map[string]any) {
				m["class"], m["confidence"] = tc.class, tc.conf
			}), ""))
			so := SecondOpinion{Primary: llm, Second: Offline{}, MinConfidence: GateConfidence}
			a, err := so.Analyze(context.Background(), workflow.Reply{Text: feeReply}, workflow.CaseContext{})
			if err != nil {
				t.Fatal(err)
			}
			if a.SecondOpinion == nil || a.SecondOpinion.Analyzer != OfflineName || a.SecondOpinion.Class != workflow.ClassFeeQuote {
				t.Fatalf("second opinion not recorded as the offline FEE_QUOTE reading: %+v", a.SecondOpinion)
			}
			if a.SecondOpinion.Confidence < GateConfidence {
				t.Fatalf("offline reading of a plain fee quote not confident: %.2f", a.SecondOpinion.Confidence)
			}
			if (a.Disagreement != "") != tc.disagree {
				t.Fatalf("disagreement %q, want %v", a.Disagreement, tc.disagree)
			}
			if tc.disagree && !strings.Contains(a.Disagreement, "FEE_QUOTE") {
				t.Errorf("disagreement does not name the offline class: %q", a.Disagreement)
			}
			d := workflow.Decide(workflow.RouteInput{Class: a.Class, Confidence: a.Confidence, Sentiment: a.Sentiment,
				Mode: workflow.AutopilotAuto, FeeCents: a.FeeCents, Jurisdiction: "TX", Disagreement: a.Disagreement}, workflow.DefaultRoutingPolicy)
			if d.Action != tc.action || d.Action == workflow.ActionEscalate && d.Auto {
				t.Fatalf("routing %+v, want %s", d, tc.action)
			}
		})
	}
}
