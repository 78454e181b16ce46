package mail_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/foiaflow/foiaflow/mail"
)

// nestedMIME builds a message whose body is depth multiparts deep, each
// level padded with pad bytes.
func nestedMIME(depth, pad int) []byte {
	var b strings.Builder
	b.WriteString("From: records@agency.example\r\nTo: requests+abc123@foiaflow.org\r\nSubject: RE: request\r\nMessage-ID: <n@agency.example>\r\n")
	for i := range depth {
		fmt.Fprintf(&b, "Content-Type: multipart/mixed; boundary=\"b%d\"\r\n\r\n%s\r\n--b%d\r\n", i, strings.Repeat("p", pad), i)
	}
	b.WriteString("Content-Type: text/plain\r\n\r\nThe records are attached.\r\n")
	for i := depth - 1; i >= 0; i-- {
		fmt.Fprintf(&b, "--b%d--\r\n", i)
	}
	return []byte(b.String())
}

func TestParseBoundedLimits(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	l := mail.Limits{MaxBytes: 4 << 20, MaxDepth: 8, MaxParts: 20, MaxHeaderBytes: 4 << 10, Timeout: 5 * time.Second}

	in, err := mail.ParseBounded(ctx, nestedMIME(7, 10), l)
	if err != nil || !strings.Contains(in.Text, "records are attached") {
		t.Fatalf("7 levels under a limit of 8: %v %q", err, in.Text)
	}
	// Issue 10: 1,000 levels took 25 s; refused at once now.
	start := time.Now()
	if _, err := mail.ParseBounded(ctx, nestedMIME(1000, 2000), l); !errors.Is(err, mail.ErrLimit) || !strings.Contains(err.Error(), "nested deeper") {
		t.Fatalf("1,000 levels: %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("refusing a 1,000-level bomb took %s", d)
	}

	var parts strings.Builder
	parts.WriteString("From: a@b.example\r\nContent-Type: multipart/mixed; boundary=x\r\n\r\n")
	for i := range 30 {
		fmt.Fprintf(&parts, "--x\r\nContent-Type: text/plain\r\n\r\npart %d\r\n", i)
	}
	parts.WriteString("--x--\r\n")
	if _, err := mail.ParseBounded(ctx, []byte(parts.String()), l); !errors.Is(err, mail.ErrLimit) || !strings.Contains(err.Error(), "parts") {
		t.Fatalf("30 parts over 20: %v", err)
	}

	long := "From: a@b.example\r\nX-Pad: " + strings.Repeat("h", 5<<10) + "\r\n\r\nbody"
	if _, err := mail.ParseBounded(ctx, []byte(long), l); !errors.Is(err, mail.ErrLimit) || !strings.Contains(err.Error(), "header") {
		t.Fatalf("5 KiB header over 4 KiB: %v", err)
	}
	partHeader := "From: a@b.example\r\nContent-Type: multipart/mixed; boundary=x\r\n\r\n--x\r\nX-Pad: " + strings.Repeat("h", 5<<10) +
		"\r\nContent-Type: text/plain\r\n\r\nhi\r\n--x--\r\n"
	if _, err := mail.ParseBounded(ctx, []byte(partHeader), l); !errors.Is(err, mail.ErrLimit) {
		t.Fatalf("part header over the limit: %v", err)
	}
	big := []byte("From: a@b.example\r\n\r\n" + strings.Repeat("x", 5<<20))
	if _, err := mail.ParseBounded(ctx, big, l); !errors.Is(err, mail.ErrTooLarge) {
		t.Fatalf("5 MiB over 4 MiB: %v", err)
	}
	if _, err := mail.ParseBounded(ctx, []byte("no header here"), l); !errors.Is(err, mail.ErrMalformed) {
		t.Fatalf("junk: %v", err)
	}
}

func TestParseBoundedKeepsAttachmentBytes(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join("testdata", "inbound", "attachment.eml"))
	if err != nil {
		t.Fatal(err)
	}
	in, err := mail.ParseBounded(context.Background(), raw, mail.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Files) == 0 || len(in.Files) != len(in.Attachments) {
		t.Fatalf("files %d, attachments %d", len(in.Files), len(in.Attachments))
	}
	for i, f := range in.Files {
		a := in.Attachments[i]
		if int64(len(f.Content)) != a.SizeBytes || f.Filename != a.Filename || f.ContentType != a.ContentType || a.SizeBytes == 0 {
			t.Fatalf("file %d %q (%d bytes) vs attachment %+v", i, f.Filename, len(f.Content), a)
		}
	}
}

