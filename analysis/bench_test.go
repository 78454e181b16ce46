package analysis

import (
	"context"
	"testing"

	"github.com/foiaflow/foiaflow/dataset"
	"github.com/foiaflow/foiaflow/workflow"
)

// BenchmarkOfflineCorpus analyzes every reply of the project's corpora per
// iteration (as cmd/eval does) and reports single-goroutine replies/s.
func BenchmarkOfflineCorpus(b *testing.B) {
	replies, err := dataset.AllReplies()
	if err != nil {
		b.Fatal(err)
	}
	in := make([]workflow.Reply, len(replies))
	for i, r := range replies {
		in[i] = workflow.Reply{Text: r.Text}
	}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for _, r := range in {
			_, _ = Offline{}.Analyze(ctx, r, workflow.CaseContext{})
		}
	}
	b.ReportMetric(float64(b.N*len(in))/b.Elapsed().Seconds(), "replies/s")
}
