package analysis

import (
	"bytes"
	"context"
	"encoding/csv"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/foiaflow/foiaflow/dataset"
	"github.com/foiaflow/foiaflow/workflow"
)

// researchNotes returns, per jurisdiction, the research text of the
// dataset (the deadline, statute and appeal source columns) that must never
// reach a letter.
func researchNotes(t *testing.T) map[string][]string {
	t.Helper()
	rows, err := csv.NewReader(bytes.NewReader(dataset.JurisdictionDeadlinesCSV)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	notes := map[string][]string{}
	for _, r := range rows[1:] {
		notes[r[1]] = append(notes[r[1]], r[4])
	}
	statutes, err := dataset.Statutes()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range statutes {
		notes[s.Abbrev] = append(notes[s.Abbrev], s.Source)
	}
	appeals, err := dataset.Appeals()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range appeals {
		notes[a.Abbrev] = append(notes[a.Abbrev], a.Source)
	}
	return notes
}

var (
	quotedRe    = regexp.MustCompile(`'([^']{6,})'|"([^"]{6,})"|“([^”]{6,})”`)
	letterURLRe = regexp.MustCompile(`(?i)https?://|www\.|\b[a-z0-9-]+\.(?:gov|org|com|net|us|uk)\b/?`)
)

// fragments are the parts of a note a letter must not contain: each quoted
// passage and every run of eight words.
func fragments(note string) []string {
	var out []string
	for _, m := range quotedRe.FindAllStringSubmatch(note, -1) {
		out = append(out, flatten(m[1]+m[2]+m[3]))
	}
	w := strings.Fields(flatten(note))
	for i := 0; i+8 <= len(w); i++ {
		out = append(out, strings.Join(w[i:i+8], " "))
	}
	return out
}

func flatten(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }

// Every letter kind, in every jurisdiction of the dataset, cites the
// statute as written for letters and carries no URL and no quote or
// passage from our research notes (issue 11).
func TestNoLetterCarriesResearchNotesOrURLs(t *testing.T) {
	t.Parallel()
	notes := researchNotes(t)
	statutes, err := dataset.Statutes()
	if err != nil {
		t.Fatal(err)
	}
	appeals, err := dataset.Appeals()
	if err != nil {
		t.Fatal(err)
	}
	terms := map[string]workflow.AppealTerms{}
	for _, a := range appeals {
		terms[a.Abbrev] = workflow.AppealTerms{Kind: workflow.AppealKind(a.Kind), Body: a.Body, Citation: a.Citation,
			FileDays: a.FileDays, FileBusinessDays: a.FileBusinessDays, DecideDays: a.DecideDays, DecideBusinessDays: a.DecideBusinessDays}
	}
	letters := 0
	for _, st := range statutes {
		var frags []string
		for _, n := range notes[st.Abbrev] {
			frags = append(frags, fragments(n)...)
		}
		if len(frags) == 0 {
			t.Fatalf("%s: no research notes to check against", st.Abbrev)
		}
		for _, phase := range []string{"request", "appeal"} {
			for _, act := range allDraftActions {
				req := baseRequest(act)
				req.Case.Jurisdiction, req.Case.Statute, req.Case.Appeal = st.Abbrev, st.Citation, terms[st.Abbrev]
				req.Analysis.PortalURL = ""
				if phase == "appeal" {
					at := time.Date(2024, 3, 25, 14, 0, 0, 0, time.UTC)
					req.Case.AppealedAt = &at
				}
				d, err := Templates{}.Draft(context.Background(), req)
				if err != nil {
					t.Fatalf("%s %s: %v", st.Abbrev, act, err)
				}
				letters++
				// The letter-facing data (citations, the appeal body) may
				// share words with the notes that cite them: it is cut out
				// before the comparison, paragraph by paragraph.
				var paras []string
				for _, p := range append([]string{d.Subject}, strings.Split(d.Text, "\n\n")...) {
					for _, allowed := range []string{st.Citation, terms[st.Abbrev].Citation, terms[st.Abbrev].Body} {
						if allowed != "" {
							p = strings.ReplaceAll(p, allowed, " | ")
						}
					}
					paras = append(paras, flatten(p))
				}
				text := strings.Join(paras, " || ")
				cites := act == workflow.ActionSendInitial || act == workflow.ActionSendAppeal ||
					act == workflow.ActionSendFollowup && phase == "request"
				if cites && !strings.Contains(d.Text, st.Citation) {
					t.Errorf("%s %s (%s): letter does not cite %q", st.Abbrev, act, phase, st.Citation)
				}
				if m := letterURLRe.FindString(d.Subject + "\n" + d.Text); m != "" {
					t.Errorf("%s %s (%s): letter contains a URL %q:\n%s", st.Abbrev, act, phase, m, d.Text)
				}
				for _, f := range frags {
					if strings.Contains(text, f) {
						t.Errorf("%s %s (%s): letter contains research text %q", st.Abbrev, act, phase, f)
						break
					}
				}
			}
		}
	}
	if letters != 2*len(allDraftActions)*45 {
		t.Fatalf("checked %d letters", letters)
	}
	// The check catches the defect of issue 11: the research note of the
	// deadline table used as the citation.
	req := baseRequest(workflow.ActionSendInitial)
	req.Case.Statute = notes["US"][0]
	d, err := Templates{}.Draft(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	caught := letterURLRe.MatchString(d.Text)
	for _, f := range fragments(notes["US"][0]) {
		caught = caught && strings.Contains(flatten(d.Text), f)
	}
	if !caught {
		t.Fatalf("a letter citing the research note passes the check:\n%s", d.Text)
	}
}
