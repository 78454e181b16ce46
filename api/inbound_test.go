package api

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"github.com/foiaflow/foiaflow/inbound"
	"github.com/foiaflow/foiaflow/jobs"
	"github.com/foiaflow/foiaflow/mail"
	"github.com/foiaflow/foiaflow/store"
	"github.com/foiaflow/foiaflow/store/storetest"
	"github.com/foiaflow/foiaflow/workflow"
)

func msgID() string { return "<" + storetest.Suffix(8) + "@springfield.gov>" }

// rows counts what ingestion may write.
func (e *env) rows() int64 {
	return e.count(`SELECT (SELECT count(*) FROM raw_messages) + (SELECT count(*) FROM messages) + (SELECT count(*) FROM runs)
		+ (SELECT count(*) FROM outbox) + (SELECT count(*) FROM webhook_tokens)`)
}

// runState is the checkpointed state of a run.
func (e *env) runState(runID int64) workflow.CaseState {
	e.t.Helper()
	var st workflow.CaseState
	if err := jsonUnmarshal([]byte(e.db.String(e.t, `SELECT state::text FROM runs WHERE id = $1`, runID)), &st); err != nil {
		e.t.Fatal(err)
	}
	return st
}

// TestInboundStoresFirstThenParses: the webhook stores the bytes and
// queues the parse, nothing else; the parse job matches by reply token,
// supersedes the pending proposal (the agency's own address) and starts
// the run.
func TestInboundStoresFirstThenParses(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, token := e.newCase()
	pending := e.pendingProposal(c, 1)
	raw := rawEmail("Records Unit <RECORDS@springfield.gov>", "requests+"+token+"@"+testDomain, msgID(), "", "Your fee is $25.")
	var rc inboundReceipt
	e.postRaw(raw, testRawSecret, time.Now()).expect(http.StatusAccepted, "").decode(&rc)
	if rc.Status != store.RawReceived || rc.Duplicate || rc.SizeBytes != int64(len(raw)) || rc.TaskID != jobs.InboundParseTaskID(rc.RawMessageID, 0) {
		t.Fatalf("receipt %+v", rc)
	}
	obj, err := e.blobs.Open(t.Context(), rc.SHA256)
	if err != nil {
		t.Fatalf("raw bytes not in the message store: %v", err)
	}
	stored, _ := io.ReadAll(obj)
	obj.Close()
	if !bytes.Equal(stored, raw) {
		t.Fatal("stored raw bytes differ from the delivery")
	}
	if n := e.count(`SELECT count(*) FROM messages`); n != 0 {
		t.Fatalf("the webhook parsed: %d messages", n)
	}
	if row, err := e.st.OutboxByTaskID(t.Context(), rc.TaskID); err != nil || row.DispatchedAt == nil {
		t.Fatalf("parse task not dispatched: %+v %v", row, err)
	}

	res := e.parse(rc.RawMessageID)
	if res.Status != store.RawParsed || res.CaseID != c || res.Match != inbound.MatchReplyToken || res.RunID == 0 {
		t.Fatalf("parse %+v", res)
	}
	m, err := e.st.GetMessage(t.Context(), res.MessageID)
	if err != nil || !m.SenderAllowed || m.From != "RECORDS@springfield.gov" || !strings.Contains(m.Text, "$25") || *m.RawMessageID != rc.RawMessageID {
		t.Fatalf("message %+v: %v", m, err)
	}
	if k := e.db.String(t, `SELECT trigger || ' ' || trigger_key FROM runs WHERE id = $1`, res.RunID); k != "agency_reply reply:"+itoa(res.MessageID) {
		t.Fatalf("run %s", k)
	}
	if row, err := e.st.OutboxByTaskID(t.Context(), jobs.StepTaskID(res.RunID, 0, 0)); err != nil || row.DispatchedAt == nil {
		t.Fatalf("first step not dispatched: %+v %v", row, err)
	}
	if s := e.db.String(t, `SELECT status FROM proposals WHERE id = $1`, pending); s != "SUPERSEDED" {
		t.Fatalf("pending proposal is %s, want SUPERSEDED", s)
	}
	// A second parse task for the same delivery is a no-op.
	if again := e.parse(rc.RawMessageID); again.Status != "" || e.count(`SELECT count(*) FROM runs WHERE trigger_message_id IS NOT NULL`) != 1 {
		t.Fatalf("second parse %+v", again)
	}
	var st store.InboundStatus
	e.req("GET", "/v1/inbound/"+itoa(rc.RawMessageID), e.reviewerKey, nil).expect(200, "").decode(&st)
	if st.Status != store.RawParsed || st.CaseID == nil || *st.CaseID != c || st.RunID == nil || *st.RunID != res.RunID || st.Match != "reply_token" {
		t.Fatalf("inbound status %+v", st)
	}
	e.req("GET", "/v1/inbound/999999", e.reviewerKey, nil).expect(404, "inbound_not_found")
	e.req("GET", "/v1/inbound/"+itoa(rc.RawMessageID), "", nil).expect(401, "unauthorized")
}

