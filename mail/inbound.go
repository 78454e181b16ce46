package mail

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"mime"
	"net/mail"
	"net/textproto"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jhillyerd/enmime/v2"

	"github.com/foiaflow/foiaflow/workflow"
)

// DefaultMaxMessageBytes is the size limit ParseMIME applies when the caller
// passes maxBytes <= 0 (25 MiB, a common provider limit).
const DefaultMaxMessageBytes int64 = 25 << 20

// SyntheticMessageIDDomain is the domain of Message-IDs synthesized for
// messages that arrive without one.
const SyntheticMessageIDDomain = "synthetic.foiaflow.invalid"

// selectedHeaders are kept in Inbound.Headers: they tell auto-replies and
// bounces apart and help match a reply to its case.
var selectedHeaders = []string{
	"Auto-Submitted", "Precedence", "X-Autoreply", "X-Autorespond",
	"X-Auto-Response-Suppress", "Reply-To", "Return-Path", "Sender",
	"List-Id", "X-Original-To", "X-Forwarded-To", "X-Failed-Recipients",
}

// Address is a parsed mailbox.
type Address struct {
	Name    string `json:"name,omitempty"`
	Address string `json:"address"` // as written; compare case-insensitively
}

// Inbound is one parsed inbound email (DESIGN.md "Email", In).
type Inbound struct {
	// MessageID is "<...>" with angle brackets. When the message has none, a
	// deterministic one is synthesized (see ParseMIME) and
	// MessageIDSynthesized is true.
	MessageID            string
	MessageIDSynthesized bool
	InReplyTo            string   // "<...>" or ""
	References           []string // "<...>" each, oldest first as sent
	From                 Address
	To                   []string // bare addresses
	Cc                   []string
	DeliveredTo          []string  // Delivered-To headers, bare addresses
	Subject              string    // RFC 2047-decoded
	Date                 time.Time // UTC; zero when missing or unparseable
	Text                 string    // text/plain, else converted from HTML; "\n" line ends
	HTML                 string    // "\n" line ends
	Attachments          []workflow.Attachment
	// Files are the attachments' bytes, in the order of Attachments (not
	// stored in Postgres: the message store keeps them by SHA-256).
	Files []File `json:"-"`
	// ContentType is the top-level media type, lowercase
	// ("multipart/report" for a delivery status notification).
	ContentType string
	// ReportType is the report-type parameter of a multipart/report
	// ("delivery-status" for a bounce).
	ReportType string
	// Headers holds selected headers (first value, RFC 2047-decoded), keyed
	// by canonical name: Auto-Submitted, Precedence, Reply-To, Return-Path,
	// List-Id, X-Original-To and a few more.
	Headers map[string]string
	// Warnings are recoverable MIME defects enmime reported.
	Warnings []string
	// SizeBytes is len(raw).
	SizeBytes int64
}

// Recipients returns To, Cc and Delivered-To together, for reply-address
// matching with TokenFromAddresses.
func (in Inbound) Recipients() []string {
	out := make([]string, 0, len(in.To)+len(in.Cc)+len(in.DeliveredTo))
	out = append(out, in.To...)
	out = append(out, in.Cc...)
	return append(out, in.DeliveredTo...)
}

// Reply converts the message to the analyzer's view; receivedAt is when
// foiaflow accepted it (UTC).
func (in Inbound) Reply(receivedAt time.Time) workflow.Reply {
	return workflow.Reply{
		MessageID:   in.MessageID,
		From:        in.From.Address,
		Subject:     in.Subject,
		Text:        in.Text,
		HTML:        in.HTML,
		Attachments: in.Attachments,
		ReceivedAt:  receivedAt.UTC(),
	}
}

// ParseMIME parses one raw RFC 5322 message with enmime.
//
// maxBytes <= 0 means DefaultMaxMessageBytes. Errors:
//   - ErrTooLarge when len(raw) > maxBytes;
//   - ErrMalformed when raw is empty, has no header section, cannot be
//     parsed by enmime, or has no parseable From address.
//
// A message without a Message-ID is not rejected (that would lose a real
// agency reply): its Message-ID is synthesized as
// "<sha256-hex-of-raw@synthetic.foiaflow.invalid>", so the same raw bytes
// delivered twice still deduplicate.
func ParseMIME(raw []byte, maxBytes int64) (Inbound, error) {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxMessageBytes
	}
	if int64(len(raw)) > maxBytes {
		return Inbound{}, fmt.Errorf("%w: message is %d bytes, limit %d", ErrTooLarge, len(raw), maxBytes)
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return Inbound{}, fmt.Errorf("%w: empty message", ErrMalformed)
	}
	env, err := enmime.NewParser(enmime.MaxStoredPartErrors(20)).ReadEnvelope(bytes.NewReader(raw))
	if err != nil {
		return Inbound{}, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	if env.Root == nil || len(env.Root.Header) == 0 {
		return Inbound{}, fmt.Errorf("%w: no header section", ErrMalformed)
	}
	from, err := firstAddress(env, "From")
	if err != nil {
		return Inbound{}, fmt.Errorf("%w: From: %w", ErrMalformed, err)
	}
	in := Inbound{
		From:        from,
		InReplyTo:   NormalizeMessageID(storable(env.GetHeader("In-Reply-To"))),
		References:  ParseReferences(storable(strings.Join(env.GetHeaderValues("References"), " "))),
		To:          addresses(env, "To"),
		Cc:          addresses(env, "Cc"),
		DeliveredTo: headerAddresses(env.GetHeaderValues("Delivered-To")),
		Subject:     strings.TrimSpace(env.GetHeader("Subject")),
		Text:        normalizeNewlines(env.Text),
		HTML:        normalizeNewlines(env.HTML),
		Headers:     selected(env),
		SizeBytes:   int64(len(raw)),
	}
	// Ids are made storable before they are normalized: dropping a NUL
	// afterwards could leave "<>" (found by FuzzParseMIME).
	in.Attachments, in.Files = attachments(env)
	if mt, params, err := mime.ParseMediaType(env.GetHeader("Content-Type")); err == nil {
		in.ContentType, in.ReportType = mt, strings.ToLower(params["report-type"])
	}
	in.MessageID = NormalizeMessageID(storable(env.GetHeader("Message-ID")))
	if in.MessageID == "" {
		sum := sha256.Sum256(raw)
		in.MessageID = "<" + hex.EncodeToString(sum[:]) + "@" + SyntheticMessageIDDomain + ">"
		in.MessageIDSynthesized = true
	}
	if d, err := env.Date(); err == nil {
		in.Date = d.UTC()
	}
	for _, e := range env.Errors {
		in.Warnings = append(in.Warnings, e.Error())
	}
	in.sanitize()
	return in, nil
}

