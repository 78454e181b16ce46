package api

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/foiaflow/foiaflow/jobs"
	"github.com/foiaflow/foiaflow/store/storetest"
)

func msgID() string { return "<" + storetest.Suffix(8) + "@springfield.gov>" }

// rows counts what ingestion may write.
func (e *env) rows() int64 {
	return e.count(`SELECT (SELECT count(*) FROM messages) + (SELECT count(*) FROM runs) + (SELECT count(*) FROM outbox)
		+ (SELECT count(*) FROM webhook_tokens)`)
}

func TestInboundRawMatchedByReplyTokenStartsARun(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, token := e.newCase()
	pending := e.pendingProposal(c, 1)
	raw := rawEmail("Records Unit <clerk@elsewhere.org>", "requests+"+token+"@"+testDomain, msgID(), "", "Your fee is $25.")
	var res inboundResult
	e.postRaw(raw, testRawSecret, time.Now()).expect(http.StatusAccepted, "").decode(&res)
	if res.CaseID == nil || *res.CaseID != c || res.Match != matchReplyToken || res.RunID == nil || res.Duplicate {
		t.Fatalf("result %+v", res)
	}
	m, err := e.st.GetMessage(t.Context(), res.MessageID)
	if err != nil || m.MatchMethod != matchReplyToken || m.From != "clerk@elsewhere.org" || !strings.Contains(m.Text, "$25") {
		t.Fatalf("message %+v: %v", m, err)
	}
	if k := e.db.String(t, `SELECT trigger || ' ' || trigger_key FROM runs WHERE id = $1`, *res.RunID); k != "agency_reply reply:"+itoa(res.MessageID) {
		t.Fatalf("run %s", k)
	}
	if row, err := e.st.OutboxByTaskID(t.Context(), jobs.StepTaskID(*res.RunID, 0, 0)); err != nil || row.DispatchedAt == nil {
		t.Fatalf("first step not dispatched: %+v %v", row, err)
	}
	if s := e.db.String(t, `SELECT status FROM proposals WHERE id = $1`, pending); s != "SUPERSEDED" {
		t.Fatalf("pending proposal is %s, want SUPERSEDED", s)
	}
	if s := e.db.String(t, `SELECT status FROM runs WHERE id = (SELECT run_id FROM proposals WHERE id = $1)`, pending); s != "superseded" {
		t.Fatalf("parked run is %s", s)
	}
}

func TestInboundRedeliveryStoresNothingNew(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, token := e.newCase()
	raw := rawEmail("clerk@springfield.gov", "requests+"+token+"@"+testDomain, msgID(), "", "Acknowledged.")
	var first, again inboundResult
	e.postRaw(raw, testRawSecret, time.Now()).expect(http.StatusAccepted, "").decode(&first)
	before := e.rows()
	e.postRaw(raw, testRawSecret, time.Now()).expect(http.StatusOK, "").decode(&again)
	if !again.Duplicate || again.MessageID != first.MessageID || *again.CaseID != *first.CaseID || again.RunID != nil {
		t.Fatalf("redelivery %+v (first %+v)", again, first)
	}
	if after := e.rows(); after != before {
		t.Fatalf("redelivery stored %d new rows", after-before)
	}
}

func TestInboundMatchByThreadAndSender(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c1, _ := e.newCase()
	c2, _ := e.newCase()
	sent := "<sent-" + storetest.Suffix(4) + "@" + testDomain + ">"
	e.db.Exec(t, `INSERT INTO messages (case_id, direction, message_id) VALUES ($1, 'outbound', $2)`, c1, sent)
	var res inboundResult
	e.postRaw(rawEmail("someone@other.org", "records@"+testDomain, msgID(), sent, "thread"), testRawSecret, time.Now()).
		expect(202, "").decode(&res)
	if res.Match != matchInReplyTo || *res.CaseID != c1 {
		t.Fatalf("by thread %+v", res)
	}
	e.postRaw(rawEmail("Records <RECORDS@springfield.gov>", "records@"+testDomain, msgID(), "", "sender"), testRawSecret, time.Now()).
		expect(202, "").decode(&res)
	if res.Match != matchSender || *res.CaseID != c2 { // newest open case of the agency
		t.Fatalf("by sender %+v", res)
	}
}

func TestInboundUnmatchedBecomesOrphan(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.newCase()
	var res inboundResult
	e.postRaw(rawEmail("spam@nowhere.example", "requests+unknowntoken@"+testDomain, msgID(), "", "hello"), testRawSecret, time.Now()).
		expect(202, "").decode(&res)
	if res.CaseID != nil || res.RunID != nil || res.Match != matchOrphan {
		t.Fatalf("orphan %+v", res)
	}
	if n := e.count(`SELECT count(*) FROM messages WHERE case_id IS NULL`); n != 1 {
		t.Fatalf("%d orphans", n)
	}
	if n := e.count(`SELECT count(*) FROM runs`); n != 0 {
		t.Fatalf("orphan started %d runs", n)
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
	e.postRaw([]byte("this is not an email"), testRawSecret, time.Now()).expect(400, "malformed_message")
	e.postRaw([]byte("   "), testRawSecret, time.Now()).expect(400, "malformed_message")
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
	raw := rawEmail("clerk@springfield.gov", "requests+"+token+"@"+testDomain, msgID(), "", "Records ready.")
	fields := mailgunFields(testMailgunKey, "tok-"+storetest.Suffix(8), time.Now(), raw)
	var res inboundResult
	e.postMailgun(fields, false).expect(202, "").decode(&res)
	if *res.CaseID != c || res.RunID == nil {
		t.Fatalf("mailgun %+v", res)
	}
	before := e.rows()
	e.postMailgun(fields, false).expect(409, "webhook_replayed")
	e.postMailgun(fields, true).expect(409, "webhook_replayed")
	if after := e.rows(); after != before {
		t.Fatalf("replayed token stored %d rows", after-before)
	}
	// Mailgun redelivers a message with a fresh token: deduplicated by Message-ID.
	e.postMailgun(mailgunFields(testMailgunKey, "tok-"+storetest.Suffix(8), time.Now(), raw), true).expect(200, "")
	if n := e.count(`SELECT count(*) FROM messages`); n != 1 {
		t.Fatalf("%d messages", n)
	}
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
	e.postMailgun(mailgunFields(testMailgunKey, "t5", time.Now(), []byte("not mail")), true).expect(400, "malformed_message")
	if n := e.rows(); n != 0 {
		t.Fatalf("rejected deliveries stored %d rows", n)
	}
	// A rejected delivery did not burn its token.
	e.postMailgun(mailgunFields(testMailgunKey, "t5", time.Now(), raw), true).expect(202, "")
}
