package mail

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/textproto"
	"strings"

	"github.com/jhillyerd/enmime/v2"
)

// ParseHeaders reads only the top-level header section of raw (at most
// l.MaxHeaderBytes of it), for a message that ParseBounded refused or
// could not parse: its sender, recipients, subject and thread ids are
// still enough to attach it to its case and show it to a human. The body
// is not read. Missing pieces stay empty; a missing Message-ID is
// synthesized as in ParseMIME. It never fails: the worst input gives an
// Inbound with only the synthetic Message-ID.
func ParseHeaders(raw []byte, l Limits) Inbound {
	l = l.withDefaults()
	head := raw[:min(len(raw), l.MaxHeaderBytes)]
	if end := headerEnd(head); end >= 0 {
		head = head[:end+2]
	}
	h, _ := textproto.NewReader(bufio.NewReader(bytes.NewReader(append(append([]byte{}, head...), "\r\n\r\n"...)))).ReadMIMEHeader()
	get := func(k string) string { return storable(enmime.DecodeRFC2047(strings.TrimSpace(h.Get(k)))) }
	in := Inbound{
		InReplyTo:   NormalizeMessageID(storable(h.Get("In-Reply-To"))),
		References:  ParseReferences(storable(strings.Join(h.Values("References"), " "))),
		To:          headerAddresses(h.Values("To")),
		Cc:          headerAddresses(h.Values("Cc")),
		DeliveredTo: headerAddresses(h.Values("Delivered-To")),
		Subject:     get("Subject"),
		Headers:     map[string]string{},
		SizeBytes:   int64(len(raw)),
	}
	if from := headerAddresses(h.Values("From")); len(from) > 0 {
		in.From.Address = from[0]
	}
	for _, k := range selectedHeaders {
		if v := get(k); v != "" {
			in.Headers[textproto.CanonicalMIMEHeaderKey(k)] = v
		}
	}
	in.MessageID = NormalizeMessageID(storable(h.Get("Message-ID")))
	if in.MessageID == "" {
		sum := sha256.Sum256(raw)
		in.MessageID = "<" + hex.EncodeToString(sum[:]) + "@" + SyntheticMessageIDDomain + ">"
		in.MessageIDSynthesized = true
	}
	in.sanitize()
	return in
}

// Describe is a one-line summary of a parse error for logs and the
// messages.parse_error column (at most 500 bytes).
func Describe(err error) string {
	s := fmt.Sprint(err)
	if len(s) > 500 {
		s = s[:500]
	}
	return storable(s)
}
