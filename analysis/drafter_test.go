package analysis

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/foiaflow/foiaflow/workflow"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

func fixtureCase() workflow.CaseContext {
	sent := time.Date(2024, 3, 1, 15, 0, 0, 0, time.UTC)
	fee := int64(12345)
	return workflow.CaseContext{
		CaseID: 42, AgencyName: "Springfield Police Department", AgencyEmail: "records@springfield.example",
		Jurisdiction: "IL", Statute: "the Illinois Freedom of Information Act (5 ILCS 140)",
		Subject: "Use of force reports 2022", RequestedRecords: []string{"Use of force reports for 2022", "Body-worn camera policy"},
		Constraints: []workflow.Constraint{workflow.ConstraintInvestigationActive}, TrackingNumber: "PRR-2024-0117",
		RequesterName: "Jordan Reyes", SentAt: &sent, FeeCents: &fee, AutopilotMode: workflow.AutopilotSupervised,
	}
}

func fixtureAnalysis() *workflow.Analysis {
	fee := int64(12345)
	d := time.Date(2024, 4, 15, 0, 0, 0, 0, time.UTC)
	return &workflow.Analysis{
		Class: workflow.ClassDenial, Confidence: 0.82, Sentiment: workflow.SentimentNegative, FeeCents: &fee, Deadline: &d,
		TrackingNumber: "PRR-2024-0117", ReferredAgency: "Sangamon County Sheriff's Office",
		PortalURL: "https://springfield.nextrequest.com/requests/new", PortalVendor: "NextRequest",
		Exemptions: []string{"5 ILCS 140/7(1)(d)(i)", "5 ILCS 140/7(1)(c)"}, HasRecordsLink: true,
		ConstraintsToAdd: []workflow.Constraint{workflow.ConstraintInvestigationActive},
		KeyPoints:        []string{"The records relate to an ongoing investigation and are exempt."},
		Reasons:          []string{"class DENIAL: score 6.5", "+3.5 DENIAL denial.denied: \"request is denied\""},
		InjectionFlags:   []string{FlagIgnoreInstructions},
	}
}

var allDraftActions = []workflow.ActionType{
	workflow.ActionSendInitial, workflow.ActionSendFollowup, workflow.ActionApproveFee, workflow.ActionSendClarification,
	workflow.ActionSendRebuttal, workflow.ActionSubmitPortal, workflow.ActionRefile, workflow.ActionEscalate,
	workflow.ActionCloseCompleted, workflow.ActionCloseNoRecords,
}

func renderDraft(d workflow.Draft) string {
	var b strings.Builder
	b.WriteString("Subject: " + d.Subject + "\n")
	if d.HumanTask {
		b.WriteString("HumanTask: true\n")
	}
	b.WriteString("Drafter: " + d.Drafter + "\n\n")
	b.WriteString(d.Text)
	b.WriteString("\n--- html ---\n")
	b.WriteString(d.HTML)
	return b.String()
}

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./analysis -update)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from golden (run with -update after review):\n--- got ---\n%s\n--- want ---\n%s", name, got, want)
	}
}

func TestTemplateDraftsGolden(t *testing.T) {
	for _, act := range allDraftActions {
		t.Run(string(act), func(t *testing.T) {
			req := workflow.DraftRequest{Action: act, Case: fixtureCase(), Analysis: fixtureAnalysis(), DaysElapsed: 23, FollowupNumber: 2,
				Now: time.Date(2024, 3, 24, 9, 30, 0, 0, time.UTC)}
			d, err := Templates{}.Draft(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, "drafts/"+strings.ToLower(string(act))+".golden", renderDraft(d))
		})
	}
}

func TestTemplateDraftContents(t *testing.T) {
	t.Parallel()
	draft := func(act workflow.ActionType, mut func(*workflow.DraftRequest)) workflow.Draft {
		req := workflow.DraftRequest{Action: act, Case: fixtureCase(), Analysis: fixtureAnalysis(), DaysElapsed: 23, FollowupNumber: 1, Now: time.Date(2024, 3, 24, 0, 0, 0, 0, time.UTC)}
		if mut != nil {
			mut(&req)
		}
		d, err := Templates{}.Draft(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	mustContain := func(d workflow.Draft, subs ...string) {
		t.Helper()
		for _, s := range subs {
			if !strings.Contains(d.Text, s) {
				t.Errorf("draft lacks %q:\n%s", s, d.Text)
			}
		}
	}
	mustContain(draft(workflow.ActionSendFollowup, nil), "PRR-2024-0117", "23 days", "Illinois Freedom of Information Act", "March 1, 2024")
	mustContain(draft(workflow.ActionApproveFee, nil), "$123.45", "payment methods", "invoice")
	mustContain(draft(workflow.ActionSendRebuttal, nil), "5 ILCS 140/7(1)(d)(i)", "segregable", "active investigation")
	mustContain(draft(workflow.ActionSendRebuttal, func(r *workflow.DraftRequest) { r.Analysis.Exemptions = nil }), "did not cite a specific statutory exemption")
	mustContain(draft(workflow.ActionRefile, nil), "Sangamon County Sheriff's Office")
	mustContain(draft(workflow.ActionSubmitPortal, nil), "https://springfield.nextrequest.com/requests/new", "NextRequest")
	for _, a := range []workflow.ActionType{workflow.ActionSubmitPortal, workflow.ActionRefile} {
		if !draft(a, nil).HumanTask {
			t.Errorf("%s is not a human task", a)
		}
	}
	if draft(workflow.ActionSendFollowup, nil).HumanTask {
		t.Error("follow-up marked as human task")
	}
	if _, err := (Templates{}).Draft(context.Background(), workflow.DraftRequest{Action: workflow.ActionNone}); err == nil {
		t.Error("NONE produced a draft")
	}
}

func TestTemplateAdjustProducesNewVersion(t *testing.T) {
	t.Parallel()
	base := workflow.DraftRequest{Action: workflow.ActionApproveFee, Case: fixtureCase(), Analysis: fixtureAnalysis()}
	d1, err := Templates{}.Draft(context.Background(), base)
	if err != nil {
		t.Fatal(err)
	}
	adj := base
	adj.Instruction = "Ask whether a <b>partial</b> payment is acceptable.\x07"
	adj.PreviousText = d1.Text
	d2, err := Templates{}.Draft(context.Background(), adj)
	if err != nil {
		t.Fatal(err)
	}
	if d2.Text == d1.Text || !strings.Contains(d2.Text, "Reviewer-requested addition: Ask whether a <b>partial</b> payment is acceptable.") {
		t.Fatalf("instruction not honoured:\n%s", d2.Text)
	}
	if strings.Contains(d2.Text, "\x07") {
		t.Error("control character kept")
	}
	if strings.Contains(d2.HTML, "<b>") || !strings.Contains(d2.HTML, "&lt;b&gt;partial&lt;/b&gt;") {
		t.Errorf("instruction HTML not escaped: %s", d2.HTML)
	}
	if !strings.HasSuffix(strings.TrimSpace(d2.Text), "Jordan Reyes") {
		t.Error("sign-off no longer last")
	}
}

func TestTextToHTMLEscapes(t *testing.T) {
	t.Parallel()
	got := TextToHTML("Hi <script>alert(1)</script> & co\nline two\n\n\nSecond \"para\"")
	want := "<p>Hi &lt;script&gt;alert(1)&lt;/script&gt; &amp; co<br>\nline two</p>\n<p>Second &#34;para&#34;</p>\n"
	if got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
