package api

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/foiaflow/foiaflow/store"
	"github.com/foiaflow/foiaflow/store/storetest"
	"github.com/foiaflow/foiaflow/workflow"
)

// withAttachment builds a reply carrying one base64 attachment; disposition
// is the Content-Disposition parameter text after "attachment; ".
func withAttachment(token, contentType, disposition string, content []byte) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "From: records@springfield.gov\r\nTo: requests+%s@%s\r\nSubject: RE: records\r\nMessage-ID: %s\r\n", token, testDomain, msgID())
	b.WriteString("MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"xx\"\r\n\r\n--xx\r\nContent-Type: text/plain\r\n\r\nThe responsive records are attached.\r\n")
	fmt.Fprintf(&b, "--xx\r\nContent-Type: %s\r\nContent-Disposition: attachment; %s\r\nContent-Transfer-Encoding: base64\r\n\r\n", contentType, disposition)
	enc := base64.StdEncoding.EncodeToString(content)
	for len(enc) > 76 {
		b.WriteString(enc[:76] + "\r\n")
		enc = enc[76:]
	}
	b.WriteString(enc + "\r\n--xx--\r\n")
	return []byte(b.String())
}

func (e *env) get(path string, hdr ...string) resp {
	e.t.Helper()
	rq, _ := http.NewRequest(http.MethodGet, e.ts.URL+path, nil)
	rq.Header.Set("Authorization", "Bearer "+e.reviewerKey)
	for i := 0; i+1 < len(hdr); i += 2 {
		rq.Header.Set(hdr[i], hdr[i+1])
	}
	return e.send(rq)
}

// TestRecordsListedAndServed: the PDF an agency sends is stored, listed on
// its case and served back byte for byte, with ranges and an ETag.
func TestRecordsListedAndServed(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, token := e.newCase()
	pdf := append([]byte("%PDF-1.4\n"), bytes.Repeat([]byte("responsive record line\n"), 400)...)
	raw := withAttachment(token, "application/pdf; name=\"UOF 2025.pdf\"", `filename="UOF 2025.pdf"`, pdf)
	rc, res := e.deliver(raw)
	if res.Status != store.RawParsed || res.CaseID != c {
		t.Fatalf("parse %+v", res)
	}
	var body CaseMessages
	e.get("/v1/cases/"+itoa(c)+"/messages").expect(200, "").decode(&body)
	if len(body.Messages) != 1 || len(body.Messages[0].StoredAttachments) != 1 {
		t.Fatalf("messages %+v", body)
	}
	a := body.Messages[0].StoredAttachments[0]
	if a.Filename != "UOF 2025.pdf" || a.ContentType != "application/pdf" || a.SizeBytes != int64(len(pdf)) || a.Oversize ||
		body.Records.AttachmentsReceived != 1 || body.Records.MessagesReceived != 1 {
		t.Fatalf("attachment %+v, records %+v", a, body.Records)
	}
	got := e.get(a.DownloadURL).expect(200, "")
	if !bytes.Equal(got.Body, pdf) || got.Header.Get("Content-Type") != "application/pdf" ||
		got.Header.Get("Content-Disposition") != `inline; filename="UOF 2025.pdf"` || got.Header.Get("ETag") != `"`+a.SHA256+`"` ||
		got.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Fatalf("download: %d bytes, headers %v", len(got.Body), got.Header)
	}
	part := e.get(a.DownloadURL, "Range", "bytes=100-199")
	if part.Status != http.StatusPartialContent || !bytes.Equal(part.Body, pdf[100:200]) ||
		part.Header.Get("Content-Range") != fmt.Sprintf("bytes 100-199/%d", len(pdf)) {
		t.Fatalf("range: %d %q %v", part.Status, part.Body, part.Header)
	}
	if r := e.get(a.DownloadURL, "If-None-Match", `"`+a.SHA256+`"`); r.Status != http.StatusNotModified {
		t.Fatalf("If-None-Match: %d", r.Status)
	}
	e.req("GET", a.DownloadURL, "", nil).expect(401, "unauthorized")
	e.get("/v1/attachments/999999").expect(404, "attachment_not_found")
	// The raw message comes back exactly as it was posted.
	rawGot := e.get(body.Messages[0].RawURL).expect(200, "")
	if !bytes.Equal(rawGot.Body, raw) || rawGot.Header.Get("Content-Type") != "message/rfc822" || rc.SHA256 == "" {
		t.Fatalf("raw download differs (%d bytes)", len(rawGot.Body))
	}
	var tl timelineBody
	e.get("/v1/cases/"+itoa(c)+"/timeline").expect(200, "").decode(&tl)
	if tl.Records.AttachmentsReceived != 1 || len(tl.Events) == 0 || tl.Events[len(tl.Events)-1].Kind != "message_received" {
		t.Fatalf("timeline %+v", tl)
	}
	e.get("/v1/cases/999999/messages").expect(404, "case_not_found")
	e.get("/v1/cases/999999/timeline").expect(404, "case_not_found")
}

