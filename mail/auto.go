package mail

import (
	"regexp"
	"strings"
)

// AutoKind says that a message was sent by a machine, not a person (issue
// 10, "Loop safety"). Such mail is stored and shown on its case but never
// answered: answering an auto-reply is how mail loops start (RFC 3834 §2).
type AutoKind string

// Kinds of automatic mail, strongest evidence first.
const (
	AutoNone AutoKind = ""
	// AutoBounce: a delivery status notification (multipart/report;
	// report-type=delivery-status, a message/delivery-status part, or a
	// mailer-daemon sender with X-Failed-Recipients).
	AutoBounce AutoKind = "bounce"
	// AutoOutOfOffice: an absence notice (subject, or X-Autoreply with an
	// absence subject).
	AutoOutOfOffice AutoKind = "out_of_office"
	// AutoSubmitted: Auto-Submitted present with any value but "no"
	// (RFC 3834 §5).
	AutoSubmitted AutoKind = "auto_submitted"
	// AutoReply: X-Autoreply, X-Autorespond or Precedence: auto_reply.
	AutoReply AutoKind = "auto_reply"
	// AutoBulk: Precedence bulk, junk or list.
	AutoBulk AutoKind = "bulk"
)

// outOfOfficeRe matches the subject prefixes mail systems give absence
// notices ("Automatic reply: RE: …", "[Out of Office] …"). Only a prefix
// counts: a request's own subject may well contain "out of office".
var outOfOfficeRe = regexp.MustCompile(`(?i)^[\s\[(]*(out of (the )?office|automatic reply|auto[- ]?reply|auto[- ]?response|autoresponder|abwesenheit|absence notice|réponse automatique|respuesta automática)\b`)

// bounceSenderRe matches the local parts bounces come from.
var bounceSenderRe = regexp.MustCompile(`(?i)^(mailer-daemon|postmaster|mail-daemon|mailerdaemon)@`)

// Auto reports whether the message was sent automatically, and which kind.
// A bounce or out-of-office notice is named as such even when it also
// carries Auto-Submitted.
func (in Inbound) Auto() AutoKind {
	h := func(k string) string { return strings.ToLower(strings.TrimSpace(in.Headers[k])) }
	switch {
	case in.ContentType == "multipart/report" && in.ReportType == "delivery-status",
		in.hasPart("message/delivery-status"), in.hasPart("message/global-delivery-status"),
		bounceSenderRe.MatchString(in.From.Address) && (h("X-Failed-Recipients") != "" || strings.Contains(strings.ToLower(in.Subject), "undeliver") || strings.Contains(strings.ToLower(in.Subject), "delivery status")),
		in.ContentType == "multipart/report" && bounceSenderRe.MatchString(in.From.Address):
		return AutoBounce
	case outOfOfficeRe.MatchString(in.Subject):
		return AutoOutOfOffice
	}
	if v := h("Auto-Submitted"); v != "" && v != "no" && !strings.HasPrefix(v, "no ") && !strings.HasPrefix(v, "no;") {
		return AutoSubmitted
	}
	switch p := h("Precedence"); {
	case p == "auto_reply":
		return AutoReply
	case p == "bulk" || p == "junk" || p == "list":
		return AutoBulk
	}
	if h("X-Autoreply") != "" || h("X-Autorespond") != "" {
		return AutoReply
	}
	return AutoNone
}

func (in Inbound) hasPart(contentType string) bool {
	for _, a := range in.Attachments {
		if strings.EqualFold(a.ContentType, contentType) {
			return true
		}
	}
	return false
}
