package fleet

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"time"

	gomail "github.com/wneessen/go-mail"

	"github.com/foiaflow/foiaflow/dataset"
	"github.com/foiaflow/foiaflow/mail"
)

// Case is a case created through the API.
type Case struct {
	ID           int64
	ReplyAddress string
	AgencyEmail  string
}

// CreateCase creates case number i (agency i) through POST /v1/cases, as
// already sent 25 days ago, so the next event is the agency's reply.
func (c *Client) CreateCase(ctx context.Context, i int, subject string) (Case, error) {
	var created struct {
		Case struct {
			CaseID       int64  `json:"case_id"`
			ReplyAddress string `json:"reply_address"`
		} `json:"case"`
	}
	agency := fmt.Sprintf("records%d@agency%d.example.gov", i, i)
	sent := time.Now().Add(-25 * 24 * time.Hour).UTC()
	err := c.Do(ctx, http.MethodPost, "/v1/cases", map[string]any{
		"agency_name": fmt.Sprintf("Agency %d", i+1), "agency_email": agency, "jurisdiction": "US",
		"subject": subject, "requested_records": []string{"the records described in the request"},
		"autopilot_mode": "SUPERVISED", "sent_at": sent}, &created, nil)
	if err != nil {
		return Case{}, err
	}
	return Case{ID: created.Case.CaseID, ReplyAddress: created.Case.ReplyAddress, AgencyEmail: agency}, nil
}

// ReplyMIME builds the agency's reply r to case k as RFC 5322 bytes with a
// unique Message-ID under tag, keeping the corpus source in X-Corpus-Source.
func ReplyMIME(k Case, r dataset.Reply, subject, tag string) ([]byte, error) {
	return mail.BuildMessage(mail.Outbound{From: k.AgencyEmail, To: []string{k.ReplyAddress},
		Subject: "RE: " + subject, Text: r.Text,
		MessageID: fmt.Sprintf("<%s-%s-%s@agency%d.example.gov>", tag, r.Name, RandHex(4), k.ID),
		Headers:   map[string]string{"X-Corpus-Source": r.Source}, Date: time.Now().UTC()})
}

// ReplyMIMEWithAttachment is ReplyMIME with one attachment (multipart/mixed,
// base64), rendered by go-mail as a mail client would send it.
func ReplyMIMEWithAttachment(k Case, r dataset.Reply, subject, tag, filename, contentType string, content []byte) ([]byte, error) {
	msg := gomail.NewMsg(gomail.WithNoDefaultUserAgent())
	if err := msg.From(k.AgencyEmail); err != nil {
		return nil, err
	}
	if err := msg.To(k.ReplyAddress); err != nil {
		return nil, err
	}
	msg.Subject("RE: " + subject)
	msg.SetMessageIDWithValue(fmt.Sprintf("%s-%s-%s@agency%d.example.gov", tag, r.Name, RandHex(4), k.ID))
	msg.SetDateWithValue(time.Now().UTC())
	msg.SetGenHeader("X-Corpus-Source", r.Source)
	msg.SetBodyString(gomail.TypeTextPlain, r.Text)
	if err := msg.AttachReader(filename, bytes.NewReader(content), gomail.WithFileContentType(gomail.ContentType(contentType))); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if _, err := msg.WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// PostReply posts a signed reply, waits until the inbound:parse job has
// handled it (GET /v1/inbound/{id}), and returns the run it started (0 when
// it started none) and how it was matched.
func (c *Client) PostReply(ctx context.Context, raw []byte) (runID int64, match string, err error) {
	var rc struct {
		RawMessageID int64 `json:"raw_message_id"`
	}
	if err := c.PostMIME(ctx, raw, &rc); err != nil {
		return 0, "", err
	}
	for {
		var st struct {
			Status string `json:"status"`
			RunID  *int64 `json:"run_id"`
			Match  string `json:"match"`
		}
		if err := c.Do(ctx, http.MethodGet, fmt.Sprintf("/v1/inbound/%d", rc.RawMessageID), nil, &st, nil); err != nil {
			return 0, "", err
		}
		if st.Status != "received" {
			if st.RunID != nil {
				runID = *st.RunID
			}
			return runID, st.Match, nil
		}
		select {
		case <-ctx.Done():
			return 0, "", fmt.Errorf("inbound %d not parsed: %w", rc.RawMessageID, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Approve approves a parked proposal at version through the API with a fresh
// Idempotency-Key; it returns the decision id and its resume task id.
func (c *Client) Approve(ctx context.Context, caseID, proposalID int64, version int) (int64, string, error) {
	var dec struct {
		DecisionID int64  `json:"decision_id"`
		TaskID     string `json:"task_id"`
	}
	path := fmt.Sprintf("/v1/cases/%d/proposals/%d/approve", caseID, proposalID)
	err := c.Do(ctx, http.MethodPost, path, map[string]any{"version": version}, &dec,
		map[string]string{"Idempotency-Key": "k-" + RandHex(8)})
	return dec.DecisionID, dec.TaskID, err
}
