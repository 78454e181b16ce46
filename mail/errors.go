package mail

import "errors"

// Sentinel errors of this package. Every error returned by ParseMIME,
// VerifyRawSignature, DecodeMailgunForm and BuildMessage wraps exactly one
// of them, so the API can map them to HTTP statuses in one table
// (ErrTooLarge → 413, ErrMalformed and ErrInvalidOutbound → 400,
// ErrBadSignature → 401, ErrStale → 401 or 409).
var (
	// ErrTooLarge: the input exceeds the caller's byte limit (DESIGN.md I8).
	ErrTooLarge = errors.New("mail: input too large")
	// ErrMalformed: the input is not a usable message or form.
	ErrMalformed = errors.New("mail: malformed input")
	// ErrBadSignature: a webhook signature is missing or does not verify.
	ErrBadSignature = errors.New("mail: bad webhook signature")
	// ErrStale: a webhook timestamp is outside the replay window (past or
	// future).
	ErrStale = errors.New("mail: webhook timestamp outside replay window")
	// ErrInvalidOutbound: an Outbound lacks a required field or carries a
	// value that cannot go into a header.
	ErrInvalidOutbound = errors.New("mail: invalid outbound message")
)
