package api

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/foiaflow/foiaflow/jobs"
	"github.com/foiaflow/foiaflow/mail"
	"github.com/foiaflow/foiaflow/store"
	"github.com/foiaflow/foiaflow/workflow"
)

// Error is an API error: an HTTP status and a stable machine-readable code
// (openapi.json lists them per route), plus a human message.
type Error struct {
	Status  int
	Code    string
	Message string
	// RetryAfter, when > 0, is sent as the Retry-After header (seconds).
	RetryAfter int
}

func (e *Error) Error() string { return fmt.Sprintf("%s (%d): %s", e.Code, e.Status, e.Message) }

// apiErr builds an *Error.
func apiErr(status int, code, format string, args ...any) *Error {
	return &Error{Status: status, Code: code, Message: fmt.Sprintf(format, args...)}
}

// unavailableRetryAfter is the Retry-After (seconds) of a 503 while the
// database is unreachable (a Postgres restart takes a few seconds).
const unavailableRetryAfter = 5

// domainErrors is the one table mapping domain sentinel errors to statuses
// and codes (STYLE.md §4). The first match wins; anything else is a 500.
// message, when set, replaces the error's text (which may name hosts or
// users); retryAfter sets Retry-After.
var domainErrors = []struct {
	err        error
	status     int
	code       string
	message    string
	retryAfter int
}{
	{err: store.ErrUnavailable, status: http.StatusServiceUnavailable, code: "database_unavailable",
		message: "the database is unavailable; retry later", retryAfter: unavailableRetryAfter},
	{store.ErrNotFound, http.StatusNotFound, "not_found", "", 0},
	{store.ErrConflict, http.StatusConflict, "conflict", "", 0},
	{mail.ErrTooLarge, http.StatusRequestEntityTooLarge, "body_too_large", "", 0},
	{mail.ErrMalformed, http.StatusBadRequest, "malformed_message", "", 0},
	{mail.ErrBadSignature, http.StatusUnauthorized, "bad_signature", "", 0},
	{mail.ErrStale, http.StatusUnauthorized, "stale_webhook", "", 0},
	{jobs.ErrUnknownStep, http.StatusUnprocessableEntity, "unknown_step", "", 0},
	{jobs.ErrStepNotForkable, http.StatusUnprocessableEntity, "step_not_forkable", "", 0},
	{workflow.ErrForkState, http.StatusUnprocessableEntity, "invalid_state", "", 0},
}

// toAPIError classifies err: an *Error is kept, a domain sentinel is looked
// up in domainErrors, anything else is internal (its text is logged, not
// returned). known is false for internal errors and for domain errors
// whose text is replaced, so the caller logs the cause.
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
			if d.message != "" {
				return &Error{Status: d.status, Code: d.code, Message: d.message, RetryAfter: d.retryAfter}, false
			}
			return &Error{Status: d.status, Code: d.code, Message: err.Error(), RetryAfter: d.retryAfter}, true
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
