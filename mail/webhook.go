package mail

import (
	"bufio"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/foiaflow/foiaflow/blobstore"
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

// SpoolSignedRaw is VerifyRawSignature for a request body that is never
// held in memory: the body is streamed to a temporary file in dir (at most
// maxBytes; one byte more is ErrTooLarge) while its HMAC and SHA-256 are
// computed, then the signature and the timestamp are checked. The caller
// closes the result (which removes the file). A request without a secret or
// signature headers is refused before its body is read.
func SpoolSignedRaw(body io.Reader, secret []byte, timestampHeader, signatureHeader string, now time.Time,
	window time.Duration, maxBytes int64, dir string) (*blobstore.Spooled, error) {
	if len(secret) == 0 {
		return nil, fmt.Errorf("%w: no secret configured", ErrBadSignature)
	}
	ts := strings.TrimSpace(timestampHeader)
	sig, ok := strings.CutPrefix(strings.TrimSpace(signatureHeader), signaturePrefix)
	if ts == "" || !ok {
		return nil, fmt.Errorf("%w: missing %s or %s", ErrBadSignature, HeaderTimestamp, HeaderSignature)
	}
	got, err := hex.DecodeString(sig)
	if err != nil {
		return nil, fmt.Errorf("%w: signature is not hex", ErrBadSignature)
	}
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(ts))
	m.Write([]byte{'.'})
	sp, err := blobstore.Spool(dir, body, maxBytes, m)
	if err != nil {
		return nil, spoolError(err, maxBytes)
	}
	if !hmac.Equal(got, m.Sum(nil)) {
		sp.Close()
		return nil, fmt.Errorf("%w: mismatch", ErrBadSignature)
	}
	if err := checkWindow(ts, now, window); err != nil {
		sp.Close()
		return nil, err
	}
	return sp, nil
}

// spoolError maps a failed spool: over the limit is ErrTooLarge, a body
// that broke off is ErrMalformed, anything else (disk) is returned as is.
func spoolError(err error, maxBytes int64) error {
	var tooBig *http.MaxBytesError
	switch {
	case errors.Is(err, blobstore.ErrTooLarge), errors.As(err, &tooBig):
		return fmt.Errorf("%w: body over %d bytes", ErrTooLarge, maxBytes)
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, http.ErrBodyReadAfterClose):
		return fmt.Errorf("%w: body: %w", ErrMalformed, err)
	}
	return fmt.Errorf("spool body: %w", err)
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

// DecodeMailgunForm is SpoolMailgunForm returning body-mime in memory (tests
// and callers that already bound the size).
func DecodeMailgunForm(r *http.Request, signingKey []byte, now time.Time, window time.Duration, maxBytes int64) (raw []byte, token string, err error) {
	sp, token, err := SpoolMailgunForm(r, signingKey, now, window, maxBytes, "")
	if err != nil {
		return nil, "", err
	}
	defer sp.Close()
	raw, err = sp.Bytes()
	return raw, token, err
}

// SpoolMailgunForm reads a Mailgun inbound webhook (multipart/form-data or
// application/x-www-form-urlencoded) as a stream: field body-mime (a field
// or a file part) goes to a temporary file in dir (os.TempDir when empty),
// the other fields are read up to 1 KiB each, and at most maxBytes of body
// are read in all (<= 0 means DefaultMaxMessageBytes plus 1 MiB of form
// overhead). It then verifies signature = hex(HMAC-SHA256(signingKey,
// timestamp + token)) in constant time and the timestamp against now ±
// window (window <= 0 means DefaultReplayWindow), and returns the spooled
// raw MIME (the caller closes it) and Mailgun's token. Callers must reject
// a token they have already seen (replay inside the window).
//
// Errors: ErrTooLarge (body over maxBytes), ErrMalformed (unsupported
// content type, unparseable form, missing field), ErrBadSignature, ErrStale.
func SpoolMailgunForm(r *http.Request, signingKey []byte, now time.Time, window time.Duration, maxBytes int64, dir string) (*blobstore.Spooled, string, error) {
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
	f := formFields{dir: dir, max: maxBytes, values: map[string]string{}}
	err := f.read(r.Header.Get("Content-Type"), body)
	if body.exceeded {
		err = fmt.Errorf("%w: body over %d bytes", ErrTooLarge, maxBytes)
	}
	if err != nil {
		f.close()
		return nil, "", err
	}
	sp, err := f.verify(signingKey, now, window)
	if err != nil {
		f.close()
		return nil, "", err
	}
	return sp, f.values[mailgunToken], nil
}

// maxFormField bounds a Mailgun field other than body-mime.
const maxFormField = 1 << 10

// formFields collects the Mailgun fields of one request.
type formFields struct {
	dir    string
	max    int64
	values map[string]string
	mime   *blobstore.Spooled
}

func (f *formFields) close() {
	if f.mime != nil {
		f.mime.Close()
	}
}

func (f *formFields) verify(signingKey []byte, now time.Time, window time.Duration) (*blobstore.Spooled, error) {
	ts, token, sig := f.values[mailgunTimestamp], f.values[mailgunToken], f.values[mailgunSignature]
	if ts == "" || token == "" || sig == "" {
		return nil, fmt.Errorf("%w: missing timestamp, token or signature", ErrBadSignature)
	}
	got, err := hex.DecodeString(sig)
	if err != nil {
		return nil, fmt.Errorf("%w: signature is not hex", ErrBadSignature)
	}
	m := hmac.New(sha256.New, signingKey)
	m.Write([]byte(ts + token))
	if !hmac.Equal(got, m.Sum(nil)) {
		return nil, fmt.Errorf("%w: mismatch", ErrBadSignature)
	}
	if err := checkWindow(ts, now, window); err != nil {
		return nil, err
	}
	if f.mime == nil || f.mime.Size == 0 {
		return nil, fmt.Errorf("%w: missing %s", ErrMalformed, mailgunBodyMIME)
	}
	return f.mime, nil
}