// TestAttachmentHeadersAreSafe: a file name with CR/LF, quotes and a path
// cannot inject a header, and an HTML attachment is never served as HTML.
func TestAttachmentHeadersAreSafe(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, token := e.newCase()
	raw := withAttachment(token, "text/html", `filename*=utf-8''..%2F..%2Fevil%22%0D%0ASet-Cookie%3A%20session%3Dx%0D%0A.html`,
		[]byte("<script>alert(1)</script>"))
	e.deliver(raw)
	var body CaseMessages
	e.get("/v1/cases/"+itoa(c)+"/messages").expect(200, "").decode(&body)
	if len(body.Messages) != 1 || len(body.Messages[0].StoredAttachments) != 1 {
		t.Fatalf("messages %+v", body)
	}
	got := e.get(body.Messages[0].StoredAttachments[0].DownloadURL).expect(200, "")
	cd := got.Header.Get("Content-Disposition")
	if got.Header.Get("Set-Cookie") != "" || strings.ContainsAny(cd, "\r\n") || !strings.HasPrefix(cd, "attachment;") ||
		strings.Contains(cd, "/") || got.Header.Get("Content-Type") != "application/octet-stream" {
		t.Fatalf("headers %v", got.Header)
	}
	for _, n := range []string{"", "..", "/", "\x00\r\n", "a/b\\c.pdf"} {
		if d := downloadName(n, "attachment-1"); d == "" || strings.ContainsAny(d, "/\\\r\n\x00\"") {
			t.Fatalf("downloadName(%q) = %q", n, d)
		}
	}
}

// TestOversizeAttachmentIsStoredAndFlagged: over ATTACHMENT_MAX_BYTES an
// attachment is still stored and served, and flagged.
func TestOversizeAttachmentIsStoredAndFlagged(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.proc.AttachmentMaxBytes = 1000
	c, token := e.newCase()
	big := bytes.Repeat([]byte("x"), 5000)
	e.deliver(withAttachment(token, "application/octet-stream", `filename="big.bin"`, big))
	var body CaseMessages
	e.get("/v1/cases/"+itoa(c)+"/messages").expect(200, "").decode(&body)
	a := body.Messages[0].StoredAttachments[0]
	if !a.Oversize || a.SizeBytes != 5000 {
		t.Fatalf("attachment %+v", a)
	}
	if got := e.get(a.DownloadURL).expect(200, ""); !bytes.Equal(got.Body, big) {
		t.Fatal("oversize attachment not served")
	}
	if n := e.count(`SELECT count(*) FROM activity_log WHERE case_id = $1 AND (detail->>'attachments_over_limit')::int = 1`, c); n != 1 {
		t.Fatal("oversize attachment not on the timeline")
	}
}

// TestReanalysisIsANewAnalysisAndSendsNothing: an admin re-analyses a
// stored message; the worker parses the raw bytes again and stores a new
// analysis without a run.
func TestReanalysisIsANewAnalysisAndSendsNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	sender := e.startWorker()
	c, token := e.newCase()
	var rc inboundReceipt
	e.postRaw(rawEmail("records@springfield.gov", "requests+"+token+"@"+testDomain, msgID(), "", "Reference 2026-0042."), testRawSecret,
		time.Now()).expect(202, "").decode(&rc)
	var st store.InboundStatus
	storetest.Eventually(t, 15*time.Second, "parsed and run finished", func() bool {
		e.get("/v1/inbound/"+itoa(rc.RawMessageID)).expect(200, "").decode(&st)
		return st.RunID != nil && e.db.String(t, `SELECT status FROM runs WHERE id = $1`, *st.RunID) == string(workflow.RunCompleted)
	})
	msg := *st.MessageRowID
	runsBefore := e.count(`SELECT count(*) FROM runs`)
	// Someone "fixes" the stored parse: the re-parse must restore it from the raw bytes.
	e.db.Exec(t, `UPDATE messages SET body_text = 'garbled' WHERE id = $1`, msg)
	path := "/v1/admin/messages/" + itoa(msg) + "/reanalyze"
	e.req("POST", path, e.reviewerKey, nil).expect(403, "forbidden")
	var res reanalyzeResult
	e.req("POST", path, testAdminKey, nil).expect(202, "").decode(&res)
	if res.TaskID != fmt.Sprintf("reanalyze:%d", res.ReanalysisID) {
		t.Fatalf("reanalyze %+v", res)
	}
	var re store.Reanalysis
	storetest.Eventually(t, 15*time.Second, "re-analysis done", func() bool {
		e.req("GET", "/v1/admin/reanalyses/"+itoa(res.ReanalysisID), testAdminKey, nil).expect(200, "").decode(&re)
		return re.Status != "queued"
	})
	if re.Status != "done" || re.AnalysisID == nil || !strings.Contains(string(re.Analysis), "ACKNOWLEDGMENT") {
		t.Fatalf("reanalysis %+v %s", re, re.Analysis)
	}
	if got := e.db.String(t, `SELECT body_text FROM messages WHERE id = $1`, msg); !strings.Contains(got, "2026-0042") {
		t.Fatalf("not re-parsed: %q", got)
	}
	if n := e.count(`SELECT count(*) FROM response_analyses WHERE message_id = $1`, msg); n != 2 {
		t.Fatalf("%d analyses, want the run's and the re-analysis", n)
	}
	if n := e.count(`SELECT count(*) FROM runs`); n != runsBefore || len(sender.Sent()) != 0 {
		t.Fatalf("re-analysis started runs (%d→%d) or sent %d emails", runsBefore, n, len(sender.Sent()))
	}
	e.req("POST", "/v1/admin/messages/999999/reanalyze", testAdminKey, nil).expect(404, "message_not_found")
	e.req("GET", "/v1/admin/reanalyses/999999", testAdminKey, nil).expect(404, "reanalysis_not_found")
	// An outbound message has no raw bytes to re-parse.
	var out int64
	_, err := e.st.InTx(context.Background(), func(tx *store.Tx) error {
		cid := c
		var err error
		out, _, err = tx.InsertMessage(context.Background(), store.Message{CaseID: &cid, Direction: "outbound", MessageID: msgID()})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	e.req("POST", "/v1/admin/messages/"+itoa(out)+"/reanalyze", testAdminKey, nil).expect(409, "not_reanalyzable")
}
