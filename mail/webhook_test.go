package mail_test

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/foiaflow/foiaflow/mail"
)

var webhookNow = time.Date(2026, 11, 23, 16, 20, 0, 0, time.UTC)

func TestVerifyRawSignature(t *testing.T) {
	t.Parallel()
	secret := []byte("raw-webhook-secret")
	body := readEML(t, "plain.eml")
	ts, sig := mail.SignRaw(secret, webhookNow.Add(-30*time.Second), body)
	if ts != strconv.FormatInt(webhookNow.Add(-30*time.Second).Unix(), 10) || !strings.HasPrefix(sig, "sha256=") {
		t.Fatalf("SignRaw = %q %q", ts, sig)
	}
	// The signature is exactly hex(HMAC-SHA256(secret, ts + "." + body)).
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(ts + "." + string(body)))
	if sig != "sha256="+hex.EncodeToString(m.Sum(nil)) {
		t.Fatal("SignRaw does not match the documented scheme")
	}
	futureTS, futureSig := mail.SignRaw(secret, webhookNow.Add(6*time.Minute), body)
	oldTS, oldSig := mail.SignRaw(secret, webhookNow.Add(-6*time.Minute), body)
	cases := []struct {
		name    string
		secret  []byte
		ts, sig string
		body    []byte
		want    error
	}{
		{"good", secret, ts, sig, body, nil},
		{"tampered body", secret, ts, sig, append(bytes.Clone(body), 'x'), mail.ErrBadSignature},
		{"wrong secret", []byte("other"), ts, sig, body, mail.ErrBadSignature},
		{"timestamp swapped", secret, oldTS, sig, body, mail.ErrBadSignature},
		{"no prefix", secret, ts, strings.TrimPrefix(sig, "sha256="), body, mail.ErrBadSignature},
		{"not hex", secret, ts, "sha256=zz", body, mail.ErrBadSignature},
		{"missing timestamp", secret, "", sig, body, mail.ErrBadSignature},
		{"missing signature", secret, ts, "", body, mail.ErrBadSignature},
		{"no secret configured", nil, ts, sig, body, mail.ErrBadSignature},
		{"stale", secret, oldTS, oldSig, body, mail.ErrStale},
		{"future", secret, futureTS, futureSig, body, mail.ErrStale},
	}
	for _, c := range cases {
		err := mail.VerifyRawSignature(c.secret, c.ts, c.sig, c.body, webhookNow, 5*time.Minute)
		if !errors.Is(err, c.want) || (c.want == nil) != (err == nil) {
			t.Errorf("%s: err = %v, want %v", c.name, err, c.want)
		}
	}
	// A non-numeric timestamp signed correctly is still rejected.
	m = hmac.New(sha256.New, secret)
	m.Write([]byte("soon." + string(body)))
	if err := mail.VerifyRawSignature(secret, "soon", "sha256="+hex.EncodeToString(m.Sum(nil)), body, webhookNow, time.Minute); !errors.Is(err, mail.ErrStale) {
		t.Errorf("non-numeric timestamp: %v", err)
	}
}

var mailgunKey = []byte("key-mailgun-signing")

func mailgunFields(t *testing.T, key []byte, ts time.Time, token, mime string) map[string]string {
	t.Helper()
	tsStr := strconv.FormatInt(ts.Unix(), 10)
	m := hmac.New(sha256.New, key)
	m.Write([]byte(tsStr + token))
	return map[string]string{
		"timestamp": tsStr, "token": token, "signature": hex.EncodeToString(m.Sum(nil)),
		"body-mime": mime, "recipient": "requests+k7q2m9x4@foiaflow.org",
	}
}

