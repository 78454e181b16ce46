package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/foiaflow/foiaflow/mail"
)

// client talks to the foiaflow API and retries as a real client does:
// connection errors and 5xx are retried with the same body and the same
// Idempotency-Key; 4xx is final.
type client struct {
	base, key string
	secret    []byte
	http      *http.Client
	retries   atomic.Int64
}

// httpStatusError is a final (non-retried) non-2xx answer.
type httpStatusError struct {
	status int
	body   string
}

func (e *httpStatusError) Error() string { return fmt.Sprintf("HTTP %d: %s", e.status, e.body) }

// statusOf returns the HTTP status of a final error, or 0.
func statusOf(err error) int {
	var he *httpStatusError
	if errors.As(err, &he) {
		return he.status
	}
	return 0
}

// retryBudget bounds how long one logical request is retried (a Postgres
// restart takes a few seconds).
const retryBudget = 60 * time.Second

// doJSON sends a JSON request until it gets a final answer.
func (c *client) doJSON(ctx context.Context, method, path string, body, out any, hdr map[string]string) error {
	var b []byte
	if body != nil {
		var err error
		if b, err = json.Marshal(body); err != nil {
			return err
		}
	}
	return c.retry(ctx, func() (*http.Request, error) {
		req, err := http.NewRequestWithContext(ctx, method, c.base+path, bytes.NewReader(b))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Authorization", "Bearer "+c.key)
		req.Header.Set("Content-Type", "application/json")
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		return req, nil
	}, out)
}

// postMIME posts raw RFC 5322 to the signed inbound webhook; each attempt is
// signed afresh (the signature carries a timestamp), the Message-ID is the
// same, so a retry is a webhook redelivery.
func (c *client) postMIME(ctx context.Context, raw []byte, out any) error {
	return c.retry(ctx, func() (*http.Request, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+"/v1/inbound/email", bytes.NewReader(raw))
		if err != nil {
			return nil, err
		}
		ts, sig := mail.SignRaw(c.secret, time.Now(), raw)
		req.Header.Set("Content-Type", "message/rfc822")
		req.Header.Set(mail.HeaderTimestamp, ts)
		req.Header.Set(mail.HeaderSignature, sig)
		return req, nil
	}, out)
}

func (c *client) retry(ctx context.Context, build func() (*http.Request, error), out any) error {
	deadline := time.Now().Add(retryBudget)
	backoff := 100 * time.Millisecond
	for attempt := 0; ; attempt++ {
		req, err := build()
		if err != nil {
			return err
		}
		status, body, err := c.once(req)
		switch {
		case err == nil && status/100 == 2:
			if out != nil {
				return json.Unmarshal(body, out)
			}
			return nil
		case err == nil && status < 500:
			return &httpStatusError{status: status, body: string(body)}
		case err == nil:
			err = &httpStatusError{status: status, body: string(body)}
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("%s %s: giving up after %d attempts: %w", req.Method, req.URL.Path, attempt+1, err)
		}
		c.retries.Add(1)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 2*time.Second)
	}
}

func (c *client) once(req *http.Request) (int, []byte, error) {
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}
