package mail

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Headers of the raw-MIME webhook (DESIGN.md "Email", In).
const (
	// HeaderTimestamp carries the signing time in unix seconds.
	HeaderTimestamp = "X-Foiaflow-Timestamp"
	// HeaderSignature carries "sha256=<hex HMAC-SHA256(secret, timestamp + "." + body)>".
	HeaderSignature = "X-Foiaflow-Signature"
)

// DefaultReplayWindow is used when a caller passes a window <= 0.
const DefaultReplayWindow = 5 * time.Minute

const signaturePrefix = "sha256="

// SignRaw returns the HeaderTimestamp and HeaderSignature values for body
// signed at ts (the client side of VerifyRawSignature; used by the demo and
// tests).
func SignRaw(secret []byte, ts time.Time, body []byte) (timestampHeader, signatureHeader string) {
	timestampHeader = strconv.FormatInt(ts.Unix(), 10)
	return timestampHeader, signaturePrefix + hex.EncodeToString(rawMAC(secret, timestampHeader, body))
}

func rawMAC(secret []byte, ts string, body []byte) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(ts))
	m.Write([]byte{'.'})
	m.Write(body)
	return m.Sum(nil)
}

// VerifyRawSignature authenticates a raw-MIME webhook request: the
// signature header must be "sha256=" + hex(HMAC-SHA256(secret, timestamp +
// "." + body)) (compared in constant time), and the timestamp (unix
// seconds) must be within window of now, in the past or the future
// (window <= 0 means DefaultReplayWindow). Errors: ErrBadSignature (empty
// secret, missing or undecodable header, mismatch), ErrStale (signature
// good, timestamp outside the window). The body is deduplicated by
// Message-ID downstream, which covers replays inside the window.
func VerifyRawSignature(secret []byte, timestampHeader, signatureHeader string, body []byte, now time.Time, window time.Duration) error {
	if len(secret) == 0 {
		return fmt.Errorf("%w: no secret configured", ErrBadSignature)
	}
	ts := strings.TrimSpace(timestampHeader)
	sig, ok := strings.CutPrefix(strings.TrimSpace(signatureHeader), signaturePrefix)
	if ts == "" || !ok {
		return fmt.Errorf("%w: missing %s or %s", ErrBadSignature, HeaderTimestamp, HeaderSignature)
	}
	got, err := hex.DecodeString(sig)
	if err != nil {
		return fmt.Errorf("%w: signature is not hex", ErrBadSignature)
	}
	if !hmac.Equal(got, rawMAC(secret, ts, body)) {
		return fmt.Errorf("%w: mismatch", ErrBadSignature)
	}
	return checkWindow(ts, now, window)
}

// checkWindow returns ErrStale unless ts (unix seconds) is within window of
// now in either direction.
func checkWindow(ts string, now time.Time, window time.Duration) error {
	if window <= 0 {
		window = DefaultReplayWindow
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return fmt.Errorf("%w: timestamp %q is not unix seconds", ErrStale, ts)
	}
	skew := now.Sub(time.Unix(sec, 0))
	if skew > window || skew < -window {
		return fmt.Errorf("%w: timestamp %d is %s from now", ErrStale, sec, skew.Round(time.Second))
	}
	return nil
}

// Mailgun inbound-route form fields ("store and notify" / forward with raw
// MIME).
const (
	mailgunBodyMIME  = "body-mime"
	mailgunTimestamp = "timestamp"
	mailgunToken     = "token"
	mailgunSignature = "signature"
)

