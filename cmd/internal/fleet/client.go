package fleet

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/foiaflow/foiaflow/mail"
)

// Client talks to the foiaflow API with an API key (Bearer) and signs raw
// inbound mail with the INBOUND_RAW_SECRET.
type Client struct {
	Base, Key string
	Secret    []byte
	HTTP      *http.Client
}

// Do sends a JSON request and decodes a JSON answer into out; non-2xx is an
// error carrying the API's error body.
func (c *Client) Do(ctx context.Context, method, path string, body any, out any, hdr map[string]string) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.Base+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+c.Key)
	req.Header.Set("Content-Type", "application/json")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	return c.send(req, out)
}

func (c *Client) send(req *http.Request, out any) error {
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s: %d %s", req.Method, req.URL.Path, resp.StatusCode, b)
	}
	if out != nil {
		return json.Unmarshal(b, out)
	}
	return nil
}

// Get fetches path with the API key and returns the body as bytes (a
// download); non-2xx is an error.
func (c *Client) Get(ctx context.Context, path string) ([]byte, http.Header, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.Base+path, nil)
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.Key)
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, nil, err
	}
	if resp.StatusCode/100 != 2 {
		return nil, nil, fmt.Errorf("GET %s: %d %s", path, resp.StatusCode, b)
	}
	return b, resp.Header, nil
}

// PostMIME posts a raw RFC 5322 message to the signed inbound webhook.
func (c *Client) PostMIME(ctx context.Context, raw []byte, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.Base+"/v1/inbound/email", bytes.NewReader(raw))
	if err != nil {
		return err
	}
	ts, sig := mail.SignRaw(c.Secret, time.Now(), raw)
	req.Header.Set("Content-Type", "message/rfc822")
	req.Header.Set(mail.HeaderTimestamp, ts)
	req.Header.Set(mail.HeaderSignature, sig)
	return c.send(req, out)
}
