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
//   - replies/<set>/*.json: 155 real, labelled agency replies to public-records
//     requests in three sets from three different places, each with a README
//     that says where every item comes from and each item keeping its "source"
//     attribution:
//     agency-replies (42, MuckRock 2023–24, BoundaryML/gloo-muckrock fixtures),
//     muckrock-2022 (53, MuckRock API snapshots of palewire/muckrockbot) and
//     foi-international (60, WhatDoTheyKnow, FragDenStaat and other FOI
//     replies from the UK, Germany, Western Australia, the EU, Albania and
//     Brazil). Used to train and score the analyzer, by tests, the demo and
//     `make eval`.
//   - written/<batch>/*.json: 2,160 replies written for training (eighteen
//     batches of 120, 12 per class; written/README.md says how), never an agency's:
//     the analyzer trains on them beside the real sets, and cross-validation
//     scores them apart, never pooled with the real replies.
package dataset

import (
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strings"
)

//go:embed jurisdiction-deadlines.csv
var JurisdictionDeadlinesCSV []byte

//go:embed replies/*/*.json
var repliesFS embed.FS

//go:embed written/*/*.json
var writtenFS embed.FS

// SetNames are the reply sets under replies/, in a fixed order.
var SetNames = []string{"agency-replies", "muckrock-2022", "foi-international"}

// WrittenSetNames are the batches of written replies under written/, in a
// fixed order (written/README.md).
var WrittenSetNames = []string{"us-federal", "us-local", "us-requesters", "uk", "commonwealth", "mixed-hard",
	"us-portals", "us-police-courts", "us-agencies-misc", "uk-wdtk", "intl-english", "terse",
	"muckrock-format", "ocr-letters", "followups", "appeals-reviews", "uk-councils", "us-federal-2",
	"muckrock-format-2", "uk-public-bodies", "intl-plain", "us-cities-counties", "mixed-hard-2",
	"terse-2", "us-state-agencies", "us-portal-notices-2", "uk-wdtk-2", "appeals-followups-2",
	"muckrock-format-3", "alaveteli-sites", "us-2010s", "muckrock-format-4", "uk-foi-2005-2019",
	"eu-australia", "muckrock-format-5", "uk-2020s", "intl-2008-2026",
	"muckrock-format-6", "us-local-2020s", "platforms-2008-2026",
	"us-mail-2015-2026", "uk-commonwealth-2015-2026",
	"uk-local-2010-2026", "english-mail-2008-2026", "muckrock-format-7", "uk-wdtk-3",
	"devolved-ireland-2008-2026", "us-small-bodies-2008-2026",
	"scotland-wales-ni-2005-2026", "nz-canada-2005-2026", "muckrock-format-8", "uk-nhs-police-universities-2010-2026",
	"money-us-2005-2026", "money-intl-2005-2026", "money-us-2-2008-2026", "money-commonwealth-2008-2026",
	"money-mixed-2000-2026", "us-uk-plain-2026", "muckrock-format-9", "platforms-2-2008-2026",
	"two-things-us-2008-2026", "two-things-intl-2008-2026", "muckrock-format-10", "uk-councils-wdtk-2008-2026",
	"us-portal-notices-3-2016-2026", "older-mail-1998-2012", "muckrock-format-11", "uk-bodies-2005-2026",
	"muckrock-format-12", "platforms-3-2008-2026", "muckrock-format-13", "uk-councils-wdtk-2-2008-2026",
	"muckrock-format-14", "us-local-2-2020-2026", "muckrock-format-15", "uk-commonwealth-2-2008-2026",
	"muckrock-format-16", "platforms-4-2008-2026", "two-things-us-2-2008-2026", "two-things-intl-2-2008-2026"}

// Reply is one labelled agency reply. FeeAmount is in the major unit of the
// currency as written by the corpus authors (US dollars in these sets; nil
// when the reply states no fee); code must convert it to integer cents
// before use.
type Reply struct {
	Name        string   `json:"-"` // file name without .json, e.g. "041"
	Set         string   `json:"-"` // the set's directory name, "" outside a set
	Source      string   `json:"source"`
	Text        string   `json:"text"`
	Label       string   `json:"label"`
	LabelSource string   `json:"label_source"`
	FeeAmount   *float64 `json:"fee_amount"`
	Notes       string   `json:"notes"`
	// Written: a reply written for training (written/), not one an agency
	// sent.
	Written bool `json:"-"`
}

// FeeCents returns the labelled fee in integer cents, or nil.
func (r Reply) FeeCents() *int64 {
	if r.FeeAmount == nil {
		return nil
	}
	c := int64(*r.FeeAmount*100 + 0.5)
	return &c
}

// requestRe and communicationRe find a MuckRock request or communication
// number in a source attribution ("request 120968", "communication id 1498331").
var (
	requestRe       = regexp.MustCompile(`\brequest (\d+)\b`)
	communicationRe = regexp.MustCompile(`\bcommunication id (\d+)\b`)
)

// Group names the request a reply belongs to, so that several replies within
// one request stay in the same cross-validation fold (each set's README):
// the MuckRock request number when the source gives one (API snapshots), the
// communication when that is all it gives (test fixtures that collect many
// requests' replies in one file), otherwise the source file (one
// WhatDoTheyKnow export per request; one fixture per reply), prefixed by the
// set.
func (r Reply) Group() string {
	if m := requestRe.FindStringSubmatch(r.Source); m != nil {
		return r.Set + ":request " + m[1]
	}
	if m := communicationRe.FindStringSubmatch(r.Source); m != nil {
		return r.Set + ":communication " + m[1]
	}
	src := r.Source
	if i := strings.Index(src, " ("); i >= 0 {
		src = src[:i]
	}
	if i := strings.LastIndex(src, "@"); i >= 0 {
		src = src[:i]
	}
	return r.Set + ":" + src
}

// Corpus returns the agency-replies set (the MuckRock dev set the demo and
// benchmarks post) sorted by file name.
func Corpus() ([]Reply, error) { return Set("agency-replies") }

// Set returns one embedded reply set sorted by file name; an unknown name is
// an error.
func Set(name string) ([]Reply, error) {
	return loadSet(repliesFS, "replies", name, false)
}

// AllReplies returns every embedded set, in SetNames order.
func AllReplies() ([]Reply, error) {
	return loadSets(repliesFS, "replies", SetNames, false)
}

// Written returns every batch of written replies, in WrittenSetNames order,
// each reply's Set its batch and Written true.
func Written() ([]Reply, error) {
	return loadSets(writtenFS, "written", WrittenSetNames, true)
}

func loadSets(fsys fs.FS, dir string, names []string, written bool) ([]Reply, error) {
	var out []Reply
	for _, n := range names {
		rs, err := loadSet(fsys, dir, n, written)
		if err != nil {
			return nil, err
		}
		out = append(out, rs...)
	}
	return out, nil
}

func loadSet(fsys fs.FS, dir, name string, written bool) ([]Reply, error) {
	sub, err := fs.Sub(fsys, dir+"/"+name)
	if err != nil {
		return nil, err
	}
	rs, err := LoadReplies(sub)
	if err != nil {
		return nil, fmt.Errorf("set %s: %w", name, err)
	}
	if len(rs) == 0 {
		return nil, fmt.Errorf("set %s: no replies", name)
	}
	for i := range rs {
		rs[i].Set, rs[i].Written = name, written
	}
	return rs, nil
}

// LoadReplies reads every *.json reply in fsys (the format of
// replies/agency-replies), sorted by name. A file that does not decode, or
// has no text or label, is an error naming the file.
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
