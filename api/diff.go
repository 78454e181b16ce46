package api

import (
	"fmt"

	"github.com/pmezard/go-difflib/difflib"

	"github.com/foiaflow/foiaflow/store"
)

// versionDiff is the change from one proposal version to the next.
type versionDiff struct {
	From    int    `json:"from"`    // older version
	To      int    `json:"to"`      // newer version
	Source  string `json:"source"`  // how To was made: ai_regenerated | human_edited
	Unified string `json:"unified"` // unified diff of "Subject: …" + body text, 3 lines of context; "" when identical
}

// diffVersions diffs each version against the one before it (versions in
// order).
func diffVersions(vs []store.ProposalVersion) []versionDiff {
	out := []versionDiff{}
	for i := 1; i < len(vs); i++ {
		a, b := vs[i-1], vs[i]
		u, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
			A: difflib.SplitLines(versionText(a)), B: difflib.SplitLines(versionText(b)),
			FromFile: fmt.Sprintf("v%d", a.Version), ToFile: fmt.Sprintf("v%d", b.Version), Context: 3})
		if err != nil {
			u = "diff failed: " + err.Error()
		}
		out = append(out, versionDiff{From: a.Version, To: b.Version, Source: b.Source, Unified: u})
	}
	return out
}

func versionText(v store.ProposalVersion) string {
	return "Subject: " + v.Subject + "\n\n" + v.BodyText + "\n"
}
