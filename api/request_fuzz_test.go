package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/mail"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/foiaflow/foiaflow/workflow"
)

// decodeFuzz runs decodeJSON over body as a handler would and checks the
// error is one the API maps to 400 or 413.
func decodeFuzz(t *testing.T, body []byte, dst any) error {
	t.Helper()
	r := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
	err := decodeJSON(httptest.NewRecorder(), r, dst)
	if err == nil {
		return nil
	}
	var ae *Error
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &ae) && ae.Status == http.StatusBadRequest && ae.Code == "invalid_json":
	case errors.As(err, &tooBig) && int64(len(body)) > maxJSONBytes:
	default:
		t.Fatalf("decode error %v (%T) is not 400 invalid_json or 413", err, err)
	}
	return err
}

// checkValidateErr asserts a validation failure is a 400 *Error.
func checkValidateErr(t *testing.T, err error) {
	t.Helper()
	var ae *Error
	if !errors.As(err, &ae) || ae.Status != http.StatusBadRequest || ae.Code == "" {
		t.Fatalf("validate error %v is not a 400 *Error", err)
	}
}

// checkKnownKeys asserts an accepted body has only the given top-level keys
// (encoding/json matches field names case-insensitively).
func checkKnownKeys(t *testing.T, body []byte, known ...string) {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("accepted body is not a JSON object: %v", err)
	}
next:
	for k := range m {
		for _, n := range known {
			if strings.EqualFold(k, n) {
				continue next
			}
		}
		t.Fatalf("accepted body with unknown field %q", k)
	}
}

// decisionActionNames are the path values of the decision routes, in the
// order FuzzDecisionRequest indexes them.
var decisionActionNames = []string{"approve", "edit", "adjust", "dismiss", "withdraw"}

// FuzzDecisionRequest: decodeJSON + DecisionRequest.validate on any body,
// as decide runs them, for every action. Rejections are 400 (413 over the
// size limit); an accepted request satisfies every rule validate documents.
// Seeds: testdata/fuzz/FuzzDecisionRequest.
func FuzzDecisionRequest(f *testing.F) {
	f.Add(uint8(0), []byte(`{"version":1}`))
	f.Add(uint8(1), []byte(`{"version":3,"subject":"Re: records","body_text":"Thank you.\nWe accept the fee."}`))
	f.Add(uint8(2), []byte(`{"version":2,"instruction":"  ask for the fee waiver  "}`))
	f.Add(uint8(3), []byte(`{"version":1,"instruction":"x"}`))
	f.Add(uint8(4), []byte(`{"Version":1}`))
	f.Add(uint8(0), []byte(`{"version":1,"extra":true}`))
	f.Add(uint8(1), []byte(`{"version":1,"body_text":"\u00a0 "}`))
	f.Add(uint8(0), []byte(`{"version":1} {}`))
	f.Add(uint8(2), []byte(`{"version":1e400}`))
	f.Fuzz(func(t *testing.T, actionIdx uint8, body []byte) {
		action := decisionActions[decisionActionNames[int(actionIdx)%len(decisionActionNames)]]
		var req DecisionRequest
		if decodeFuzz(t, body, &req) != nil {
			return
		}
		if err := req.validate(action); err != nil {
			checkValidateErr(t, err)
			return
		}
		checkKnownKeys(t, body, "version", "instruction", "subject", "body_text")
		switch {
		case req.Version <= 0:
			t.Fatalf("accepted version %d", req.Version)
		case len(req.Instruction) > maxInstruction || len(req.Subject) > maxEditedSubject || len(req.BodyText) > maxEditedText:
			t.Fatalf("accepted over-long field: %d/%d/%d", len(req.Instruction), len(req.Subject), len(req.BodyText))
		case req.Instruction != strings.TrimSpace(req.Instruction):
			t.Fatalf("instruction %q not trimmed", req.Instruction)
		case action == workflow.DecisionAdjust && req.Instruction == "":
			t.Fatal("adjust accepted without instruction")
		case action != workflow.DecisionAdjust && req.Instruction != "":
			t.Fatalf("%s accepted with instruction", action)
		case action == workflow.DecisionEdit && strings.TrimSpace(req.BodyText) == "":
			t.Fatal("edit accepted without body_text")
		case action != workflow.DecisionEdit && (req.Subject != "" || req.BodyText != ""):
			t.Fatalf("%s accepted with subject or body_text", action)
		}
		if h := requestHash(action, 1, req); len(h) != 64 || h != requestHash(action, 1, req) {
			t.Fatalf("request hash %q", h)
		}
	})
}