// TestInboundSenderOffAllowlistIsForcedToAHuman: the reply token proves
// the thread but the sender is not the agency: attached, nothing
// superseded, the run is marked so it parks (issue 10). Allowing the
// sender's domain on the agency through the cases API lets its next reply
// steer the case.
func TestInboundSenderOffAllowlistIsForcedToAHuman(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, token := e.newCase()
	pending := e.pendingProposal(c, 1)
	_, res := e.deliver(rawEmail("clerk@elsewhere.org", "requests+"+token+"@"+testDomain, msgID(), "", "Your fee is now $45."))
	if res.CaseID != c || res.RunID == 0 {
		t.Fatalf("parse %+v", res)
	}
	if m, _ := e.st.GetMessage(t.Context(), res.MessageID); m.SenderAllowed {
		t.Fatal("stranger marked allowed")
	}
	if !e.runState(res.RunID).SenderUnverified {
		t.Fatal("run not marked: autopilot could act on it")
	}
	if s := e.db.String(t, `SELECT status FROM proposals WHERE id = $1`, pending); s != "PENDING_APPROVAL" {
		t.Fatalf("a stranger superseded the pending proposal: %s", s)
	}
	// Same domain as the agency, different address: not allowed either.
	_, res = e.deliver(rawEmail("other@springfield.gov", "requests+"+token+"@"+testDomain, msgID(), "", "Fee $45."))
	if !e.runState(res.RunID).SenderUnverified {
		t.Fatal("another address at the agency's domain may steer the case")
	}
	// The reviewer allows the domain.
	var d CaseDetail
	e.req("PATCH", "/v1/cases/"+itoa(c), e.reviewerKey, map[string]any{"agency_allowed_senders": []string{"@Springfield.gov", "clerk@elsewhere.org"}}).
		expect(200, "").decode(&d)
	if got := strings.Join(d.Case.AgencyAllowedSenders, ","); got != "@springfield.gov,clerk@elsewhere.org" {
		t.Fatalf("allowlist %q", got)
	}
	_, res = e.deliver(rawEmail("other@springfield.gov", "requests+"+token+"@"+testDomain, msgID(), "", "Fee $45."))
	if e.runState(res.RunID).SenderUnverified {
		t.Fatal("allowed domain still unverified")
	}
	e.req("PATCH", "/v1/cases/"+itoa(c), e.reviewerKey, map[string]any{"agency_allowed_senders": []string{"not an address"}}).
		expect(400, "invalid_field")
	e.req("PATCH", "/v1/cases/"+itoa(c), e.reviewerKey, map[string]any{"agency_allowed_senders": []string{"a@b.gov\r\nBcc: x@y"}}).
		expect(400, "invalid_field")
}

// TestInboundNoSenderFallback is the spoofing regression (issue 10 item 1):
// mail from the agency's address or domain that carries no reply token and
// names none of our messages is an orphan with its reason, never attached
// to the agency's newest case.
func TestInboundNoSenderFallback(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, _ := e.newCase()
	pending := e.pendingProposal(c, 1)
	for _, from := range []string{"Records <RECORDS@springfield.gov>", "chief@springfield.gov"} {
		_, res := e.deliver(rawEmail(from, "records@"+testDomain, msgID(), "<guessed@"+testDomain+">", "Fee is now $45."))
		if res.CaseID != 0 || res.RunID != 0 || res.Match != inbound.MatchOrphan {
			t.Fatalf("%s attached without proof: %+v", from, res)
		}
		if m, _ := e.st.GetMessage(t.Context(), res.MessageID); !strings.Contains(m.OrphanReason, "no reply-address token") {
			t.Fatalf("orphan reason %q", m.OrphanReason)
		}
	}
	if s := e.db.String(t, `SELECT status FROM proposals WHERE id = $1`, pending); s != "PENDING_APPROVAL" {
		t.Fatalf("pending proposal %s", s)
	}
	_, res := e.deliver(rawEmail("spam@nowhere.example", "requests+unknowntoken@"+testDomain, msgID(), "", "hello"))
	if m, _ := e.st.GetMessage(t.Context(), res.MessageID); res.CaseID != 0 || !strings.Contains(m.OrphanReason, "token matches no case") {
		t.Fatalf("unknown token %+v %q", res, m.OrphanReason)
	}
}

