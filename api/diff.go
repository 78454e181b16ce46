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
		out = append(out, versionDiff{From: a.Version, To: b.Version, Source: b.Source, Unified: DiffVersions(a, b)})
	}
	return out
}

func versionText(v store.ProposalVersion) string {
	return "Subject: " + v.Subject + "\n\n" + v.BodyText + "\n"
}

// DiffVersions is the unified diff (3 lines of context) from version a to
// version b of a proposal, over "Subject: …" and the body text; "" when
// they are identical.
func DiffVersions(a, b store.ProposalVersion) string {
	u, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A: difflib.SplitLines(versionText(a)), B: difflib.SplitLines(versionText(b)),
		FromFile: fmt.Sprintf("v%d", a.Version), ToFile: fmt.Sprintf("v%d", b.Version), Context: 3})
	if err != nil {
		return "diff failed: " + err.Error()
	}
	return u
}
