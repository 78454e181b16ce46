// Package dataset ships the data foiaflow needs at run time, embedded in the
// binary so that nothing reads outside the module:
//
//   - jurisdiction-deadlines.csv: statutory response deadlines for federal FOIA,
//     DC, 42 states and the UK (columns jurisdiction,abbrev,days,business_days,
//     source; every row cites its statute or page in the source column).
//   - jurisdiction-statutes.csv: the statute citation that goes in letters,
//     per jurisdiction (Statutes).
//   - jurisdiction-appeals.csv: the administrative appeal each statute
//     provides after a denial, its body, filing and decision periods
//     (Appeals).
//   - corpus/agency-replies/*.json: 42 real agency replies to public-records
//     requests received by MuckRock in 2023–24, from the public test fixtures
//     of BoundaryML/gloo-muckrock; each file keeps its "source" attribution.
//     Used by tests, the demo and `make eval`.
package dataset

import (
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
)

//go:embed jurisdiction-deadlines.csv
var JurisdictionDeadlinesCSV []byte

//go:embed corpus/agency-replies/*.json
var corpusFS embed.FS

// Reply is one labelled agency reply of the corpus. FeeAmount is in dollars as
// written by the corpus authors (nil when the reply states no fee); code must
// convert it to integer cents before use.
type Reply struct {
	Name        string   `json:"-"`
	Source      string   `json:"source"`
	Text        string   `json:"text"`
	Label       string   `json:"label"`
	LabelSource string   `json:"label_source"`
	FeeAmount   *float64 `json:"fee_amount"`
	Notes       string   `json:"notes"`
}

// FeeCents returns the labelled fee in integer cents, or nil.
func (r Reply) FeeCents() *int64 {
	if r.FeeAmount == nil {
		return nil
	}
	c := int64(*r.FeeAmount*100 + 0.5)
	return &c
}

// Corpus returns the embedded dev corpus sorted by file name.
func Corpus() ([]Reply, error) {
	sub, err := fs.Sub(corpusFS, "corpus/agency-replies")
	if err != nil {
		return nil, err
	}
	return LoadReplies(sub)
}

// LoadReplies reads every *.json reply in fsys (the format of
// corpus/agency-replies), sorted by name. A file that does not decode, or has
// no text or label, is an error naming the file.
func LoadReplies(fsys fs.FS) ([]Reply, error) {
	names, err := fs.Glob(fsys, "*.json")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	out := make([]Reply, 0, len(names))
	for _, n := range names {
		b, err := fs.ReadFile(fsys, n)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", n, err)
		}
		var r Reply
		if err := json.Unmarshal(b, &r); err != nil {
			return nil, fmt.Errorf("decode %s: %w", n, err)
		}
		if strings.TrimSpace(r.Text) == "" || r.Label == "" {
			return nil, fmt.Errorf("%s: missing text or label", n)
		}
		r.Name = strings.TrimSuffix(path.Base(n), ".json")
		out = append(out, r)
	}
	return out, nil
}