func multipartRequest(t *testing.T, fields map[string]string, mimeAsFile bool) *http.Request {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for k, v := range fields {
		if k == "body-mime" && mimeAsFile {
			fw, err := w.CreateFormFile(k, "message.mime")
			if err != nil {
				t.Fatal(err)
			}
			fw.Write([]byte(v))
			continue
		}
		if err := w.WriteField(k, v); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	r := httptest.NewRequest(http.MethodPost, "/inbound/mailgun", &buf)
	r.Header.Set("Content-Type", w.FormDataContentType())
	return r
}

func urlencodedRequest(fields map[string]string) *http.Request {
	v := url.Values{}
	for k, s := range fields {
		v.Set(k, s)
	}
	r := httptest.NewRequest(http.MethodPost, "/inbound/mailgun", strings.NewReader(v.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return r
}

func TestDecodeMailgunFormGood(t *testing.T) {
	t.Parallel()
	raw := string(readEML(t, "plain.eml"))
	fields := mailgunFields(t, mailgunKey, webhookNow.Add(-time.Minute), "a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d2e3f4a5", raw)
	reqs := map[string]*http.Request{
		"multipart":         multipartRequest(t, fields, false),
		"multipart as file": multipartRequest(t, fields, true),
		"urlencoded":        urlencodedRequest(fields),
	}
	for name, r := range reqs {
		got, token, err := mail.DecodeMailgunForm(r, mailgunKey, webhookNow, 5*time.Minute, 1<<20)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if string(got) != raw || token != fields["token"] {
			t.Errorf("%s: raw/token mismatch (token %q)", name, token)
		}
		if in, err := mail.ParseMIME(got, 1<<20); err != nil || in.MessageID != "<CAF=7kq1.a8f0@mail.cityofaustin.gov>" {
			t.Errorf("%s: parse %v %q", name, err, in.MessageID)
		}
	}
}

func TestDecodeMailgunFormRejects(t *testing.T) {
	t.Parallel()
	raw := string(readEML(t, "plain.eml"))
	good := func() map[string]string {
		return mailgunFields(t, mailgunKey, webhookNow.Add(-time.Minute), "tok-1", raw)
	}
	with := func(k, v string) map[string]string { f := good(); f[k] = v; return f }
	without := func(k string) map[string]string { f := good(); delete(f, k); return f }
	cases := []struct {
		name string
		req  *http.Request
		max  int64
		want error
	}{
		{"bad signature", multipartRequest(t, with("signature", strings.Repeat("ab", 32)), false), 1 << 20, mail.ErrBadSignature},
		{"signature not hex", multipartRequest(t, with("signature", "xyz"), false), 1 << 20, mail.ErrBadSignature},
		{"token changed", multipartRequest(t, with("token", "tok-2"), false), 1 << 20, mail.ErrBadSignature},
		{"wrong key", multipartRequest(t, mailgunFields(t, []byte("other"), webhookNow, "tok-1", raw), false), 1 << 20, mail.ErrBadSignature},
		{"missing signature", urlencodedRequest(without("signature")), 1 << 20, mail.ErrBadSignature},
		{"stale", multipartRequest(t, mailgunFields(t, mailgunKey, webhookNow.Add(-10*time.Minute), "tok-1", raw), false), 1 << 20, mail.ErrStale},
		{"future", urlencodedRequest(mailgunFields(t, mailgunKey, webhookNow.Add(10*time.Minute), "tok-1", raw)), 1 << 20, mail.ErrStale},
		{"missing body-mime", multipartRequest(t, without("body-mime"), false), 1 << 20, mail.ErrMalformed},
		{"too large multipart", multipartRequest(t, good(), false), 512, mail.ErrTooLarge},
		{"too large urlencoded", urlencodedRequest(good()), 512, mail.ErrTooLarge},
		{"too large multipart, chunked", chunked(multipartRequest(t, good(), false)), 512, mail.ErrTooLarge},
		{"too large urlencoded, chunked", chunked(urlencodedRequest(good())), 512, mail.ErrTooLarge},
	}
	for _, c := range cases {
		_, _, err := mail.DecodeMailgunForm(c.req, mailgunKey, webhookNow, 5*time.Minute, c.max)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: err = %v, want %v", c.name, err, c.want)
		}
	}
	r := httptest.NewRequest(http.MethodPost, "/inbound/mailgun", strings.NewReader(`{"a":1}`))
	r.Header.Set("Content-Type", "application/json")
	if _, _, err := mail.DecodeMailgunForm(r, mailgunKey, webhookNow, 0, 0); !errors.Is(err, mail.ErrMalformed) {
		t.Errorf("json body: %v", err)
	}
	r = httptest.NewRequest(http.MethodPost, "/inbound/mailgun", strings.NewReader("x"))
	if _, _, err := mail.DecodeMailgunForm(r, mailgunKey, webhookNow, 0, 0); !errors.Is(err, mail.ErrMalformed) {
		t.Errorf("no content type: %v", err)
	}
	if _, _, err := mail.DecodeMailgunForm(multipartRequest(t, good(), false), nil, webhookNow, 0, 0); !errors.Is(err, mail.ErrBadSignature) {
		t.Errorf("no key configured: %v", err)
	}
}

// chunked makes r look like a request without Content-Length, so only the
// reader-side limit can catch an oversize body.
func chunked(r *http.Request) *http.Request {
	r.ContentLength = -1
	return r
}

// tokenSet is the caller's side of replay protection: Mailgun tokens seen
// inside the replay window (the API keeps them in Postgres with a unique
// constraint).
type tokenSet struct {
	mu   sync.Mutex
	seen map[string]bool
}

func (s *tokenSet) claim(token string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.seen[token] {
		return false
	}
	s.seen[token] = true
	return true
}

func TestDecodeMailgunFormReplayedToken(t *testing.T) {
	t.Parallel()
	fields := mailgunFields(t, mailgunKey, webhookNow, "replay-me", string(readEML(t, "plain.eml")))
	seen := &tokenSet{seen: map[string]bool{}}
	for i, wantFresh := range []bool{true, false} {
		// A captured request replayed verbatim inside the window still
		// verifies; the returned token is what lets the caller reject it.
		_, token, err := mail.DecodeMailgunForm(multipartRequest(t, fields, false), mailgunKey, webhookNow.Add(time.Duration(i)*time.Minute), 5*time.Minute, 0)
		if err != nil {
			t.Fatal(err)
		}
		if fresh := seen.claim(token); fresh != wantFresh {
			t.Fatalf("delivery %d: fresh = %v, want %v", i+1, fresh, wantFresh)
		}
	}
}
