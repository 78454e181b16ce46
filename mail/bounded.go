package mail

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/textproto"
	"strings"
	"time"
)

// ErrLimit: a message is over one of the parse Limits (nesting depth, part
// count, header size, parse time). The message itself is kept by the
// caller: it is marked failed and a human looks at it (issue 10).
var ErrLimit = errors.New("mail: message over a parse limit")

// Limits bound the work of parsing one inbound message (issue 10, "Store
// first, parse after"). Zero fields take DefaultLimits' values.
type Limits struct {
	// MaxBytes is the largest message parsed (MESSAGE_MAX_BYTES); a larger
	// one is ErrTooLarge (kept and flagged oversize, never parsed).
	MaxBytes int64
	// MaxDepth is the deepest multipart nesting (MIME_MAX_DEPTH). Parse time
	// grows with depth × size: 1,000 levels took 25 s before this limit.
	MaxDepth int
	// MaxParts is the most MIME parts in one message (MIME_MAX_PARTS).
	MaxParts int
	// MaxHeaderBytes bounds one header section, the message's or a part's
	// (MIME_MAX_HEADER_BYTES).
	MaxHeaderBytes int
	// Timeout bounds the parse's wall time (MIME_PARSE_TIMEOUT).
	Timeout time.Duration
}

// DefaultLimits: 25 MiB, 16 levels, 500 parts, 256 KiB of header per
// section, 10 s.
var DefaultLimits = Limits{MaxBytes: DefaultMaxMessageBytes, MaxDepth: 16, MaxParts: 500, MaxHeaderBytes: 256 << 10,
	Timeout: 10 * time.Second}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits
	if l.MaxBytes > 0 {
		d.MaxBytes = l.MaxBytes
	}
	if l.MaxDepth > 0 {
		d.MaxDepth = l.MaxDepth
	}
	if l.MaxParts > 0 {
		d.MaxParts = l.MaxParts
	}
	if l.MaxHeaderBytes > 0 {
		d.MaxHeaderBytes = l.MaxHeaderBytes
	}
	if l.Timeout > 0 {
		d.Timeout = l.Timeout
	}
	return d
}

// ParseBounded is the parser of the inbound job: it checks the message's
// structure against l in one pass that stops at the first limit crossed
// (cost bounded by MaxDepth × size), then parses it with ParseMIME under
// l.Timeout. Errors: ErrTooLarge (over MaxBytes), ErrLimit (depth, parts,
// header size, or the timeout passed; a parse cut off by the timeout keeps
// running in the background until it ends, its result dropped), and
// ParseMIME's ErrMalformed. Attachments come back with their bytes in
// Inbound.Files.
func ParseBounded(ctx context.Context, raw []byte, l Limits) (Inbound, error) {
	l = l.withDefaults()
	if int64(len(raw)) > l.MaxBytes {
		return Inbound{}, fmt.Errorf("%w: message is %d bytes, limit %d", ErrTooLarge, len(raw), l.MaxBytes)
	}
	if err := CheckStructure(raw, l); err != nil {
		return Inbound{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, l.Timeout)
	defer cancel()
	type result struct {
		in  Inbound
		err error
	}
	done := make(chan result, 1)
	go func() {
		in, err := ParseMIME(raw, l.MaxBytes)
		done <- result{in, err}
	}()
	select {
	case r := <-done:
		return r.in, r.err
	case <-ctx.Done():
		return Inbound{}, fmt.Errorf("%w: parse took longer than %s", ErrLimit, l.Timeout)
	}
}

// CheckStructure walks the MIME tree of raw without decoding any content
// and returns ErrLimit when a header section is over l.MaxHeaderBytes, the
// multipart nesting is deeper than l.MaxDepth or there are more than
// l.MaxParts parts. Structure it cannot read is left to the parser (which
// is lenient), so CheckStructure only ever rejects on a limit.
func CheckStructure(raw []byte, l Limits) error {
	l = l.withDefaults()
	end := headerEnd(raw)
	if end < 0 {
		end = len(raw)
	}
	if end > l.MaxHeaderBytes {
		return fmt.Errorf("%w: header section of %d bytes, limit %d", ErrLimit, end, l.MaxHeaderBytes)
	}
	h, err := textproto.NewReader(bufio.NewReader(bytes.NewReader(raw[:min(len(raw), end+4)]))).ReadMIMEHeader()
	if err != nil && len(h) == 0 {
		return nil
	}
	w := walker{l: l, parts: 1}
	return w.body(textproto.MIMEHeader(h), bytes.NewReader(raw[min(len(raw), end):]), 0)
}

// headerEnd returns the index of the blank line ending the header section,
// or -1.
func headerEnd(raw []byte) int {
	crlf, lf := bytes.Index(raw, []byte("\r\n\r\n")), bytes.Index(raw, []byte("\n\n"))
	switch {
	case crlf < 0:
		return lf
	case lf < 0:
		return crlf
	}
	return min(crlf, lf)
}

type walker struct {
	l     Limits
	parts int
}

// body checks the body of an entity with header h at nesting depth.
func (w *walker) body(h textproto.MIMEHeader, r io.Reader, depth int) error {
	mt, params, err := mime.ParseMediaType(h.Get("Content-Type"))
	if err != nil || !strings.HasPrefix(mt, "multipart/") || params["boundary"] == "" {
		return nil
	}
	if depth+1 > w.l.MaxDepth {
		return fmt.Errorf("%w: multipart nested deeper than %d levels", ErrLimit, w.l.MaxDepth)
	}
	mr := multipart.NewReader(r, params["boundary"])
	for {
		p, err := mr.NextRawPart()
		if err != nil {
			return nil // end, or structure the parser will judge
		}
		w.parts++
		if w.parts > w.l.MaxParts {
			return fmt.Errorf("%w: more than %d MIME parts", ErrLimit, w.l.MaxParts)
		}
		if n := headerSize(p.Header); n > w.l.MaxHeaderBytes {
			return fmt.Errorf("%w: part header of %d bytes, limit %d", ErrLimit, n, w.l.MaxHeaderBytes)
		}
		if err := w.body(p.Header, p, depth+1); err != nil {
			return err
		}
	}
}

func headerSize(h textproto.MIMEHeader) int {
	n := 0
	for k, vs := range h {
		for _, v := range vs {
			n += len(k) + len(v) + 4
		}
	}
	return n
}
