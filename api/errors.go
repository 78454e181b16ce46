package api

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/foiaflow/foiaflow/mail"
	"github.com/foiaflow/foiaflow/store"
)

// Error is an API error: an HTTP status and a stable machine-readable code
// (openapi.json lists them per route), plus a human message.
type Error struct {
	Status  int
	Code    string
	Message string
}

func (e *Error) Error() string { return fmt.Sprintf("%s (%d): %s", e.Code, e.Status, e.Message) }

// apiErr builds an *Error.
func apiErr(status int, code, format string, args ...any) *Error {
	return &Error{Status: status, Code: code, Message: fmt.Sprintf(format, args...)}
}

// domainErrors is the one table mapping domain sentinel errors to statuses
// and codes (STYLE.md §4). The first match wins; anything else is a 500.
var domainErrors = []struct {
	err    error
	status int
	code   string
}{
	{store.ErrNotFound, http.StatusNotFound, "not_found"},
	{store.ErrConflict, http.StatusConflict, "conflict"},
	{mail.ErrTooLarge, http.StatusRequestEntityTooLarge, "body_too_large"},
	{mail.ErrMalformed, http.StatusBadRequest, "malformed_message"},
	{mail.ErrBadSignature, http.StatusUnauthorized, "bad_signature"},
	{mail.ErrStale, http.StatusUnauthorized, "stale_webhook"},
}

// toAPIError classifies err: an *Error is kept, a domain sentinel is looked
// up in domainErrors, anything else is internal (its text is logged, not
// returned).
func toAPIError(err error) (*Error, bool) {
	var ae *Error
	if errors.As(err, &ae) {
		return ae, true
	}
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return apiErr(http.StatusRequestEntityTooLarge, "body_too_large", "request body over %d bytes", tooBig.Limit), true
	}
	for _, d := range domainErrors {
		if errors.Is(err, d.err) {
			return &Error{Status: d.status, Code: d.code, Message: err.Error()}, true
		}
	}
	return &Error{Status: http.StatusInternalServerError, Code: "internal", Message: "internal error"}, false
}

// Errors used by several handlers.
var (
	errUnauthorized = apiErr(http.StatusUnauthorized, "unauthorized", "a valid API key is required (Authorization: Bearer <key>)")
	errForbidden    = apiErr(http.StatusForbidden, "forbidden", "this API key's role may not do this")
	errCaseNotFound = apiErr(http.StatusNotFound, "case_not_found", "no such case")
)

// errorBody is the one error shape of the API.
type errorBody struct {
	Error errorDetail `json:"error"`
}

type errorDetail struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}
