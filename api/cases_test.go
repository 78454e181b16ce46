package api

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/foiaflow/foiaflow/jobs"
)

func validCase() map[string]any {
	return map[string]any{"agency_name": "Springfield Police Department", "agency_email": "records@springfield.gov",
		"jurisdiction": "tx", "subject": "Use of force reports 2025", "requested_records": []string{"use of force reports"},
		"autopilot_mode": "SUPERVISED"}
}

func TestCreateCase(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.req("POST", "/v1/cases", e.reviewerKey, validCase()).expect(http.StatusCreated, "")
	var c createdCase
	r.decode(&c)
	if c.RunID != nil || c.Case.Status != "awaiting_response" || c.Case.SentAt == nil || c.Case.Jurisdiction != "TX" {
		t.Fatalf("case %+v", c.Case)
	}
	if !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(c.Case.ReplyToken) {
		t.Fatalf("reply token %q", c.Case.ReplyToken)
	}
	// Issue 10: the token is keyed by MAIL_ID_SECRET, not guessable from the
	// case number.
	if c.Case.ReplyToken != testIDs.ReplyToken(c.Case.CaseID) {
		t.Fatalf("reply token %q is not the HMAC of case %d", c.Case.ReplyToken, c.Case.CaseID)
	}
	if c.Case.ReplyAddress != "requests+"+c.Case.ReplyToken+"@"+testDomain {
		t.Fatalf("reply address %q", c.Case.ReplyAddress)
	}
	if r.Header.Get("Location") != "/v1/cases/"+itoa(c.Case.CaseID) {
		t.Fatalf("location %q", r.Header.Get("Location"))
	}
	if n := e.count(`SELECT count(*) FROM runs`); n != 0 {
		t.Fatalf("runs without send_initial_request: %d", n)
	}
	if a := e.db.String(t, `SELECT actor FROM activity_log WHERE kind = 'case_created'`); a != testReviewer {
		t.Fatalf("activity actor %q", a)
	}
}

func TestCreateCaseSendsInitialRequestThroughARun(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	body := validCase()
	body["send_initial_request"] = true
	var c createdCase
	e.req("POST", "/v1/cases", e.reviewerKey, body).expect(http.StatusCreated, "").decode(&c)
	if c.RunID == nil || c.Case.Status != "draft" || c.Case.SentAt != nil {
		t.Fatalf("created %+v run %v", c.Case, c.RunID)
	}
	id := itoa(c.Case.CaseID)
	if k := e.db.String(t, `SELECT trigger || ' ' || trigger_key FROM runs WHERE id = $1`, *c.RunID); k != "initial_request initial:"+id {
		t.Fatalf("run %q", k)
	}
	row, err := e.st.OutboxByTaskID(t.Context(), jobs.StepTaskID(*c.RunID, 0, 0))
	if err != nil {
		t.Fatalf("first step outbox row: %v", err)
	}
	if row.DispatchedAt == nil || row.Queue != e.queues.Agent {
		t.Fatalf("outbox row not dispatched to %s: %+v", e.queues.Agent, row)
	}
}

func TestCreateCaseRejectsBadInput(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	with := func(k string, v any) map[string]any {
		b := validCase()
		if v == nil {
			delete(b, k)
		} else {
			b[k] = v
		}
		return b
	}
	cases := []struct {
		name   string
		body   any
		status int
		code   string
	}{
		{"malformed json", `{"agency_name":`, 400, "invalid_json"},
		{"empty body", ``, 400, "invalid_json"},
		{"unknown field", with("agency_phone", "555"), 400, "invalid_json"},
		{"wrong type", with("requested_records", "all of them"), 400, "invalid_json"},
		{"oversize", `{"subject":"` + strings.Repeat("x", 1<<20) + `"}`, 413, "body_too_large"},
		{"no subject", with("subject", nil), 400, "invalid_field"},
		{"no agency", with("agency_name", " "), 400, "invalid_field"},
		{"no jurisdiction", with("jurisdiction", nil), 400, "invalid_field"},
		{"unknown jurisdiction", with("jurisdiction", "ZZ"), 422, "unknown_jurisdiction"},
		{"bad email", with("agency_email", "records at springfield"), 400, "invalid_field"},
		{"bad portal", with("portal_url", "ftp://portal"), 400, "invalid_field"},
		{"bad mode", with("autopilot_mode", "YOLO"), 400, "invalid_field"},
		{"bad timezone", with("agency_timezone", "Mars/Olympus"), 400, "invalid_field"},
		{"no records", with("requested_records", []string{}), 400, "invalid_field"},
		{"blank record", with("requested_records", []string{" "}), 400, "invalid_field"},
		{"long subject", with("subject", strings.Repeat("s", 600)), 400, "invalid_field"},
		// Issue 10: values that end up in email headers are checked before
		// anything is stored.
		{"subject header injection", with("subject", "Records\r\nBcc: victim@example.org"), 400, "invalid_field"},
		{"email header injection", with("agency_email", "records@springfield.gov\r\nBcc: victim@example.org"), 400, "invalid_field"},
		{"email with display name", with("agency_email", "Records <records@springfield.gov>"), 400, "invalid_field"},
		{"NUL in text", `{"agency_name":"Springfield\u0000PD","agency_email":"records@springfield.gov","jurisdiction":"TX",` +
			`"subject":"s","requested_records":["r"]}`, 400, "invalid_field"},
		{"sent in year 9999", with("sent_at", "9999-12-31T23:00:00-05:00"), 400, "invalid_field"},
		{"initial without email", func() any {
			b := with("agency_email", nil)
			b["portal_url"], b["send_initial_request"] = "https://portal.example.gov", true
			return b
		}(), 400, "invalid_field"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e.req("POST", "/v1/cases", e.reviewerKey, c.body).expect(c.status, c.code)
		})
	}
	if n := e.count(`SELECT count(*) FROM cases`) + e.count(`SELECT count(*) FROM agencies`); n != 0 {
		t.Fatalf("rejected requests stored %d rows", n)
	}
}