// sanitize makes every stored string storable in a Postgres text or jsonb
// column (I8): NUL bytes are dropped and invalid UTF-8 becomes U+FFFD.
// Without it one stray NUL in an agency's reply fails the insert on every
// webhook redelivery and the reply is lost.
func (in *Inbound) sanitize() {
	for _, p := range []*string{&in.MessageID, &in.InReplyTo, &in.Subject, &in.Text, &in.HTML, &in.From.Name, &in.From.Address} {
		*p = storable(*p)
	}
	for _, list := range [][]string{in.References, in.To, in.Cc, in.DeliveredTo} {
		for i := range list {
			list[i] = storable(list[i])
		}
	}
	for k, v := range in.Headers {
		in.Headers[k] = storable(v)
	}
	for i := range in.Attachments {
		in.Attachments[i].Filename = storable(in.Attachments[i].Filename)
		in.Attachments[i].ContentType = storable(in.Attachments[i].ContentType)
		in.Files[i].Filename, in.Files[i].ContentType = in.Attachments[i].Filename, in.Attachments[i].ContentType
	}
}

// storable drops NUL bytes and replaces invalid UTF-8 sequences.
func storable(s string) string {
	if utf8.ValidString(s) && !strings.ContainsRune(s, 0) {
		return s
	}
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "")
}

func firstAddress(env *enmime.Envelope, key string) (Address, error) {
	list, err := env.AddressList(key)
	if err != nil {
		return Address{}, err
	}
	for _, a := range list {
		if a.Address != "" {
			return Address{Name: a.Name, Address: a.Address}, nil
		}
	}
	return Address{}, mail.ErrHeaderNotPresent
}

// addresses returns the bare addresses of an address header; an unparseable
// header yields nil (recipients are a matching hint, not a requirement).
func addresses(env *enmime.Envelope, key string) []string {
	list, err := env.AddressList(key)
	if err != nil {
		return nil
	}
	out := make([]string, 0, len(list))
	for _, a := range list {
		if a.Address != "" {
			out = append(out, a.Address)
		}
	}
	return out
}

func headerAddresses(values []string) []string {
	var out []string
	for _, v := range values {
		out = append(out, splitAddresses(v)...)
	}
	return out
}

// File is one attachment's decoded bytes.
type File struct {
	Filename    string
	ContentType string
	Content     []byte
}

// attachments lists every attachment part, plus inline or unclassified
// parts that carry a file name and are not images (inline images are
// usually logos and signatures, not records), with their bytes.
func attachments(env *enmime.Envelope) ([]workflow.Attachment, []File) {
	var out []workflow.Attachment
	var files []File
	add := func(p *enmime.Part) {
		ct := strings.ToLower(p.ContentType)
		if ct == "" {
			ct = "application/octet-stream"
		}
		out = append(out, workflow.Attachment{
			Filename:    p.FileName,
			ContentType: ct,
			SizeBytes:   int64(len(p.Content)),
		})
		files = append(files, File{Filename: p.FileName, ContentType: ct, Content: p.Content})
	}
	for _, p := range env.Attachments {
		add(p)
	}
	for _, group := range [][]*enmime.Part{env.Inlines, env.OtherParts} {
		for _, p := range group {
			if p.FileName != "" && !strings.HasPrefix(p.ContentType, "image/") {
				add(p)
			}
		}
	}
	return out, files
}

func selected(env *enmime.Envelope) map[string]string {
	out := map[string]string{}
	for _, h := range selectedHeaders {
		if v := strings.TrimSpace(env.GetHeader(h)); v != "" {
			out[textproto.CanonicalMIMEHeaderKey(h)] = v
		}
	}
	return out
}

// normalizeNewlines turns CRLF and lone CR into LF.
func normalizeNewlines(s string) string {
	if !strings.Contains(s, "\r") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}