// FuzzCreateCaseRequest: decodeJSON + createCaseRequest.validate on any
// body, as createCase runs them. Rejections are 400 (413 over the size
// limit); an accepted request is normalised and satisfies every rule
// validate documents. Seeds: testdata/fuzz/FuzzCreateCaseRequest.
func FuzzCreateCaseRequest(f *testing.F) {
	f.Add([]byte(`{"agency_name":"City of Springfield","agency_email":"records@springfield.gov","jurisdiction":"TX","subject":"Police records","requested_records":["incident reports"],"send_initial_request":true}`))
	f.Add([]byte(`{"agency_name":" A ","portal_url":"https://springfield.govqa.us/","agency_timezone":"America/Chicago","jurisdiction":"IL","subject":"s","requested_records":[" a ","b"],"autopilot_mode":"MANUAL","sent_at":"2024-03-15T14:30:00Z"}`))
	f.Add([]byte(`{"agency_name":"A","agency_email":"Name <a@b.gov>","jurisdiction":"TX","subject":"s","requested_records":["a"]}`))
	f.Add([]byte(`{"agency_name":"A","agency_email":"a@b.gov","agency_timezone":"../../etc/passwd","jurisdiction":"TX","subject":"s","requested_records":["a"]}`))
	f.Add([]byte(`{"agency_name":"A","portal_url":"javascript:alert(1)","jurisdiction":"TX","subject":"s","requested_records":["a"]}`))
	f.Add([]byte(`{"agency_name":"A","agency_email":"a@b.gov","jurisdiction":"TX","subject":"s","requested_records":["a"],"sent_at":"2024-13-45T99:00:00Z"}`))
	f.Add([]byte(`{"agency_name":"A","agency_email":"a@b.gov","jurisdiction":"TX","subject":"s","requested_records":[],"autopilot_mode":"auto"}`))
	f.Add([]byte(`{"agency_name":"A","agency_email":"a@b.gov","jurisdiction":"TX","subject":"s","requested_records":["a"],"fee_cents":5}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		var req createCaseRequest
		if decodeFuzz(t, body, &req) != nil {
			return
		}
		if err := req.validate(); err != nil {
			checkValidateErr(t, err)
			return
		}
		checkKnownKeys(t, body, "agency_name", "agency_email", "agency_timezone", "portal_url", "jurisdiction",
			"subject", "requested_records", "autopilot_mode", "requester_name", "sent_at", "send_initial_request")
		for name, v := range map[string]string{"agency_name": req.AgencyName, "agency_email": req.AgencyEmail,
			"portal_url": req.PortalURL, "subject": req.Subject} {
			if v != strings.TrimSpace(v) || len(v) > maxTextField {
				t.Fatalf("%s %q not trimmed or over %d bytes", name, v, maxTextField)
			}
		}
		if len(req.RequesterName) > maxTextField || len(req.AgencyTimezone) > maxTextField {
			t.Fatal("requester_name or agency_timezone over the limit")
		}
		switch {
		case req.AgencyName == "" || req.Subject == "" || req.Jurisdiction == "":
			t.Fatal("accepted without agency_name, subject or jurisdiction")
		case req.AgencyEmail == "" && req.PortalURL == "":
			t.Fatal("accepted without agency_email or portal_url")
		case req.SendInitialRequest && (req.AgencyEmail == "" || req.SentAt != nil):
			t.Fatal("send_initial_request accepted without agency_email or with sent_at")
		case len(req.RequestedRecords) == 0 || len(req.RequestedRecords) > maxRecordItems:
			t.Fatalf("accepted %d requested records", len(req.RequestedRecords))
		case !workflow.AutopilotMode(req.AutopilotMode).Valid():
			t.Fatalf("accepted autopilot_mode %q", req.AutopilotMode)
		}
		for i, rec := range req.RequestedRecords {
			if rec == "" || rec != strings.TrimSpace(rec) || len(rec) > maxRecordLength {
				t.Fatalf("requested_records[%d] = %q", i, rec)
			}
		}
		if req.AgencyEmail != "" {
			if a, err := mail.ParseAddress(req.AgencyEmail); err != nil || a.Name != "" {
				t.Fatalf("accepted agency_email %q", req.AgencyEmail)
			}
		}
		if req.PortalURL != "" {
			if u, err := url.Parse(req.PortalURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				t.Fatalf("accepted portal_url %q", req.PortalURL)
			}
		}
		if req.AgencyTimezone != "" {
			if _, err := time.LoadLocation(req.AgencyTimezone); err != nil {
				t.Fatalf("accepted agency_timezone %q", req.AgencyTimezone)
			}
		}
	})
}
