package mail

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/textproto"
	"sort"
	"strings"

	gomail "github.com/wneessen/go-mail"
)

// reservedHeaders are set from Outbound's own fields and may not appear in
// Outbound.Headers.
var reservedHeaders = map[string]bool{
	"From": true, "To": true, "Cc": true, "Bcc": true, "Reply-To": true,
	"Sender": true, "Subject": true, "Message-Id": true, "In-Reply-To": true,
	"References": true, "Date": true, "Mime-Version": true, "Content-Type": true,
	"Content-Transfer-Encoding": true,
}

// BuildMessage renders m as RFC 5322 bytes (CRLF line endings) with go-mail:
// Message-ID exactly m.MessageID, In-Reply-To, References (space-separated,
// folded), Reply-To, Date (m.Date, rendered in UTC), text/plain body and,
// when m.HTML is set, a multipart/alternative with the HTML part, plus
// m.Headers (sorted). The output is deterministic: the same Outbound yields
// the same bytes (the MIME boundary derives from the Message-ID).
//
// Errors wrap ErrInvalidOutbound: missing From, To, MessageID or Date, an
// unparseable address, a malformed Message-ID, a CR or LF in a header
// value, or an extra header that is reserved or not a valid field name.
func BuildMessage(m Outbound) ([]byte, error) {
	msg, err := newMsg(m)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if _, err := msg.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("render %s: %w", m.MessageID, err)
	}
	return buf.Bytes(), nil
}

// newMsg validates m and converts it to a go-mail message.
func newMsg(m Outbound) (*gomail.Msg, error) {
	if err := validateOutbound(m); err != nil {
		return nil, err
	}
	sum := sha256.Sum256([]byte(m.MessageID))
	msg := gomail.NewMsg(gomail.WithNoDefaultUserAgent(), gomail.WithBoundary("foiaflow-"+hex.EncodeToString(sum[:12])))
	if err := msg.From(m.From); err != nil {
		return nil, fmt.Errorf("%w: From: %w", ErrInvalidOutbound, err)
	}
	if err := msg.To(m.To...); err != nil {
		return nil, fmt.Errorf("%w: To: %w", ErrInvalidOutbound, err)
	}
	if m.ReplyTo != "" {
		if err := msg.ReplyTo(m.ReplyTo); err != nil {
			return nil, fmt.Errorf("%w: Reply-To: %w", ErrInvalidOutbound, err)
		}
	}
	msg.Subject(m.Subject)
	msg.SetMessageIDWithValue(strings.Trim(m.MessageID, "<>"))
	if m.InReplyTo != "" {
		msg.SetGenHeader(gomail.HeaderInReplyTo, NormalizeMessageID(m.InReplyTo))
	}
	if len(m.References) > 0 {
		refs := make([]string, 0, len(m.References))
		for _, r := range m.References {
			if id := NormalizeMessageID(r); id != "" {
				refs = append(refs, id)
			}
		}
		msg.SetGenHeader(gomail.HeaderReferences, strings.Join(refs, " "))
	}
	msg.SetDateWithValue(m.Date.UTC())
	keys := make([]string, 0, len(m.Headers))
	for k := range m.Headers {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		msg.SetGenHeader(gomail.Header(textproto.CanonicalMIMEHeaderKey(k)), m.Headers[k])
	}
	msg.SetBodyString(gomail.TypeTextPlain, m.Text)
	if m.HTML != "" {
		msg.AddAlternativeString(gomail.TypeTextHTML, m.HTML)
	}
	return msg, nil
}

func validateOutbound(m Outbound) error {
	switch {
	case strings.TrimSpace(m.From) == "":
		return fmt.Errorf("%w: no From", ErrInvalidOutbound)
	case len(m.To) == 0:
		return fmt.Errorf("%w: no To", ErrInvalidOutbound)
	case m.Date.IsZero():
		return fmt.Errorf("%w: no Date", ErrInvalidOutbound)
	case !validMessageID(m.MessageID):
		return fmt.Errorf("%w: Message-ID %q is not <local@domain>", ErrInvalidOutbound, m.MessageID)
	}
	if err := CheckSubject(m.Subject); err != nil {
		return err
	}
	values := append([]string{m.From, m.ReplyTo, m.Subject, m.InReplyTo}, m.To...)
	values = append(values, m.References...)
	for k, v := range m.Headers {
		if !validFieldName(k) || reservedHeaders[textproto.CanonicalMIMEHeaderKey(k)] {
			return fmt.Errorf("%w: header %q is reserved or invalid", ErrInvalidOutbound, k)
		}
		values = append(values, v)
	}
	for _, v := range values {
		if strings.ContainsAny(v, "\r\n") {
			return fmt.Errorf("%w: CR or LF in header value %q", ErrInvalidOutbound, v)
		}
	}
	return nil
}

func validMessageID(id string) bool {
	if len(id) < 5 || id[0] != '<' || id[len(id)-1] != '>' {
		return false
	}
	inner := id[1 : len(id)-1]
	local, domain, ok := strings.Cut(inner, "@")
	return ok && local != "" && domain != "" && !strings.ContainsAny(inner, "<> \t\r\n")
}

// validFieldName reports whether k is an RFC 5322 field name (printable
// ASCII except colon and space).
func validFieldName(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		if c := k[i]; c <= ' ' || c >= 127 || c == ':' {
			return false
		}
	}
	return true
}
