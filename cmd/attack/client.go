package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/foiaflow/foiaflow/cmd/internal/fleet"
	"github.com/foiaflow/foiaflow/mail"
)

// hit is one HTTP exchange of the attack and how it ended.
type hit struct {
	label      string
	status     int // 0: no answer (connection error)
	took       time.Duration
	retryAfter string
	pgDown     bool // sent while Postgres was stopped
	err        error
}

// client sends every request of the attack and records its outcome, so
// server errors are counted over all of them.
type client struct {
	fc     *fleet.Client
	pgDown atomic.Bool
	mu     sync.Mutex
	hits   []hit
}

// answer is a recorded response.
type answer struct {
	status int
	body   []byte
	header http.Header
}

// send performs req (built afresh by the caller) and records it under label.
func (c *client) send(req *http.Request, label string) (answer, error) {
	down := c.pgDown.Load()
	start := time.Now()
	resp, err := c.fc.HTTP.Do(req)
	h := hit{label: label, pgDown: down}
	var a answer
	if err == nil {
		a.body, _ = io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		a.status, a.header = resp.StatusCode, resp.Header
		h.status, h.retryAfter = resp.StatusCode, resp.Header.Get("Retry-After")
	}
	h.took, h.err = time.Since(start), err
	c.mu.Lock()
	c.hits = append(c.hits, h)
	c.mu.Unlock()
	return a, err
}

// json sends a JSON request with the admin key.
func (c *client) json(ctx context.Context, method, path string, body any, hdr map[string]string, label string) (answer, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return answer{}, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.fc.Base+path, rd)
	if err != nil {
		return answer{}, err
	}
	req.Header.Set("Authorization", "Bearer "+c.fc.Key)
	req.Header.Set("Content-Type", "application/json")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	return c.send(req, label)
}

// mustJSON is json for the harness's own setup calls: anything but 2xx is
// an error.
func (c *client) mustJSON(ctx context.Context, method, path string, body, out any, hdr map[string]string) error {
	a, err := c.json(ctx, method, path, body, hdr, "setup "+method+" "+path)
	if err != nil {
		return err
	}
	if a.status/100 != 2 {
		return fmt.Errorf("%s %s: %d %s", method, path, a.status, a.body)
	}
	if out != nil {
		return json.Unmarshal(a.body, out)
	}
	return nil
}

// receipt is the webhook's answer to an accepted delivery.
type receipt struct {
	RawMessageID int64  `json:"raw_message_id"`
	SHA256       string `json:"sha256"`
}

// postRaw posts raw MIME to the signed webhook (signed afresh).
func (c *client) postRaw(ctx context.Context, raw []byte, label string) (answer, receipt, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.fc.Base+"/v1/inbound/email", bytes.NewReader(raw))
	if err != nil {
		return answer{}, receipt{}, err
	}
	ts, sig := mail.SignRaw(c.fc.Secret, time.Now(), raw)
	req.Header.Set("Content-Type", "message/rfc822")
	req.Header.Set(mail.HeaderTimestamp, ts)
	req.Header.Set(mail.HeaderSignature, sig)
	a, err := c.send(req, label)
	var rc receipt
	if err == nil && a.status/100 == 2 {
		err = json.Unmarshal(a.body, &rc)
	}
	return a, rc, err
}

// serverErrors lists the exchanges that count as server errors: a 5xx, or
// no answer at all, except a 503 with Retry-After within limit while
// Postgres was down. Labels in dropOK may end with a dropped connection
// (the server closes an oversized upload after answering).
func serverErrors(hits []hit, limit time.Duration, dropOK func(label string) bool) []string {
	var out []string
	for _, h := range hits {
		switch {
		case h.status == 0 && dropOK(h.label):
		case h.status == 0:
			out = append(out, fmt.Sprintf("%s: no answer after %s: %v", h.label, h.took.Round(time.Millisecond), h.err))
		case h.status == http.StatusServiceUnavailable && h.pgDown && h.retryAfter != "" && h.took <= limit:
		case h.status >= 500:
			out = append(out, fmt.Sprintf("%s: %d after %s (Retry-After %q, postgres down %v)", h.label, h.status,
				h.took.Round(time.Millisecond), h.retryAfter, h.pgDown))
		}
	}
	return out
}

// isOversizeLabel: oversized uploads may see the connection closed.
func isOversizeLabel(label string) bool { return strings.HasPrefix(label, "oversize") }
