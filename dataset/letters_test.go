package dataset

import (
	"bytes"
	"encoding/csv"
	"errors"
	"strings"
	"testing"
)

func deadlineAbbrevs(t *testing.T) map[string]bool {
	t.Helper()
	rows, err := csv.NewReader(bytes.NewReader(JurisdictionDeadlinesCSV)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, r := range rows[1:] {
		out[r[1]] = true
	}
	return out
}

// Every jurisdiction of the deadline table has exactly one statute
// citation and one appeal row, and nothing else does.
func TestLetterDataCoversEveryJurisdiction(t *testing.T) {
	t.Parallel()
	want := deadlineAbbrevs(t)
	if len(want) != 45 {
		t.Fatalf("%d jurisdictions in the deadline table, want 45", len(want))
	}
	statutes, err := Statutes()
	if err != nil {
		t.Fatal(err)
	}
	appeals, err := Appeals()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, s := range statutes {
		got[s.Abbrev]++
		if !want[s.Abbrev] {
			t.Errorf("statute for unknown jurisdiction %s", s.Abbrev)
		}
	}
	kinds := map[string]int{}
	for _, a := range appeals {
		got[a.Abbrev] += 10
		kinds[a.Kind]++
		if !want[a.Abbrev] {
			t.Errorf("appeal for unknown jurisdiction %s", a.Abbrev)
		}
	}
	for ab := range want {
		if got[ab] != 11 {
			t.Errorf("%s: %d statute rows and %d appeal rows, want one each", ab, got[ab]%10, got[ab]/10)
		}
	}
	if kinds[AppealAgency] == 0 || kinds[AppealExternal] == 0 || kinds[AppealNone] == 0 {
		t.Errorf("appeal kinds %v: every kind should occur", kinds)
	}
}

func TestKnownAppealTerms(t *testing.T) {
	t.Parallel()
	appeals, err := Appeals()
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]Appeal{}
	for _, a := range appeals {
		by[a.Abbrev] = a
	}
	cases := []struct {
		abbrev           string
		kind             string
		file             int
		fileBusiness     bool
		decide           int
		decideBusiness   bool
		citationContains string
	}{
		{"US", AppealAgency, 90, false, 20, true, "552(a)(6)(A)"},
		{"UK", AppealAgency, 40, true, 20, true, "section 45"},
		{"PA", AppealExternal, 15, true, 30, false, "67.1101"},
		{"NY", AppealAgency, 30, false, 10, true, "89(4)(a)"},
		{"IL", AppealExternal, 60, false, 60, false, "9.5(a)"},
		{"KY", AppealExternal, 0, false, 20, true, "61.880"},
		{"CA", AppealNone, 0, false, 0, false, ""},
		{"TX", AppealNone, 0, false, 0, false, ""},
	}
	for _, c := range cases {
		a := by[c.abbrev]
		if a.Kind != c.kind || a.FileDays != c.file || a.FileBusinessDays != c.fileBusiness ||
			a.DecideDays != c.decide || a.DecideBusinessDays != c.decideBusiness || !strings.Contains(a.Citation, c.citationContains) {
			t.Errorf("%s: %+v", c.abbrev, a)
		}
	}
	if !strings.Contains(by["CA"].Source, "No administrative appeal") {
		t.Errorf("a state without an appeal must say so: %q", by["CA"].Source)
	}
}

func TestLetterDataRejectsBadRows(t *testing.T) {
	t.Parallel()
	head := "abbrev,appeal,body,citation,file_days,file_business_days,decide_days,decide_business_days,source\n"
	for name, row := range map[string]string{
		"unknown kind":       "US,court,x,y,,,,,src",
		"none with a period": "CA,none,,,30,false,,,src",
		"url in citation":    "US,agency,head,https://example.gov/appeal,90,false,,,src",
		"quoted citation":    `US,agency,head,"""within 90 days""",90,false,,,src`,
		"days out of range":  "US,agency,head,5 U.S.C. 552,400,false,,,src",
		"flag without days":  "US,agency,head,5 U.S.C. 552,,true,,,src",
		"no source":          "US,agency,head,5 U.S.C. 552,90,false,,,",
		"duplicate":          "US,none,,,,,,,src\nUS,none,,,,,,,src",
	} {
		if _, err := ParseAppeals([]byte(head + row + "\n")); !errors.Is(err, ErrBadLetterData) || !strings.Contains(err.Error(), "line ") {
			t.Errorf("%s: err %v", name, err)
		}
	}
	for name, data := range map[string]string{
		"url":       "abbrev,citation,source\nIL,see www.ilga.gov,src\n",
		"quote":     "abbrev,citation,source\nIL,\"the Act, \"\"within 5 business days\"\"\",src\n",
		"no source": "abbrev,citation,source\nIL,5 ILCS 140,\n",
		"header":    "abbrev,text,source\nIL,5 ILCS 140,src\n",
	} {
		if _, err := ParseStatutes([]byte(data)); !errors.Is(err, ErrBadLetterData) {
			t.Errorf("statutes %s: err %v", name, err)
		}
	}
}