// DecodeMailgunForm reads a Mailgun inbound webhook (multipart/form-data or
// application/x-www-form-urlencoded) with at most maxBytes of body (<= 0
// means DefaultMaxMessageBytes plus 1 MiB of form overhead), verifies
// signature = hex(HMAC-SHA256(signingKey, timestamp + token)) in constant
// time and the timestamp against now ± window (window <= 0 means
// DefaultReplayWindow), and returns the raw MIME of field body-mime (a
// field or a file part) and Mailgun's token. Callers must reject a token
// they have already seen (replay inside the window).
//
// Errors: ErrTooLarge (body over maxBytes), ErrMalformed (unsupported
// content type, unparseable form, missing field), ErrBadSignature, ErrStale.
// r.Body is consumed and replaced by a size-limited reader.
func DecodeMailgunForm(r *http.Request, signingKey []byte, now time.Time, window time.Duration, maxBytes int64) (raw []byte, token string, err error) {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxMessageBytes + 1<<20
	}
	if len(signingKey) == 0 {
		return nil, "", fmt.Errorf("%w: no signing key configured", ErrBadSignature)
	}
	if r.Body == nil {
		return nil, "", fmt.Errorf("%w: no body", ErrMalformed)
	}
	if r.ContentLength > maxBytes {
		return nil, "", fmt.Errorf("%w: body is %d bytes, limit %d", ErrTooLarge, r.ContentLength, maxBytes)
	}
	body := &limitedBody{ReadCloser: http.MaxBytesReader(nil, r.Body, maxBytes)}
	r.Body = body
	fields, err := readForm(r, maxBytes)
	if body.exceeded {
		return nil, "", fmt.Errorf("%w: body over %d bytes", ErrTooLarge, maxBytes)
	}
	if err != nil {
		return nil, "", err
	}
	ts, token, sig := fields[mailgunTimestamp], fields[mailgunToken], fields[mailgunSignature]
	if ts == "" || token == "" || sig == "" {
		return nil, "", fmt.Errorf("%w: missing timestamp, token or signature", ErrBadSignature)
	}
	got, err := hex.DecodeString(sig)
	if err != nil {
		return nil, "", fmt.Errorf("%w: signature is not hex", ErrBadSignature)
	}
	m := hmac.New(sha256.New, signingKey)
	m.Write([]byte(ts + token))
	if !hmac.Equal(got, m.Sum(nil)) {
		return nil, "", fmt.Errorf("%w: mismatch", ErrBadSignature)
	}
	if err := checkWindow(ts, now, window); err != nil {
		return nil, "", err
	}
	mimeBody := fields[mailgunBodyMIME]
	if mimeBody == "" {
		return nil, "", fmt.Errorf("%w: missing %s", ErrMalformed, mailgunBodyMIME)
	}
	return []byte(mimeBody), token, nil
}

// limitedBody remembers that the size limit was hit: the multipart reader
// does not always wrap the *http.MaxBytesError it got.
type limitedBody struct {
	io.ReadCloser
	exceeded bool
}

func (b *limitedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		b.exceeded = true
	}
	return n, err
}

// readForm parses the request form and returns the four Mailgun fields.
func readForm(r *http.Request, maxBytes int64) (map[string]string, error) {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil {
		return nil, fmt.Errorf("%w: content type: %w", ErrMalformed, err)
	}
	switch mt {
	case "multipart/form-data":
		err = r.ParseMultipartForm(maxBytes)
	case "application/x-www-form-urlencoded":
		err = r.ParseForm()
	default:
		return nil, fmt.Errorf("%w: unsupported content type %q", ErrMalformed, mt)
	}
	if r.MultipartForm != nil {
		defer r.MultipartForm.RemoveAll()
	}
	if err != nil {
		return nil, formError(err)
	}
	fields := map[string]string{}
	for _, k := range []string{mailgunBodyMIME, mailgunTimestamp, mailgunToken, mailgunSignature} {
		fields[k] = r.PostFormValue(k)
	}
	if fields[mailgunBodyMIME] == "" && r.MultipartForm != nil && len(r.MultipartForm.File[mailgunBodyMIME]) > 0 {
		f, err := r.MultipartForm.File[mailgunBodyMIME][0].Open()
		if err != nil {
			return nil, fmt.Errorf("%w: %s file: %w", ErrMalformed, mailgunBodyMIME, err)
		}
		defer f.Close()
		b, err := io.ReadAll(io.LimitReader(f, maxBytes))
		if err != nil {
			return nil, fmt.Errorf("%w: %s file: %w", ErrMalformed, mailgunBodyMIME, err)
		}
		fields[mailgunBodyMIME] = string(b)
	}
	return fields, nil
}

func formError(err error) error {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) || errors.Is(err, multipart.ErrMessageTooLarge) ||
		strings.Contains(err.Error(), "too large") {
		return fmt.Errorf("%w: form: %w", ErrTooLarge, err)
	}
	return fmt.Errorf("%w: form: %w", ErrMalformed, err)
}
