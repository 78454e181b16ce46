package api

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/foiaflow/foiaflow/inbound"
	"github.com/foiaflow/foiaflow/store"
	"github.com/foiaflow/foiaflow/store/storetest"
)

// TestInboundComputedMessageIDsProveNothing (issue 10 item 1, replayed by
// make attack): the In-Reply-To an outsider computes from a case number —
// by the old scheme (SHA-256 of the initial request's execution key) or in
// the current format under a guessed secret (the public development one,
// none) — matches nothing, even from the agency's own address; the
// Message-ID we really sent does.
func TestInboundComputedMessageIDsProveNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, _ := e.newCase()
	key := fmt.Sprintf("exec:%d:initial:%d:SEND_INITIAL_REQUEST:1:v1", c, c)
	sent := testIDs.MessageID(key)
	e.db.Exec(t, `INSERT INTO messages (case_id, direction, message_id, message_id_hash) VALUES ($1, 'outbound', $2, $3)`,
		c, sent, store.MessageIDHash(sent))
	sum := sha256.Sum256([]byte(key))
	guesses := []string{"<" + hex.EncodeToString(sum[:])[:32] + "@" + testDomain + ">"}
	for _, secret := range []string{"foiaflow-development-mail-id-secret-do-not-use", ""} {
		m := hmac.New(sha256.New, []byte(secret))
		m.Write([]byte("message-id\x00" + key))
		guesses = append(guesses, "<"+hex.EncodeToString(m.Sum(nil)[:16])+"@"+testDomain+">")
	}
	for _, g := range guesses {
		if g == sent {
			t.Fatalf("the guess %s is the Message-ID we sent", g)
		}
		_, res := e.deliver(rawEmail("records@springfield.gov", "requests@"+testDomain, msgID(), g, "The fee is now $45.00."))
		if res.CaseID != 0 || res.RunID != 0 || res.Match != inbound.MatchOrphan {
			t.Fatalf("computed In-Reply-To %s attached: %+v", g, res)
		}
	}
	_, res := e.deliver(rawEmail("records@springfield.gov", "requests@"+testDomain, msgID(), sent, "Acknowledged."))
	if res.CaseID != c || res.Match != inbound.MatchInReplyTo || res.RunID == 0 {
		t.Fatalf("the real Message-ID did not match: %+v", res)
	}
}

// TestInboundNULBytesAreStored (make attack): NUL bytes in the subject, a
// header and the body neither fail the parse's transaction nor lose the
// reply: it is stored on its case and starts its run.
func TestInboundNULBytesAreStored(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, token := e.newCase()
	raw := fmt.Sprintf("From: records@springfield.gov\r\nTo: requests+%s@%s\r\nSubject: records\x00request\r\nX-Nul: a\x00b\r\n"+
		"Message-ID: %s\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nWe have \x00 located records.%s\r\n",
		token, testDomain, msgID(), strings.Repeat("\x00", 4096))
	_, res := e.deliver([]byte(raw))
	if res.CaseID != c || res.MessageID == 0 || (res.Status != store.RawParsed && res.Status != store.RawFailed) {
		t.Fatalf("NUL-laden reply %+v", res)
	}
	if n := e.count(`SELECT count(*) FROM raw_messages WHERE status = 'received'`); n != 0 {
		t.Fatalf("%d raw messages left unprocessed", n)
	}
}

// TestInboundMailgunTokenReplayedWithOtherBytes (issue 10 item 3): the
// Mailgun signature covers only timestamp and token, so a replay inside
// the window can carry any body; the spent token refuses it and nothing of
// it is stored.
func TestInboundMailgunTokenReplayedWithOtherBytes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, token := e.newCase()
	fields := mailgunFields(testMailgunKey, "tok-"+storetest.Suffix(8), time.Now(), []byte("not mail at all"))
	e.postMailgun(fields, true).expect(202, "")
	before := e.rows()
	forged := maps.Clone(fields)
	forged["body-mime"] = string(rawEmail("records@springfield.gov", "requests+"+token+"@"+testDomain, msgID(), "",
		"The fee is now $45.00."))
	e.postMailgun(forged, true).expect(409, "webhook_replayed")
	e.postMailgun(forged, false).expect(409, "webhook_replayed")
	if after := e.rows(); after != before {
		t.Fatalf("the replayed token stored %d rows", after-before)
	}
}