func TestParseHeadersOnly(t *testing.T) {
	t.Parallel()
	raw := nestedMIME(1000, 0)
	in := mail.ParseHeaders(raw, mail.Limits{})
	if in.From.Address != "records@agency.example" || in.MessageID != "<n@agency.example>" || in.Subject != "RE: request" ||
		len(in.To) != 1 || in.SizeBytes != int64(len(raw)) || in.Text != "" {
		t.Fatalf("headers only %+v", in)
	}
	none := mail.ParseHeaders([]byte("\x00\xff garbage"), mail.Limits{})
	if !none.MessageIDSynthesized || none.From.Address != "" {
		t.Fatalf("garbage %+v", none)
	}
}

func TestAutoKinds(t *testing.T) {
	t.Parallel()
	cases := []struct {
		head string
		want mail.AutoKind
	}{
		{"Subject: RE: records\r\n", mail.AutoNone},
		{"Subject: RE: Out of office travel records\r\n", mail.AutoNone},
		{"Subject: RE: records\r\nAuto-Submitted: no\r\n", mail.AutoNone},
		{"Subject: RE: records\r\nAuto-Submitted: auto-generated\r\n", mail.AutoSubmitted},
		{"Subject: RE: records\r\nAuto-Submitted: auto-replied; owner-email=\"x@y\"\r\n", mail.AutoSubmitted},
		{"Subject: Automatic reply: RE: records\r\n", mail.AutoOutOfOffice},
		{"Subject: [Out of Office] RE: records\r\nAuto-Submitted: auto-replied\r\n", mail.AutoOutOfOffice},
		{"Subject: RE: records\r\nPrecedence: junk\r\n", mail.AutoBulk},
		{"Subject: RE: records\r\nPrecedence: list\r\n", mail.AutoBulk},
		{"Subject: RE: records\r\nPrecedence: auto_reply\r\n", mail.AutoReply},
		{"Subject: RE: records\r\nX-Autorespond: on\r\n", mail.AutoReply},
		{"Subject: RE: records\r\nContent-Type: multipart/report; report-type=delivery-status; boundary=z\r\n", mail.AutoBounce},
	}
	for _, c := range cases {
		raw := "From: records@agency.example\r\nMessage-ID: <a@b>\r\n" + c.head + "\r\n--z\r\nContent-Type: text/plain\r\n\r\nx\r\n--z--\r\n"
		in, err := mail.ParseMIME([]byte(raw), 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := in.Auto(); got != c.want {
			t.Errorf("%q: %q, want %q", c.head, got, c.want)
		}
	}
	bounce := "From: Mail Delivery System <MAILER-DAEMON@mx.example>\r\nMessage-ID: <d@b>\r\nSubject: Undelivered Mail Returned to Sender\r\n" +
		"X-Failed-Recipients: records@agency.example\r\n\r\nThis message could not be delivered.\r\n"
	if in, _ := mail.ParseMIME([]byte(bounce), 0); in.Auto() != mail.AutoBounce {
		t.Errorf("mailer-daemon bounce: %q", in.Auto())
	}
}

// FuzzParseBounded: the parser of the inbound job on any input either
// returns a usable message or ErrTooLarge/ErrLimit/ErrMalformed, within
// its limits, and never panics; when it refuses, the headers-only reading
// still yields a storable message with a Message-ID. Seeds: the inbound
// test messages, nested and wide MIME, and testdata/fuzz/FuzzParseBounded.
func FuzzParseBounded(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join("testdata", "inbound", "*.eml"))
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add(nestedMIME(3, 5))
	f.Add(nestedMIME(12, 0))
	f.Add([]byte("From: a@b.example\r\nContent-Type: multipart/report; report-type=delivery-status; boundary=z\r\n\r\n--z\r\n\r\nx\r\n--z--\r\n"))
	l := mail.Limits{MaxBytes: 64 << 10, MaxDepth: 6, MaxParts: 40, MaxHeaderBytes: 8 << 10, Timeout: 5 * time.Second}
	f.Fuzz(func(t *testing.T, raw []byte) {
		in, err := mail.ParseBounded(context.Background(), raw, l)
		if err != nil {
			if !errors.Is(err, mail.ErrMalformed) && !errors.Is(err, mail.ErrTooLarge) && !errors.Is(err, mail.ErrLimit) {
				t.Fatalf("unexpected error class: %v", err)
			}
			in = mail.ParseHeaders(raw, l)
			checkStorable(t, in)
			checkMessageID(t, "MessageID", in.MessageID)
			_ = in.Auto()
			return
		}
		if len(in.Files) != len(in.Attachments) {
			t.Fatalf("%d files for %d attachments", len(in.Files), len(in.Attachments))
		}
		if err := mail.CheckStructure(raw, l); err != nil {
			t.Fatalf("parsed although over a limit: %v", err)
		}
		checkStorable(t, in)
		checkMessageID(t, "MessageID", in.MessageID)
		_ = in.Auto()
	})
}
