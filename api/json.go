package api

import (
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
// rejecting unknown fields and trailing data. Errors: 413 body_too_large,
// 400 invalid_json.
func decodeJSON(w http.ResponseWriter, r *http.Request, dst any) error {
	r.Body = http.MaxBytesReader(w, r.Body, maxJSONBytes)
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return err
		}
		if errors.Is(err, io.EOF) {
			return apiErr(http.StatusBadRequest, "invalid_json", "request body is empty")
		}
		return apiErr(http.StatusBadRequest, "invalid_json", "request body: %v", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return err
		}
		return apiErr(http.StatusBadRequest, "invalid_json", "request body has data after the JSON object")
	}
	return nil
}

// writeJSON writes v with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
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
