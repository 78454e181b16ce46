package training

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/foiaflow/foiaflow/analysis"
	"github.com/foiaflow/foiaflow/dataset"
	"github.com/foiaflow/foiaflow/workflow"
)

// Examples reads labelled replies through analysis.Features (the offline
// analyzer's own path), in the order given.
func Examples(replies []dataset.Reply) []Example {
	out := make([]Example, len(replies))
	for i, r := range replies {
		out[i] = Example{
			Name:     r.Set + "/" + r.Name,
			Set:      r.Set,
			Group:    r.Group(),
			Label:    workflow.Class(r.Label),
			Features: analysis.Features(workflow.Reply{Text: r.Text}),
			Written:  r.Written,
		}
	}
	return out
}

// ShippedModel trains the model the analyzer ships, on every embedded reply
// set and the written batches with DefaultOptions, and returns its file
// (analysis/model.txt) and the model; ctx's error when ctx ends first.
func ShippedModel(ctx context.Context) ([]byte, *analysis.Model, error) {
	replies, err := dataset.AllReplies()
	if err != nil {
		return nil, nil, err
	}
	written, err := dataset.Written()
	if err != nil {
		return nil, nil, err
	}
	o := DefaultOptions()
	m, err := Train(ctx, Examples(append(replies, written...)), o)
	if err != nil {
		return nil, nil, err
	}
	m.Meta = []string{
		fmt.Sprintf("trained_on %d replies: %s", len(replies), strings.Join(dataset.SetNames, ", ")),
		fmt.Sprintf("and %d written replies: %s", len(written), strings.Join(dataset.WrittenSetNames, ", ")),
		fmt.Sprintf("options bits=%d min_docs=%d l2_text=%g l2_cue=%g l2_bias=%g prior_scale=%g written_weight=%g source_copies=%t iterations=%d seed=%d",
			o.Bits, o.MinDocs, o.L2Text, o.L2Cue, o.L2Bias, o.PriorScale, o.WrittenWeight, o.SourceCopies, o.Iterations, o.Seed),
		"calibration temperatures fitted on leave-one-set-out predictions (agreement_temperature on those the cue table does not read otherwise)",
		"regenerate with: make train",
	}
	var buf bytes.Buffer
	if err := m.Encode(&buf); err != nil {
		return nil, nil, err
	}
	return buf.Bytes(), m, nil
}
