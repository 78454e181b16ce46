package main

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/foiaflow/foiaflow/cmd/internal/fleet"
	"github.com/foiaflow/foiaflow/mail"
)

// Reply texts the offline analyzer reads with high confidence.
const (
	feeText = "Dear requester,\n\nWe have located records responsive to your request. The estimated cost to process " +
		"your request is $%d.00. Please confirm in writing that you agree to pay this fee before we proceed.\n\nSincerely,\nRecords Office"
	clarifyText = "Dear requester,\n\nWe received your request but it is unclear which records you want. Please clarify " +
		"the date range of your request so that we can search for responsive records.\n\nSincerely,\nRecords Office"
)

// letter is one email the attack posts.
type letter struct {
	from, to, subject, text string
	inReplyTo               string
	headers                 map[string]string
	tag                     string // Message-ID local part prefix (forged-, auto-, …)
}

// build renders l as RFC 5322 with a fresh Message-ID <tag-…@domain of from>.
func (l letter) build() ([]byte, string, error) {
	id := fmt.Sprintf("<%s-%s@%s>", l.tag, fleet.RandHex(6), domainOf(l.from))
	var refs []string
	if l.inReplyTo != "" {
		refs = []string{l.inReplyTo}
	}
	raw, err := mail.BuildMessage(mail.Outbound{From: l.from, To: []string{l.to}, Subject: l.subject, Text: l.text,
		MessageID: id, InReplyTo: l.inReplyTo, References: refs, Headers: l.headers, Date: time.Now().UTC()})
	return raw, id, err
}

func domainOf(addr string) string { return addr[strings.LastIndexByte(addr, '@')+1:] }

// oldSchemeMessageID is the Message-ID foiaflow gave a case's initial
// request before issue 10: the first 32 hex digits of SHA-256 of its
// execution key, at our mail domain. Anyone who knows a case number can
// compute it.
func oldSchemeMessageID(caseID int64, domain string) string {
	key := fmt.Sprintf("exec:%d:initial:%d:SEND_INITIAL_REQUEST:1:v1", caseID, caseID)
	sum := sha256.Sum256([]byte(key))
	return "<" + hex.EncodeToString(sum[:])[:32] + "@" + domain + ">"
}

// guessedMessageID is the current format (HMAC-SHA-256 of purpose NUL
// execution key, 128 bits) under a secret the attacker guesses: the
// public development secret, or none.
func guessedMessageID(caseID int64, domain, secret string) string {
	key := fmt.Sprintf("exec:%d:initial:%d:SEND_INITIAL_REQUEST:1:v1", caseID, caseID)
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte("message-id\x00" + key))
	return "<" + hex.EncodeToString(m.Sum(nil)[:16]) + "@" + domain + ">"
}

// header writes the top-level headers of a hand-built message.
func header(b *bytes.Buffer, from, to, subject, id, contentType string) {
	fmt.Fprintf(b, "From: %s\r\nTo: %s\r\nSubject: %s\r\nDate: %s\r\nMessage-ID: %s\r\nMIME-Version: 1.0\r\nContent-Type: %s\r\n\r\n",
		from, to, subject, time.Now().UTC().Format(time.RFC1123Z), id, contentType)
}

// nestedBomb is multipart nested depth levels deep around a text part of
// pad bytes.
func nestedBomb(from, to string, depth, pad int) []byte {
	var b bytes.Buffer
	header(&b, from, to, "RE: records (nested)", fmt.Sprintf("<bomb-nested-%s@%s>", fleet.RandHex(6), domainOf(from)),
		`multipart/mixed; boundary="b0"`)
	for i := range depth {
		fmt.Fprintf(&b, "--b%d\r\nContent-Type: multipart/mixed; boundary=\"b%d\"\r\n\r\n", i, i+1)
	}
	fmt.Fprintf(&b, "--b%d\r\nContent-Type: text/plain\r\n\r\n%s\r\n--b%d--\r\n", depth, strings.Repeat("a", pad), depth)
	for i := depth - 1; i >= 0; i-- {
		fmt.Fprintf(&b, "--b%d--\r\n", i)
	}
	return b.Bytes()
}