func TestInboundMatchByThread(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c1, _ := e.newCase()
	e.newCase()
	sent := "<sent-" + storetest.Suffix(4) + "@" + testDomain + ">"
	e.db.Exec(t, `INSERT INTO messages (case_id, direction, message_id, message_id_hash) VALUES ($1, 'outbound', $2, $3)`,
		c1, sent, store.MessageIDHash(sent))
	raw := rawEmail("records@springfield.gov", "records@"+testDomain, msgID(), "<unknown@x>", "thread")
	raw = bytes.Replace(raw, []byte("Date:"), []byte("References: <a@b> "+sent+" <c@d>\r\nDate:"), 1)
	_, res := e.deliver(raw)
	if res.Match != inbound.MatchInReplyTo || res.CaseID != c1 || res.RunID == 0 || e.runState(res.RunID).SenderUnverified {
		t.Fatalf("by thread %+v", res)
	}
}

// TestInboundRedeliveriesAreDeduplicated: the same bytes again are the same
// raw message (200, duplicate); other bytes with the same Message-ID (a
// provider adds a header) are stored but become no second message or run.
func TestInboundRedeliveriesAreDeduplicated(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, token := e.newCase()
	id := msgID()
	raw := rawEmail("records@springfield.gov", "requests+"+token+"@"+testDomain, id, "", "Acknowledged.")
	first, res := e.deliver(raw)
	before := e.rows()
	var again inboundReceipt
	e.postRaw(raw, testRawSecret, time.Now()).expect(http.StatusOK, "").decode(&again)
	if !again.Duplicate || again.RawMessageID != first.RawMessageID || again.TaskID != "" {
		t.Fatalf("redelivery %+v (first %+v)", again, first)
	}
	if after := e.rows(); after != before {
		t.Fatalf("redelivery stored %d new rows", after-before)
	}
	if n := e.count(`SELECT deliveries FROM raw_messages WHERE id = $1`, first.RawMessageID); n != 2 {
		t.Fatalf("deliveries %d", n)
	}
	other := append([]byte("X-Received-By: mx2.provider.example\r\n"), raw...)
	_, dup := e.deliver(other)
	if dup.Status != store.RawDuplicate || dup.MessageID != res.MessageID || dup.RunID != 0 {
		t.Fatalf("same Message-ID again: %+v", dup)
	}
	if n := e.count(`SELECT count(*) FROM runs WHERE trigger_message_id IS NOT NULL`); n != 1 {
		t.Fatalf("%d runs", n)
	}
}

// TestInboundHugeMessageIDNeverFails: a 3,000-character Message-ID used to
// overflow the unique btree index (a 500 on every redelivery, the reply
// lost); its hash is the key now.
func TestInboundHugeMessageIDNeverFails(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, token := e.newCase()
	id := "<" + strings.Repeat("x", 3000) + "@springfield.gov>"
	raw := rawEmail("records@springfield.gov", "requests+"+token+"@"+testDomain, id, "", "Acknowledged.")
	_, res := e.deliver(raw)
	if res.Status != store.RawParsed || res.CaseID != c {
		t.Fatalf("parse %+v", res)
	}
	_, dup := e.deliver(append([]byte("X-Again: 1\r\n"), raw...))
	if dup.Status != store.RawDuplicate || dup.MessageID != res.MessageID {
		t.Fatalf("redelivery %+v", dup)
	}
	if got := e.db.String(t, `SELECT message_id FROM messages WHERE id = $1`, res.MessageID); got != id {
		t.Fatalf("stored id of %d characters", len(got))
	}
	if _, err := e.st.LoadCase(t.Context(), c); err != nil {
		t.Fatal(err)
	}
}

// autoReply builds a reply with the given extra headers and subject.
func autoReply(token, subject, headers, body string) []byte {
	return []byte(fmt.Sprintf("From: records@springfield.gov\r\nTo: requests+%s@%s\r\nSubject: %s\r\nMessage-ID: %s\r\n%s"+
		"Content-Type: text/plain\r\n\r\n%s\r\n", token, testDomain, subject, msgID(), headers, body))
}

