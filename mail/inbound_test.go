package mail_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/foiaflow/foiaflow/mail"
	"github.com/foiaflow/foiaflow/workflow"
)

func readEML(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "inbound", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func parse(t *testing.T, raw []byte) mail.Inbound {
	t.Helper()
	in, err := mail.ParseMIME(raw, 1<<20)
	if err != nil {
		t.Fatalf("ParseMIME: %v", err)
	}
	return in
}

func TestParseMIMEPlain(t *testing.T) {
	t.Parallel()
	raw := readEML(t, "plain.eml")
	in := parse(t, raw)
	if in.MessageID != "<CAF=7kq1.a8f0@mail.cityofaustin.gov>" || in.MessageIDSynthesized {
		t.Errorf("MessageID %q synthesized=%v", in.MessageID, in.MessageIDSynthesized)
	}
	if in.InReplyTo != "<9de2207bc95e1d4002fdc4e9fc8fdd93@foiaflow.org>" {
		t.Errorf("InReplyTo %q", in.InReplyTo)
	}
	wantRefs := []string{"<1a2b3c4d5e6f70819a2b3c4d5e6f7081@foiaflow.org>", "<9de2207bc95e1d4002fdc4e9fc8fdd93@foiaflow.org>"}
	if strings.Join(in.References, " ") != strings.Join(wantRefs, " ") {
		t.Errorf("References %q", in.References)
	}
	if in.From != (mail.Address{Name: "Open Records, City of Austin", Address: "openrecords@austintexas.gov"}) {
		t.Errorf("From %+v", in.From)
	}
	if len(in.To) != 1 || in.To[0] != "Requests+K7Q2M9X4@foiaflow.org" {
		t.Errorf("To %q", in.To)
	}
	if len(in.Cc) != 1 || in.Cc[0] != "records.supervisor@austintexas.gov" {
		t.Errorf("Cc %q", in.Cc)
	}
	if len(in.DeliveredTo) != 1 || in.DeliveredTo[0] != "requests+k7q2m9x4@foiaflow.org" {
		t.Errorf("DeliveredTo %q", in.DeliveredTo)
	}
	if in.Subject != "RE: Public Information Request #R012345-112026" {
		t.Errorf("Subject %q", in.Subject)
	}
	if want := time.Date(2026, 11, 23, 16, 14, 5, 0, time.UTC); !in.Date.Equal(want) || in.Date.Location() != time.UTC {
		t.Errorf("Date %s", in.Date)
	}
	if !strings.Contains(in.Text, "tracking number\nR012345-112026") || in.HTML != "" {
		t.Errorf("Text %q HTML %q", in.Text, in.HTML)
	}
	if len(in.Attachments) != 0 {
		t.Errorf("Attachments %+v", in.Attachments)
	}
	if in.Headers["Auto-Submitted"] != "no" || in.Headers["Return-Path"] != "<bounce+7f3a@mail.cityofaustin.gov>" {
		t.Errorf("Headers %v", in.Headers)
	}
	if tok, ok := mail.TokenFromAddresses(in.Recipients(), "foiaflow.org"); !ok || tok != "k7q2m9x4" {
		t.Errorf("token %q %v", tok, ok)
	}
	if in.SizeBytes != int64(len(raw)) {
		t.Errorf("SizeBytes %d", in.SizeBytes)
	}
	// CRLF line endings parse the same.
	crlf := parse(t, bytes.ReplaceAll(raw, []byte("\n"), []byte("\r\n")))
	if crlf.MessageID != in.MessageID || crlf.Subject != in.Subject || len(crlf.References) != 2 {
		t.Errorf("CRLF parse differs: %+v", crlf)
	}
}

func TestParseMIMEHTMLOnly(t *testing.T) {
	t.Parallel()
	in := parse(t, readEML(t, "html_only.eml"))
	if !strings.Contains(in.HTML, "<b>$42.50</b>") {
		t.Errorf("HTML %q", in.HTML)
	}
	if !strings.Contains(in.Text, "$42.50") || strings.Contains(in.Text, "<b>") {
		t.Errorf("Text not converted from HTML: %q", in.Text)
	}
}

func TestParseMIMEAttachment(t *testing.T) {
	t.Parallel()
	in := parse(t, readEML(t, "attachment.eml"))
	if in.Text != "Please find the responsive records attached." {
		t.Errorf("Text %q", in.Text)
	}
	if !strings.Contains(in.HTML, "<i>attached</i>") {
		t.Errorf("HTML %q", in.HTML)
	}
	want := []workflow.Attachment{{Filename: "incident-report-2026-0412.pdf", ContentType: "application/pdf", SizeBytes: 78}}
	if len(in.Attachments) != 1 || in.Attachments[0] != want[0] {
		t.Errorf("Attachments %+v, want %+v (inline logo excluded)", in.Attachments, want)
	}
	r := in.Reply(time.Date(2026, 12, 2, 14, 0, 1, 0, time.UTC))
	if r.MessageID != in.MessageID || r.From != "clerk@sheriff.example-county.gov" || len(r.Attachments) != 1 {
		t.Errorf("Reply %+v", r)
	}
}

func TestParseMIMEQuotedPrintable(t *testing.T) {
	t.Parallel()
	in := parse(t, readEML(t, "quoted_printable.eml"))
	if in.Subject != "Solicitud de registros públicos — extensión" {
		t.Errorf("Subject %q", in.Subject)
	}
	if in.From.Name != "José Martínez" {
		t.Errorf("From %+v", in.From)
	}
	if !strings.Contains(in.Text, "estimated completion date is December 17, 2026. Señor") {
		t.Errorf("Text %q", in.Text)
	}
	if want := time.Date(2026, 12, 4, 0, 45, 0, 0, time.UTC); !in.Date.Equal(want) {
		t.Errorf("Date %s", in.Date)
	}
}

func TestParseMIMENoMessageID(t *testing.T) {
	t.Parallel()
	raw := readEML(t, "no_message_id.eml")
	a, b := parse(t, raw), parse(t, raw)
	if !a.MessageIDSynthesized || !strings.HasSuffix(a.MessageID, "@"+mail.SyntheticMessageIDDomain+">") || !strings.HasPrefix(a.MessageID, "<") {
		t.Fatalf("MessageID %q synthesized=%v", a.MessageID, a.MessageIDSynthesized)
	}
	if a.MessageID != b.MessageID {
		t.Fatal("synthesized Message-ID is not deterministic")
	}
	other := parse(t, append(raw, []byte("Back Tuesday.\n")...))
	if other.MessageID == a.MessageID {
		t.Fatal("different bytes, same synthesized Message-ID")
	}
	if a.Headers["Auto-Submitted"] != "auto-replied" {
		t.Errorf("Headers %v", a.Headers)
	}
}

func TestParseMIMEMissingDate(t *testing.T) {
	t.Parallel()
	in := parse(t, []byte("Message-ID: <x@y>\nFrom: a@b.example\nDate: yesterday-ish\n\nbody\n"))
	if !in.Date.IsZero() {
		t.Errorf("Date %s, want zero", in.Date)
	}
}

func TestParseMIMEErrors(t *testing.T) {
	t.Parallel()
	plain := readEML(t, "plain.eml")
	cases := []struct {
		name string
		raw  []byte
		max  int64
		want error
	}{
		{"oversize", plain, int64(len(plain)) - 1, mail.ErrTooLarge},
		{"empty", nil, 100, mail.ErrMalformed},
		{"whitespace", []byte(" \r\n\t"), 100, mail.ErrMalformed},
		{"garbage", []byte("hello world, this is not an email"), 1000, mail.ErrMalformed},
		{"binary garbage", []byte{0x00, 0x01, 0xff, 0xfe, 0x1b, '\n', '\n'}, 1000, mail.ErrMalformed},
		{"no header section", []byte(":::\n\nbody"), 1000, mail.ErrMalformed},
		{"no From", []byte("Message-ID: <a@b>\nSubject: hi\n\nbody"), 1000, mail.ErrMalformed},
		{"bad From", []byte("Message-ID: <a@b>\nFrom: not an address\n\nbody"), 1000, mail.ErrMalformed},
	}
	for _, c := range cases {
		if _, err := mail.ParseMIME(c.raw, c.max); !errors.Is(err, c.want) {
			t.Errorf("%s: err = %v, want %v", c.name, err, c.want)
		}
	}
	if _, err := mail.ParseMIME(plain, int64(len(plain))); err != nil {
		t.Errorf("exactly at the limit: %v", err)
	}
}

// Regression (found by make chaos): corpus reply 079 carries a NUL byte;
// Postgres rejects NUL (and invalid UTF-8) in text/jsonb, so every webhook
// redelivery failed with 500 and the reply was lost. ParseMIME must hand
// the store only storable strings.
func TestParseMIMEDropsNULAndInvalidUTF8(t *testing.T) {
	t.Parallel()
	raw := []byte("From: records@agency.example.gov\r\nTo: requests+tok@foiaflow.local\r\n" +
		"Subject: RE: request\x00 \xff\r\nMessage-ID: <nul-1@agency.example.gov>\r\n" +
		"Content-Type: text/plain; charset=utf-8\r\n\r\nFee is $25.00\x00 payable\xfe now.\r\n")
	in := parse(t, raw)
	for name, s := range map[string]string{"Subject": in.Subject, "Text": in.Text} {
		if strings.ContainsRune(s, 0) || !utf8.ValidString(s) {
			t.Errorf("%s %q is not storable", name, s)
		}
	}
	if !strings.Contains(in.Text, "Fee is $25.00 payable") {
		t.Errorf("Text %q lost content", in.Text)
	}
	for k, v := range in.Headers {
		if strings.ContainsRune(v, 0) || !utf8.ValidString(v) {
			t.Errorf("header %s %q is not storable", k, v)
		}
	}
}