// manyParts is one multipart with n small parts.
func manyParts(from, to string, n int) []byte {
	var b bytes.Buffer
	header(&b, from, to, "RE: records (parts)", fmt.Sprintf("<bomb-parts-%s@%s>", fleet.RandHex(6), domainOf(from)),
		`multipart/mixed; boundary="p"`)
	for i := range n {
		fmt.Fprintf(&b, "--p\r\nContent-Type: text/plain\r\n\r\npart %d\r\n", i)
	}
	b.WriteString("--p--\r\n")
	return b.Bytes()
}

// longMessageID is a reply whose Message-ID has 3,000 characters.
func longMessageID(from, to string) []byte {
	var b bytes.Buffer
	header(&b, from, to, "RE: records (long id)", "<"+strings.Repeat("x", 2990)+fleet.RandHex(3)+"@"+domainOf(from)+">",
		"text/plain; charset=utf-8")
	b.WriteString(clarifyText + "\r\n")
	return b.Bytes()
}

// nulLaden carries NUL bytes in its subject, a header and its body.
func nulLaden(from, to string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "From: %s\r\nTo: %s\r\nSubject: records\x00request\r\nX-Nul: a\x00b\r\nDate: %s\r\nMessage-ID: <nul-%s@%s>\r\n"+
		"MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n", from, to,
		time.Now().UTC().Format(time.RFC1123Z), fleet.RandHex(6), domainOf(from))
	b.WriteString("We have \x00 located \x00\x00 records.\r\n")
	b.Write(bytes.Repeat([]byte{0}, 4096))
	b.WriteString("\r\n")
	return b.Bytes()
}

// dsnBounce is a delivery status notification (RFC 3464) for message id.
func dsnBounce(from, to, original string) []byte {
	var b bytes.Buffer
	header(&b, from, to, "Undelivered Mail Returned to Sender", fmt.Sprintf("<auto-dsn-%s@%s>", fleet.RandHex(6), domainOf(from)),
		`multipart/report; report-type=delivery-status; boundary="r"`)
	fmt.Fprintf(&b, "--r\r\nContent-Type: text/plain\r\n\r\nThis is the mail system. Your message could not be delivered. "+
		"Please clarify the date range of your request.\r\n--r\r\nContent-Type: message/delivery-status\r\n\r\n"+
		"Reporting-MTA: dns; mx.%s\r\n\r\nFinal-Recipient: rfc822; nobody@%s\r\nAction: failed\r\nStatus: 5.1.1\r\n"+
		"--r\r\nContent-Type: text/rfc822-headers\r\n\r\nMessage-ID: %s\r\n--r--\r\n", domainOf(from), domainOf(from), original)
	return b.Bytes()
}

// bigMessage is about size bytes: a text part and a base64 attachment of
// random bytes (distinct for every call).
func bigMessage(from, to string, size int) []byte {
	var b bytes.Buffer
	header(&b, from, to, "RE: records (large)", fmt.Sprintf("<big-%s@%s>", fleet.RandHex(6), domainOf(from)),
		`multipart/mixed; boundary="g"`)
	b.WriteString("--g\r\nContent-Type: text/plain\r\n\r\nThe responsive records are attached.\r\n")
	b.WriteString("--g\r\nContent-Type: application/pdf; name=\"records.pdf\"\r\nContent-Disposition: attachment; filename=\"records.pdf\"\r\n" +
		"Content-Transfer-Encoding: base64\r\n\r\n")
	n := (size - b.Len() - 16) / 78 * 57 // 57 bytes per 76-character base64 line
	content := make([]byte, max(n, 57))
	_, _ = rand.Read(content)
	for off := 0; off < len(content); off += 57 {
		b.WriteString(base64.StdEncoding.EncodeToString(content[off:min(off+57, len(content))]))
		b.WriteString("\r\n")
	}
	b.WriteString("--g--\r\n")
	return b.Bytes()
}