func TestListCasesPaginatesAndFilters(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var ids []int64
	for range 3 {
		id, _ := e.newCase()
		ids = append(ids, id)
	}
	e.db.Exec(t, `UPDATE cases SET status = 'completed' WHERE id = $1`, ids[0])
	var page struct {
		Cases      []map[string]any `json:"cases"`
		NextCursor *string          `json:"next_cursor"`
	}
	e.req("GET", "/v1/cases?limit=2", e.reviewerKey, nil).expect(200, "").decode(&page)
	if len(page.Cases) != 2 || page.NextCursor == nil || int64(page.Cases[0]["id"].(float64)) != ids[2] {
		t.Fatalf("page 1: %+v", page)
	}
	e.req("GET", "/v1/cases?limit=2&before="+*page.NextCursor, e.reviewerKey, nil).expect(200, "").decode(&page)
	if len(page.Cases) != 1 || page.NextCursor != nil || int64(page.Cases[0]["id"].(float64)) != ids[0] {
		t.Fatalf("page 2: %+v", page)
	}
	e.req("GET", "/v1/cases?status=completed", e.reviewerKey, nil).expect(200, "").decode(&page)
	if len(page.Cases) != 1 || page.Cases[0]["status"] != "completed" {
		t.Fatalf("filtered: %+v", page)
	}
	e.req("GET", "/v1/cases?status=bogus", e.reviewerKey, nil).expect(400, "invalid_query")
	e.req("GET", "/v1/cases?limit=-1", e.reviewerKey, nil).expect(400, "invalid_query")
	e.req("GET", "/v1/cases?limit=5000", e.reviewerKey, nil).expect(400, "invalid_query")
}

func TestGetCaseDetail(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id, _ := e.newCase()
	pid := e.pendingProposal(id, 2)
	e.db.Exec(t, `UPDATE cases SET due_at = now() - interval '2 days', fee_cents = 4500, fee_currency = 'GBP' WHERE id = $1`, id)
	var d CaseDetail
	e.req("GET", "/v1/cases/"+itoa(id), e.reviewerKey, nil).expect(200, "").decode(&d)
	if d.Case.FeeCents == nil || *d.Case.FeeCents != 4500 || d.Case.FeeCurrency != "GBP" {
		t.Fatalf("case fee %v %q, want 4500 GBP (documented in openapi.json's Case)", d.Case.FeeCents, d.Case.FeeCurrency)
	}
	if d.Case.CaseID != id || len(d.Proposals) != 1 || d.Proposals[0].ID != pid || len(d.Proposals[0].Versions) != 2 {
		t.Fatalf("detail %+v", d)
	}
	if !d.Case.Due.Overdue || d.Case.Due.DaysRemaining == nil || *d.Case.Due.DaysRemaining > -2 {
		t.Fatalf("due %+v", d.Case.Due)
	}
	if d.Messages == nil || d.Analyses == nil {
		t.Fatal("empty lists must be [] not null")
	}
	e.req("GET", "/v1/cases/999999", e.reviewerKey, nil).expect(404, "case_not_found")
	e.req("GET", "/v1/cases/x", e.reviewerKey, nil).expect(400, "invalid_id")
}

func TestPatchCase(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id, _ := e.newCase()
	var d CaseDetail
	e.req("PATCH", "/v1/cases/"+itoa(id), e.reviewerKey, map[string]any{"autopilot_mode": "MANUAL", "paused": true}).
		expect(200, "").decode(&d)
	if d.Case.AutopilotMode != "MANUAL" || !d.Case.Paused {
		t.Fatalf("patched %+v", d.Case)
	}
	e.req("PATCH", "/v1/cases/"+itoa(id), e.reviewerKey, map[string]any{"paused": false}).expect(200, "").decode(&d)
	if d.Case.AutopilotMode != "MANUAL" || d.Case.Paused {
		t.Fatalf("partial patch %+v", d.Case)
	}
	logged := e.db.String(t, `SELECT actor || ' ' || (detail->>'paused') || ' ' || coalesce(detail->>'autopilot_mode', 'null')
		FROM activity_log WHERE case_id = $1 AND kind = 'settings_changed' ORDER BY id DESC LIMIT 1`, id)
	if want := testReviewer + " false null"; logged != want {
		t.Fatalf("settings_changed activity %q, want %q (actor, then the fields as sent)", logged, want)
	}
	e.req("PATCH", "/v1/cases/"+itoa(id), e.reviewerKey, map[string]any{}).expect(400, "empty_patch")
	e.req("PATCH", "/v1/cases/"+itoa(id), e.reviewerKey, map[string]any{"autopilot_mode": "FAST"}).expect(400, "invalid_field")
	e.req("PATCH", "/v1/cases/"+itoa(id), e.reviewerKey, `{"status":"completed"}`).expect(400, "invalid_json")
	e.req("PATCH", "/v1/cases/999999", e.reviewerKey, map[string]any{"paused": true}).expect(404, "case_not_found")
	if s := e.db.String(t, `SELECT status FROM cases WHERE id = $1`, id); s != "awaiting_response" {
		t.Fatalf("status changed to %s", s)
	}
}
