package store_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/foiaflow/foiaflow/dataset"
	"github.com/foiaflow/foiaflow/store"
	"github.com/foiaflow/foiaflow/store/storetest"
	"github.com/foiaflow/foiaflow/workflow"
)

// LoadCase gives the graph the citation written for letters, never the
// research note of the deadline table, and the jurisdiction's appeal.
func TestLoadCaseCarriesLetterCitationAndAppeal(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	ctx := context.Background()
	cases := []struct {
		jur      string
		citation string
		appeal   workflow.AppealTerms
	}{
		{"US", "the Freedom of Information Act, 5 U.S.C. § 552", workflow.AppealTerms{Kind: workflow.AppealToAgency,
			Body: "the head of the agency (its FOIA appeals officer)", Citation: "5 U.S.C. § 552(a)(6)(A)", FileDays: 90,
			DecideDays: 20, DecideBusinessDays: true}},
		{"PA", "the Pennsylvania Right-to-Know Law, 65 P.S. § 67.101 et seq.", workflow.AppealTerms{Kind: workflow.AppealToExternal,
			Body: "the Office of Open Records", Citation: "65 P.S. § 67.1101(a)(1)", FileDays: 15, FileBusinessDays: true, DecideDays: 30}},
		{"KY", "the Kentucky Open Records Act, KRS 61.870 to 61.884", workflow.AppealTerms{Kind: workflow.AppealToExternal,
			Body: "the Attorney General", Citation: "KRS 61.880(2)(a)", DecideDays: 20, DecideBusinessDays: true}},
		{"TX", "the Texas Public Information Act, Tex. Gov't Code chapter 552", workflow.AppealTerms{Kind: workflow.AppealNone}},
		{"UK", "the Freedom of Information Act 2000", workflow.AppealTerms{Kind: workflow.AppealToAgency,
			Body: "the public authority (internal review)", FileDays: 40, FileBusinessDays: true, DecideDays: 20, DecideBusinessDays: true,
			Citation: "the Freedom of Information Code of Practice issued under section 45 of the Freedom of Information Act 2000"}},
	}
	for _, tc := range cases {
		id, err := newCase(t, db, tc.jur)
		if err != nil {
			t.Fatal(err)
		}
		c, err := db.Store.LoadCase(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if c.Statute != tc.citation || c.Appeal != tc.appeal {
			t.Errorf("%s: statute %q appeal %+v", tc.jur, c.Statute, c.Appeal)
		}
		source := db.String(t, `SELECT source FROM jurisdictions WHERE code = '`+tc.jur+`'`)
		if strings.Contains(c.Statute, source) || strings.Contains(c.Statute, "http") {
			t.Errorf("%s: the research note reached the citation", tc.jur)
		}
		if c.DeniedAt != nil || c.AppealDeadline != nil || c.AppealedAt != nil {
			t.Errorf("%s: a new case has an appeal window", tc.jur)
		}
	}
}

// The appeal window and the appeal's filing time round-trip, and nil
// leaves them unchanged.
func TestAppealWindowIsStored(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	ctx := context.Background()
	id, err := newCase(t, db, "US")
	if err != nil {
		t.Fatal(err)
	}
	denied := time.Date(2024, 3, 22, 16, 5, 0, 0, time.UTC)
	deadline := time.Date(2024, 6, 21, 3, 59, 59, 0, time.UTC)
	appealed := time.Date(2024, 3, 25, 14, 0, 0, 0, time.UTC)
	if _, err := db.Store.InTx(ctx, func(tx *store.Tx) error {
		if err := tx.UpdateCaseFacts(ctx, id, workflow.CaseFacts{DeniedAt: &denied, AppealDeadline: &deadline}); err != nil {
			return err
		}
		if err := tx.UpdateCaseFacts(ctx, id, workflow.CaseFacts{}); err != nil {
			return err
		}
		return tx.SaveSchedule(ctx, id, workflow.CaseSchedule{Status: workflow.CaseAwaitingResponse, AppealedAt: &appealed})
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Store.InTx(ctx, func(tx *store.Tx) error {
		return tx.SaveSchedule(ctx, id, workflow.CaseSchedule{Status: workflow.CaseAwaitingResponse})
	}); err != nil {
		t.Fatal(err)
	}
	c, err := db.Store.LoadCase(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if c.DeniedAt == nil || !c.DeniedAt.Equal(denied) || c.AppealDeadline == nil || !c.AppealDeadline.Equal(deadline) ||
		c.AppealedAt == nil || !c.AppealedAt.Equal(appealed) {
		t.Fatalf("denied %v deadline %v appealed %v", c.DeniedAt, c.AppealDeadline, c.AppealedAt)
	}
}

// Every jurisdiction seeded from the dataset reaches the graph with its
// letter citation and its appeal exactly as the data files state them.
func TestEveryJurisdictionLoadsItsLetterData(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	statutes, err := dataset.Statutes()
	if err != nil {
		t.Fatal(err)
	}
	appeals, err := dataset.Appeals()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]dataset.Appeal{}
	for _, a := range appeals {
		want[a.Abbrev] = a
	}
	for _, st := range statutes {
		id, err := newCase(t, db, st.Abbrev)
		if err != nil {
			t.Fatalf("%s: %v", st.Abbrev, err)
		}
		c, err := db.Store.LoadCase(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		a := want[st.Abbrev]
		got := c.Appeal
		if c.Statute != st.Citation || string(got.Kind) != a.Kind || got.Body != a.Body || got.Citation != a.Citation ||
			got.FileDays != a.FileDays || got.FileBusinessDays != a.FileBusinessDays || got.DecideDays != a.DecideDays ||
			got.DecideBusinessDays != a.DecideBusinessDays {
			t.Errorf("%s: statute %q appeal %+v, want %q %+v", st.Abbrev, c.Statute, got, st.Citation, a)
		}
	}
}
