package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
)

// maxJSONBytes bounds every JSON request body (1 MiB, I8).
const maxJSONBytes int64 = 1 << 20

// decodeJSON reads one JSON object from the size-limited body into dst,
// rejecting unknown fields, trailing data and NUL characters (\u0000 cannot
// be stored in Postgres text and has no place in a FOIA letter). Errors:
// 413 body_too_large, 400 invalid_json, 400 invalid_field.
func decodeJSON(w http.ResponseWriter, r *http.Request, dst any) error {
	r.Body = http.MaxBytesReader(w, r.Body, maxJSONBytes)
	b, err := io.ReadAll(r.Body)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return err
		}
		return apiErr(http.StatusBadRequest, "invalid_json", "reading the request body: %v", err)
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return apiErr(http.StatusBadRequest, "invalid_json", "request body is empty")
	}
	if hasNULEscape(b) {
		return invalid("text fields may not contain NUL characters (\\u0000)")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return apiErr(http.StatusBadRequest, "invalid_json", "request body: %v", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return apiErr(http.StatusBadRequest, "invalid_json", "request body has data after the JSON object")
	}
	return nil
}

// hasNULEscape reports whether JSON text b holds a \u0000 escape (a raw NUL
// byte is invalid JSON and fails decoding): an occurrence counts when an odd
// run of backslashes precedes the "u", so an escaped backslash followed by
// "u0000" does not.
func hasNULEscape(b []byte) bool {
	for i := 0; ; {
		j := bytes.Index(b[i:], []byte(`u0000`))
		if j < 0 {
			return false
		}
		j += i
		n := 0
		for k := j - 1; k >= 0 && b[k] == '\\'; k-- {
			n++
		}
		if n%2 == 1 {
			return true
		}
		i = j + 1
	}
}

// writeJSON encodes v and writes it with status. An encoding failure (a
// value JSON cannot represent, such as a time past year 9999) writes
// nothing and is returned, so the route answers a logged 500 instead of a
// 200 with an empty body.
func writeJSON(w http.ResponseWriter, status int, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("encode %d response: %w", status, err)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
	return nil
}

// pathID parses the path value name as a positive integer id; 400
// invalid_id otherwise.
func pathID(r *http.Request, name string) (int64, error) {
	s := r.PathValue(name)
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id <= 0 {
		return 0, apiErr(http.StatusBadRequest, "invalid_id", "%s %q is not a positive integer", name, s)
	}
	return id, nil
}

// queryInt parses an optional non-negative integer query parameter, def
// when absent; 400 invalid_query otherwise.
func queryInt(r *http.Request, name string, def, max int64) (int64, error) {
	s := r.URL.Query().Get(name)
	if s == "" {
		return def, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || (max > 0 && n > max) {
		return 0, apiErr(http.StatusBadRequest, "invalid_query", "%s must be an integer in [0, %d]", name, max)
	}
	return n, nil
}

// nextCursor is the next_cursor of a page of n rows asked with limit: the
// last id (pass it as ?before=), or nil when this was the last page.
func nextCursor(n, limit int, lastID int64) *string {
	if n < limit || n == 0 {
		return nil
	}
	s := fmt.Sprint(lastID)
	return &s
}