// TestInboundAutomaticMailIsNeverAnswered (issue 10 item 2): auto-replies,
// out-of-office notices, bulk mail and bounces are stored on the case and
// its timeline but start no run; a bounce escalates. Auto-Submitted: no is
// a person's mail.
func TestInboundAutomaticMailIsNeverAnswered(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, token := e.newCase()
	clarify := "Please clarify the date range of your request."
	cases := []struct {
		name, subject, headers string
		kind                   mail.AutoKind
	}{
		{"auto-submitted", "RE: records request", "Auto-Submitted: auto-replied\r\n", mail.AutoSubmitted},
		{"out of office", "Automatic reply: RE: records request", "", mail.AutoOutOfOffice},
		{"precedence bulk", "RE: records request", "Precedence: bulk\r\n", mail.AutoBulk},
		{"precedence auto_reply", "RE: records request", "Precedence: auto_reply\r\n", mail.AutoReply},
		{"x-autoreply", "RE: records request", "X-Autoreply: yes\r\n", mail.AutoReply},
	}
	for _, k := range cases {
		_, res := e.deliver(autoReply(token, k.subject, k.headers, clarify))
		if res.CaseID != c || res.RunID != 0 || res.AutoKind != k.kind {
			t.Fatalf("%s: %+v", k.name, res)
		}
	}
	bounce := "From: MAILER-DAEMON@mx.springfield.gov\r\nTo: requests+" + token + "@" + testDomain + "\r\nSubject: Undelivered Mail Returned to Sender\r\n" +
		"Message-ID: " + msgID() + "\r\nContent-Type: multipart/report; report-type=delivery-status; boundary=\"b\"\r\n\r\n" +
		"--b\r\nContent-Type: text/plain\r\n\r\nDelivery failed.\r\n--b\r\nContent-Type: message/delivery-status\r\n\r\nStatus: 5.1.1\r\n--b--\r\n"
	_, res := e.deliver([]byte(bounce))
	if res.CaseID != c || res.RunID != 0 || res.AutoKind != mail.AutoBounce {
		t.Fatalf("bounce %+v", res)
	}
	if n := e.count(`SELECT count(*) FROM escalations WHERE case_id = $1 AND escalation_key LIKE 'bounce:%'`, c); n != 1 {
		t.Fatalf("bounce escalations %d", n)
	}
	if n := e.count(`SELECT count(*) FROM runs`); n != 0 {
		t.Fatalf("automatic mail started %d runs", n)
	}
	if n := e.count(`SELECT count(*) FROM activity_log WHERE case_id = $1 AND kind = 'message_received' AND detail->>'auto_kind' <> ''`, c); n != 6 {
		t.Fatalf("timeline shows %d automatic messages", n)
	}
	_, res = e.deliver(autoReply(token, "RE: records request", "Auto-Submitted: no\r\n", clarify))
	if res.RunID == 0 || res.AutoKind != mail.AutoNone {
		t.Fatalf("Auto-Submitted: no is a person: %+v", res)
	}
}

// nested builds a message nested depth multiparts deep.
func nested(token string, depth int) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "From: records@springfield.gov\r\nTo: requests+%s@%s\r\nSubject: RE: records\r\nMessage-ID: %s\r\n", token, testDomain, msgID())
	for i := range depth {
		fmt.Fprintf(&b, "Content-Type: multipart/mixed; boundary=\"b%d\"\r\n\r\n--b%d\r\n", i, i)
	}
	b.WriteString("Content-Type: text/plain\r\n\r\nThe records are attached.\r\n")
	for i := depth - 1; i >= 0; i-- {
		fmt.Fprintf(&b, "--b%d--\r\n", i)
	}
	return []byte(b.String())
}