// field stores one form field: body-mime is spooled (the first one wins),
// the other Mailgun fields are kept up to maxFormField bytes, anything else
// is read and dropped.
func (f *formFields) field(name string, r io.Reader) error {
	switch name {
	case mailgunBodyMIME:
		if f.mime != nil {
			_, err := io.Copy(io.Discard, r)
			return err
		}
		sp, err := blobstore.Spool(f.dir, r, f.max)
		if err != nil {
			return spoolError(err, f.max)
		}
		f.mime = sp
		return nil
	case mailgunTimestamp, mailgunToken, mailgunSignature:
		b, err := io.ReadAll(io.LimitReader(r, maxFormField+1))
		if err != nil {
			return err
		}
		if len(b) > maxFormField {
			return fmt.Errorf("%w: field %s over %d bytes", ErrMalformed, name, maxFormField)
		}
		if _, seen := f.values[name]; !seen {
			f.values[name] = string(b)
		}
		return nil
	}
	_, err := io.Copy(io.Discard, r)
	return err
}

// read parses the form body of content type ct.
func (f *formFields) read(ct string, body io.Reader) error {
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil {
		return fmt.Errorf("%w: content type: %w", ErrMalformed, err)
	}
	switch mt {
	case "multipart/form-data":
		if params["boundary"] == "" {
			return fmt.Errorf("%w: form: no multipart boundary", ErrMalformed)
		}
		mr := multipart.NewReader(body, params["boundary"])
		for {
			p, err := mr.NextPart()
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return formError(err)
			}
			if err := f.field(p.FormName(), p); err != nil {
				return formError(err)
			}
		}
	case "application/x-www-form-urlencoded":
		return f.readURLEncoded(bufio.NewReader(body))
	}
	return fmt.Errorf("%w: unsupported content type %q", ErrMalformed, mt)
}

// readURLEncoded streams key=value pairs separated by '&', decoding each
// value as it is read (body-mime may be megabytes).
func (f *formFields) readURLEncoded(br *bufio.Reader) error {
	for {
		key, err := readKey(br)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return formError(err)
		}
		v := &urlValue{br: br}
		if err := f.field(key, v); err != nil {
			return formError(err)
		}
		if v.err != nil && v.err != io.EOF {
			return formError(v.err)
		}
		if v.err == io.EOF {
			return nil
		}
	}
}

// readKey reads a form key up to '=' (at most 128 bytes); a key ending at
// '&' or EOF has an empty value.
func readKey(br *bufio.Reader) (string, error) {
	var b []byte
	for {
		c, err := br.ReadByte()
		if err == io.EOF && len(b) > 0 {
			return unescapeKey(b)
		}
		if err != nil {
			return "", err
		}
		switch {
		case c == '=':
			return unescapeKey(b)
		case c == '&' && len(b) == 0:
			continue
		case c == '&':
			_ = br.UnreadByte()
			return unescapeKey(b)
		case len(b) >= 128:
			return "", fmt.Errorf("%w: form key over 128 bytes", ErrMalformed)
		}
		b = append(b, c)
	}
}

func unescapeKey(b []byte) (string, error) {
	k, err := url.QueryUnescape(string(b))
	if err != nil {
		return "", fmt.Errorf("%w: form key: %w", ErrMalformed, err)
	}
	return k, nil
}

// urlValue reads one percent-encoded value up to the next '&' (consumed)
// or the end of the body, decoding '+' and %XX.
type urlValue struct {
	br  *bufio.Reader
	err error // io.EOF: the body ended with this value
	end bool
}

func (v *urlValue) Read(p []byte) (int, error) {
	if v.end {
		return 0, io.EOF
	}
	n := 0
	for n < len(p) {
		c, err := v.br.ReadByte()
		if err != nil {
			v.err, v.end = err, true
			if err == io.EOF {
				return n, io.EOF
			}
			return n, err
		}
		switch c {
		case '&':
			v.end = true
			return n, io.EOF
		case '+':
			c = ' '
		case '%':
			var hx [2]byte
			if _, err := io.ReadFull(v.br, hx[:]); err != nil {
				v.err, v.end = fmt.Errorf("%w: truncated %%-escape", ErrMalformed), true
				return n, v.err
			}
			d, err := hex.DecodeString(string(hx[:]))
			if err != nil {
				v.err, v.end = fmt.Errorf("%w: bad %%-escape", ErrMalformed), true
				return n, v.err
			}
			c = d[0]
		}
		p[n] = c
		n++
	}
	return n, nil
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

func formError(err error) error {
	var tooBig *http.MaxBytesError
	switch {
	case errors.Is(err, ErrTooLarge), errors.Is(err, ErrMalformed):
		return err
	case errors.As(err, &tooBig) || errors.Is(err, multipart.ErrMessageTooLarge) || strings.Contains(err.Error(), "too large"):
		return fmt.Errorf("%w: form: %w", ErrTooLarge, err)
	}
	return fmt.Errorf("%w: form: %w", ErrMalformed, err)
}
