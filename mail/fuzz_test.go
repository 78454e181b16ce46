package mail_test

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foiaflow/foiaflow/mail"
)

// FuzzParseMIME: any input either parses into a message with a normalized
// Message-ID or fails with ErrTooLarge/ErrMalformed; it never panics.
// Seeds: testdata/inbound/*.eml and testdata/fuzz/FuzzParseMIME.
func FuzzParseMIME(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join("testdata", "inbound", "*.eml"))
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("From: a@b.example\r\n\r\nhi"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		in, err := mail.ParseMIME(raw, 64<<10)
		if err != nil {
			if !errors.Is(err, mail.ErrMalformed) && !errors.Is(err, mail.ErrTooLarge) {
				t.Fatalf("unexpected error class: %v", err)
			}
			return
		}
		if !strings.HasPrefix(in.MessageID, "<") || !strings.HasSuffix(in.MessageID, ">") || len(in.MessageID) < 3 {
			t.Fatalf("Message-ID %q not normalized", in.MessageID)
		}
		if in.From.Address == "" {
			t.Fatal("parsed without a From address")
		}
		if !in.Date.IsZero() && in.Date.Location().String() != "UTC" {
			t.Fatalf("Date not UTC: %s", in.Date)
		}
		if strings.Contains(in.Text, "\r") {
			t.Fatal("Text keeps CR")
		}
	})
}

// FuzzDecodeMailgunForm: any body and content type either decode (only
// possible with a valid signature, see the seeds) or fail with one of the
// package's sentinel errors; it never panics.
// Seeds: testdata/fuzz/FuzzDecodeMailgunForm.
func FuzzDecodeMailgunForm(f *testing.F) {
	f.Add("application/x-www-form-urlencoded", []byte("timestamp=1&token=x&signature=00&body-mime=From%3A+a%40b"))
	f.Add("multipart/form-data; boundary=b", []byte("--b\r\nContent-Disposition: form-data; name=\"token\"\r\n\r\nx\r\n--b--\r\n"))
	f.Fuzz(func(t *testing.T, contentType string, body []byte) {
		r := httptest.NewRequest(http.MethodPost, "/inbound/mailgun", bytes.NewReader(body))
		r.Header.Set("Content-Type", contentType)
		raw, token, err := mail.DecodeMailgunForm(r, mailgunKey, webhookNow, 0, 32<<10)
		if err != nil {
			for _, want := range []error{mail.ErrMalformed, mail.ErrTooLarge, mail.ErrBadSignature, mail.ErrStale} {
				if errors.Is(err, want) {
					return
				}
			}
			t.Fatalf("unexpected error class: %v", err)
		}
		if len(raw) == 0 || token == "" {
			t.Fatalf("success without body or token: %q %q", raw, token)
		}
	})
}