// TestInboundUnparseableMailIsKeptAndEscalated (issue 10 item 3): a nested
// MIME bomb and a non-message are accepted (202), kept, marked failed and
// escalated on their case (or orphaned with the reason), never a 500.
func TestInboundUnparseableMailIsKeptAndEscalated(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, token := e.newCase()
	start := time.Now()
	_, res := e.deliver(nested(token, 1000))
	if time.Since(start) > 5*time.Second {
		t.Fatalf("a 1,000-level bomb took %s", time.Since(start))
	}
	m, _ := e.st.GetMessage(t.Context(), res.MessageID)
	if res.Status != store.RawFailed || res.CaseID != c || res.RunID != 0 || m.ParseStatus != store.ParseStatusFailed ||
		!strings.Contains(m.ParseError, "nested deeper") {
		t.Fatalf("bomb %+v %+v", res, m)
	}
	if n := e.count(`SELECT count(*) FROM escalations WHERE case_id = $1 AND escalation_key = $2`, c, "inbound:"+itoa(res.MessageID)); n != 1 {
		t.Fatal("no escalation for the unparseable message")
	}
	_, ok := e.deliver(nested(token, 5))
	if ok.Status != store.RawParsed || ok.RunID == 0 {
		t.Fatalf("a 5-level message %+v", ok)
	}
	_, junk := e.deliver([]byte("this is not an email"))
	if junk.Status != store.RawFailed || junk.CaseID != 0 || junk.Match != inbound.MatchOrphan {
		t.Fatalf("junk %+v", junk)
	}
}

// TestInboundOversizeIsStoredAndFlagged: over MESSAGE_MAX_BYTES the message
// is stored, flagged, attached by its headers and escalated, not parsed.
func TestInboundOversizeIsStoredAndFlagged(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *Config) { c.MessageMaxBytes = 8 << 10 })
	e.proc.Limits.MaxBytes = 8 << 10
	c, token := e.newCase()
	rc, res := e.deliver(rawEmail("records@springfield.gov", "requests+"+token+"@"+testDomain, msgID(), "", strings.Repeat("records ", 2000)))
	m, _ := e.st.GetMessage(t.Context(), res.MessageID)
	if !rc.Oversize || res.Status != store.RawFailed || res.CaseID != c || m.ParseStatus != store.ParseStatusOversize || m.RawSize != int(rc.SizeBytes) {
		t.Fatalf("oversize %+v %+v %+v", rc, res, m)
	}
	if n := e.count(`SELECT count(*) FROM escalations WHERE case_id = $1`, c); n != 1 {
		t.Fatal("oversize message not escalated")
	}
}

func TestInboundRawRejections(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *Config) { c.InboundMaxBytes = 64 << 10 })
	_, token := e.newCase()
	good := rawEmail("clerk@springfield.gov", "requests+"+token+"@"+testDomain, msgID(), "", "body")
	e.postRaw(good, "wrong-secret", time.Now()).expect(401, "bad_signature")
	e.postRaw(good, testRawSecret, time.Now().Add(-time.Hour)).expect(401, "stale_webhook")
	unsigned, _ := http.NewRequest("POST", e.ts.URL+"/v1/inbound/email", bytes.NewReader(good))
	unsigned.Header.Set("Content-Type", "message/rfc822")
	e.send(unsigned).expect(401, "bad_signature")
	big := rawEmail("clerk@springfield.gov", "requests+"+token+"@"+testDomain, msgID(), "", strings.Repeat("x", 70<<10))
	e.postRaw(big, testRawSecret, time.Now()).expect(413, "body_too_large")
	chunked, _ := http.NewRequest("POST", e.ts.URL+"/v1/inbound/email", io.MultiReader(bytes.NewReader(big)))
	chunked.Header.Set("Content-Type", "message/rfc822")
	tsh, sig := mail.SignRaw([]byte(testRawSecret), time.Now(), big)
	chunked.Header.Set(mail.HeaderTimestamp, tsh)
	chunked.Header.Set(mail.HeaderSignature, sig)
	e.send(chunked).expect(413, "body_too_large")
	e.req("POST", "/v1/inbound/email", "", `{"raw":"x"}`).expect(415, "unsupported_media_type")
	if n := e.rows(); n != 0 {
		t.Fatalf("rejected deliveries stored %d rows", n)
	}
	e.postRaw(good, testRawSecret, time.Now()).expect(202, "")
}

func TestInboundMailgunForm(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, token := e.newCase()
	raw := rawEmail("records@springfield.gov", "requests+"+token+"@"+testDomain, msgID(), "", "Records ready.")
	fields := mailgunFields(testMailgunKey, "tok-"+storetest.Suffix(8), time.Now(), raw)
	var rc inboundReceipt
	e.postMailgun(fields, false).expect(202, "").decode(&rc)
	if res := e.parse(rc.RawMessageID); res.CaseID != c || res.RunID == 0 {
		t.Fatalf("mailgun %+v", res)
	}
	before := e.rows()
	e.postMailgun(fields, false).expect(409, "webhook_replayed")
	e.postMailgun(fields, true).expect(409, "webhook_replayed")
	if after := e.rows(); after != before {
		t.Fatalf("replayed token stored %d rows", after-before)
	}
	// Mailgun redelivers with a fresh token, urlencoded this time: the same
	// bytes, deduplicated.
	e.postMailgun(mailgunFields(testMailgunKey, "tok-"+storetest.Suffix(8), time.Now(), raw), true).expect(200, "")
	if n := e.count(`SELECT count(*) FROM messages`); n != 1 {
		t.Fatalf("%d messages", n)
	}
}

