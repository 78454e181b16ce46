package analysis

import (
	"context"
	"fmt"

	"github.com/foiaflow/foiaflow/workflow"
)

// SecondOpinion runs two analyzers on every reply — an LLM analyzer as
// Primary and the offline model as Second — and returns Primary's analysis
// with Second's attached (Analysis.SecondOpinion), so both are stored. When
// both are confident (at least MinConfidence, MIN_CONFIDENCE) and name
// different classes, it sets Analysis.Disagreement and decide_next_action
// escalates to a human instead of acting on either (issue 9, item 7).
type SecondOpinion struct {
	Primary       workflow.Analyzer
	Second        workflow.Analyzer
	MinConfidence float64
}

var _ workflow.Analyzer = SecondOpinion{}

// Analyze returns Primary's analysis with Second's attached. An error of
// Primary is returned as is; Second (offline) does not fail.
func (so SecondOpinion) Analyze(ctx context.Context, reply workflow.Reply, c workflow.CaseContext) (workflow.Analysis, error) {
	a, err := so.Primary.Analyze(ctx, reply, c)
	if err != nil {
		return a, err
	}
	b, err := so.Second.Analyze(ctx, reply, c)
	if err != nil {
		return a, fmt.Errorf("second opinion: %w", err)
	}
	b.SecondOpinion, b.Disagreement = nil, ""
	a.SecondOpinion = &b
	confident := func(x workflow.Analysis) bool {
		return x.Class != workflow.ClassUnknown && x.Confidence >= so.MinConfidence
	}
	switch {
	case confident(a) && confident(b) && a.Class != b.Class:
		a.Disagreement = fmt.Sprintf("%s reads %s at %.2f, %s reads %s at %.2f",
			a.Analyzer, a.Class, a.Confidence, b.Analyzer, b.Class, b.Confidence)
		a.Reasons = append(a.Reasons, "second opinion disagrees: "+a.Disagreement+"; a human decides")
	case a.Class == b.Class:
		a.Reasons = append(a.Reasons, fmt.Sprintf("second opinion agrees: %s reads %s at %.2f", b.Analyzer, b.Class, b.Confidence))
	default:
		a.Reasons = append(a.Reasons, fmt.Sprintf("second opinion: %s reads %s at %.2f (not both confident: no conflict)", b.Analyzer, b.Class, b.Confidence))
	}
	return a, nil
}
