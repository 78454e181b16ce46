// Package mail owns email in and out: parsing inbound RFC 5322 messages and
// provider webhooks, and sending outbound messages through SMTP or an .eml
// file sink (DESIGN.md "Email").
package mail

import (
	"context"
	"time"
)

// Outbound is one message to send. MessageID is deterministic (derived from
// the execution key, see IDs.MessageID) so a resend after a crash carries the
// same Message-ID and can be deduplicated downstream.
type Outbound struct {
	From       string            // RFC 5322 address, e.g. "foiaflow <requests@example.org>"
	To         []string          // agency addresses
	ReplyTo    string            // per-case reply address requests+<token>@domain
	Subject    string            //
	Text       string            // text/plain body
	HTML       string            // sanitized text/html body, may be empty
	MessageID  string            // "<...@domain>" with angle brackets
	InReplyTo  string            // agency's last Message-ID, may be empty
	References []string          // thread Message-IDs, oldest first
	Headers    map[string]string // extra headers, e.g. Auto-Submitted
	Date       time.Time         // UTC
}

// Sender hands a message to a transport. It returns an error when the
// message was not accepted; a nil error means the transport accepted it.
type Sender interface {
	Send(ctx context.Context, m Outbound) error
}