// TestInboundMailgunTokenIsSpentWhateverTheParse: a delivery whose body
// does not parse is still stored, and its token cannot be replayed (issue
// 10 item 3).
func TestInboundMailgunTokenIsSpentWhateverTheParse(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	fields := mailgunFields(testMailgunKey, "tok-"+storetest.Suffix(8), time.Now(), []byte("not mail at all"))
	var rc inboundReceipt
	e.postMailgun(fields, true).expect(202, "").decode(&rc)
	if res := e.parse(rc.RawMessageID); res.Status != store.RawFailed {
		t.Fatalf("parse %+v", res)
	}
	e.postMailgun(fields, true).expect(409, "webhook_replayed")
	e.postMailgun(fields, false).expect(409, "webhook_replayed")
}

func TestInboundMailgunRejections(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *Config) { c.InboundMaxBytes = 64 << 10 })
	_, token := e.newCase()
	raw := rawEmail("clerk@springfield.gov", "requests+"+token+"@"+testDomain, msgID(), "", "x")
	e.postMailgun(mailgunFields("wrong-key", "t1", time.Now(), raw), false).expect(401, "bad_signature")
	e.postMailgun(mailgunFields(testMailgunKey, "t2", time.Now().Add(-time.Hour), raw), false).expect(401, "stale_webhook")
	noMIME := mailgunFields(testMailgunKey, "t3", time.Now(), raw)
	delete(noMIME, "body-mime")
	e.postMailgun(noMIME, false).expect(400, "malformed_message")
	e.postMailgun(mailgunFields(testMailgunKey, "t4", time.Now(), []byte(strings.Repeat("y", 70<<10))), false).expect(413, "body_too_large")
	e.postMailgun(mailgunFields(testMailgunKey, "t5", time.Now(), []byte(strings.Repeat("y", 70<<10))), true).expect(413, "body_too_large")
	if n := e.rows(); n != 0 {
		t.Fatalf("rejected deliveries stored %d rows", n)
	}
	// A rejected delivery did not burn its token.
	e.postMailgun(mailgunFields(testMailgunKey, "t5", time.Now(), raw), true).expect(202, "")
}

// TestInboundParseSurvivesALostTask: Redis lost the parse task after the
// webhook answered; the reaper finds the raw message still "received" and
// dispatches it again.
func TestInboundParseSurvivesALostTask(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, token := e.newCase()
	var rc inboundReceipt
	e.postRaw(rawEmail("records@springfield.gov", "requests+"+token+"@"+testDomain, msgID(), "", "Ack."), testRawSecret, time.Now()).
		expect(202, "").decode(&rc)
	insp := newInspector(e)
	if err := insp.DeleteTask(e.queues.Agent, rc.TaskID); err != nil {
		t.Fatalf("delete task: %v", err)
	}
	reaper := &jobs.Reaper{Store: e.st, Inspector: insp, Dispatch: e.dispatch, Queues: e.queues, Log: e.log, Grace: -time.Second}
	res, err := reaper.Reap(context.Background())
	if err != nil || res.Parses != 1 {
		t.Fatalf("reap %+v %v", res, err)
	}
	// A re-dispatch (dispatch generation 1) goes to the recovery queue, ahead of the backlog.
	if _, err := insp.GetTaskInfo(e.queues.Recovery, jobs.InboundParseTaskID(rc.RawMessageID, 1)); err != nil {
		t.Fatalf("parse not re-dispatched: %v", err)
	}
	e.parse(rc.RawMessageID)
	if res, err := reaper.Reap(context.Background()); err != nil || res.Parses != 0 {
		t.Fatalf("parsed message reaped again: %+v %v", res, err)
	}
}

func newInspector(e *env) *asynq.Inspector {
	insp := asynq.NewInspector(e.redis)
	e.t.Cleanup(func() { _ = insp.Close() })
	return insp
}
