package mail_test

import (
	"bytes"
	"errors"
	netmail "net/mail"
	"strings"
	"testing"
	"time"

	"github.com/foiaflow/foiaflow/mail"
)

func sampleOutbound() mail.Outbound {
	key := "42:<CAF=7kq1.a8f0@mail.cityofaustin.gov>:SEND_FOLLOWUP:1"
	return mail.Outbound{
		From:       "foiaflow <requests@foiaflow.org>",
		To:         []string{"Open Records <openrecords@austintexas.gov>"},
		ReplyTo:    mail.ReplyAddress("k7q2m9x4", "foiaflow.org"),
		Subject:    "RE: Public Information Request #R012345-112026 — follow-up",
		Text:       "Dear Open Records Team,\n\nI am following up on request R012345-112026. Señor.\n",
		HTML:       "<p>Dear Open Records Team,</p><p>I am following up.</p>",
		MessageID:  testIDs.MessageID(key),
		InReplyTo:  "<CAF=7kq1.a8f0@mail.cityofaustin.gov>",
		References: []string{"<1a2b3c4d5e6f70819a2b3c4d5e6f7081@foiaflow.org>", "CAF=7kq1.a8f0@mail.cityofaustin.gov"},
		Headers:    map[string]string{"Auto-Submitted": "auto-generated"},
		Date:       time.Date(2026, 12, 8, 15, 3, 0, 0, time.UTC),
	}
}

func TestBuildMessageRoundTrip(t *testing.T) {
	t.Parallel()
	m := sampleOutbound()
	b, err := mail.BuildMessage(m)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Message-ID: " + m.MessageID + "\r\n",
		"In-Reply-To: <CAF=7kq1.a8f0@mail.cityofaustin.gov>\r\n",
		"Date: Tue, 08 Dec 2026 15:03:00 +0000\r\n",
		"Reply-To: <requests+k7q2m9x4@foiaflow.org>\r\n",
		"Content-Type: multipart/alternative",
	} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("missing %q in\n%s", want, b)
		}
	}
	if bytes.Contains(b, []byte("User-Agent")) || bytes.Contains(b, []byte("X-Mailer")) {
		t.Error("unexpected mailer header")
	}
	again, _ := mail.BuildMessage(m)
	if !bytes.Equal(b, again) {
		t.Error("BuildMessage is not deterministic")
	}
	hdr, err := netmail.ReadMessage(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if got := hdr.Header.Get("Auto-Submitted"); got != m.Headers["Auto-Submitted"] {
		t.Errorf("execution key header %q", got)
	}
	in, err := mail.ParseMIME(b, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if in.MessageID != m.MessageID || in.InReplyTo != m.InReplyTo || in.Subject != m.Subject || !in.Date.Equal(m.Date) {
		t.Errorf("parsed %+v", in)
	}
	if strings.Join(in.References, " ") != "<1a2b3c4d5e6f70819a2b3c4d5e6f7081@foiaflow.org> <CAF=7kq1.a8f0@mail.cityofaustin.gov>" {
		t.Errorf("References %q", in.References)
	}
	if in.Text != m.Text || in.HTML != m.HTML {
		t.Errorf("bodies %q %q", in.Text, in.HTML)
	}
	if in.Headers["Reply-To"] != "<requests+k7q2m9x4@foiaflow.org>" || in.From.Address != "requests@foiaflow.org" || in.To[0] != "openrecords@austintexas.gov" {
		t.Errorf("addresses %+v", in)
	}
}

func TestBuildMessageTextOnlyAndLongReferences(t *testing.T) {
	t.Parallel()
	m := sampleOutbound()
	m.HTML = ""
	m.ReplyTo = ""
	m.InReplyTo = ""
	m.References = nil
	for i := range 30 {
		m.References = append(m.References, testIDs.MessageID(strings.Repeat("k", i)))
	}
	m.Date = time.Date(2026, 12, 8, 10, 3, 0, 0, time.FixedZone("EST", -5*3600))
	b, err := mail.BuildMessage(m)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte("multipart")) || bytes.Contains(b, []byte("In-Reply-To")) || bytes.Contains(b, []byte("Reply-To")) {
		t.Errorf("unexpected parts:\n%s", b)
	}
	if !bytes.Contains(b, []byte("Date: Tue, 08 Dec 2026 15:03:00 +0000")) {
		t.Error("Date not rendered in UTC")
	}
	for _, line := range strings.Split(string(b), "\r\n") {
		if len(line) > 998 {
			t.Fatalf("line of %d bytes", len(line))
		}
	}
	in, err := mail.ParseMIME(b, 1<<20)
	if err != nil || len(in.References) != 30 || in.References[29] != m.References[29] {
		t.Fatalf("references after folding: %v %d", err, len(in.References))
	}
}

func TestBuildMessageInvalid(t *testing.T) {
	t.Parallel()
	cases := map[string]func(*mail.Outbound){
		"no From":            func(m *mail.Outbound) { m.From = "" },
		"bad From":           func(m *mail.Outbound) { m.From = "not an address" },
		"no To":              func(m *mail.Outbound) { m.To = nil },
		"bad To":             func(m *mail.Outbound) { m.To = []string{"a@b", "nope"} },
		"bad Reply-To":       func(m *mail.Outbound) { m.ReplyTo = "@@" },
		"no Date":            func(m *mail.Outbound) { m.Date = time.Time{} },
		"no Message-ID":      func(m *mail.Outbound) { m.MessageID = "" },
		"bare Message-ID":    func(m *mail.Outbound) { m.MessageID = "abc@foiaflow.org" },
		"Message-ID no @":    func(m *mail.Outbound) { m.MessageID = "<abc>" },
		"subject injection":  func(m *mail.Outbound) { m.Subject = "hi\r\nBcc: victim@x.org" },
		"header injection":   func(m *mail.Outbound) { m.Headers = map[string]string{"X-A": "1\nBcc: x@y"} },
		"reserved header":    func(m *mail.Outbound) { m.Headers = map[string]string{"message-id": "<x@y>"} },
		"bad header name":    func(m *mail.Outbound) { m.Headers = map[string]string{"X A": "1"} },
		"references with LF": func(m *mail.Outbound) { m.References = []string{"<a@b>\n"} },
	}
	for name, mutate := range cases {
		m := sampleOutbound()
		mutate(&m)
		if _, err := mail.BuildMessage(m); !errors.Is(err, mail.ErrInvalidOutbound) {
			t.Errorf("%s: err = %v, want ErrInvalidOutbound", name, err)
		}
	}
}
