package mail

import (
	"fmt"
	netmail "net/mail"
	"strings"
	"unicode/utf8"
)

// Limits of values that go into outbound headers.
const (
	// MaxSubjectBytes is the longest Subject BuildMessage renders (RFC 5322
	// §2.1.1 line limit; go-mail folds and encodes it).
	MaxSubjectBytes = 998
	// MaxAddressBytes is the longest address (RFC 5321 §4.5.3.1 path limit).
	MaxAddressBytes = 254
)

// CheckSubject returns an error wrapping ErrInvalidOutbound when s cannot
// be a Subject: a control character (CR or LF would inject headers; NUL and
// the rest of C0 and DEL are never valid; TAB is allowed), invalid UTF-8,
// or more than MaxSubjectBytes bytes. The API validates reviewer edits and
// case subjects with it before accepting them; BuildMessage checks again.
func CheckSubject(s string) error {
	switch {
	case len(s) > MaxSubjectBytes:
		return fmt.Errorf("%w: subject is %d bytes, at most %d", ErrInvalidOutbound, len(s), MaxSubjectBytes)
	case !utf8.ValidString(s):
		return fmt.Errorf("%w: subject is not valid UTF-8", ErrInvalidOutbound)
	}
	if i := strings.IndexFunc(s, func(r rune) bool { return r != '\t' && (r < 0x20 || r == 0x7f) }); i >= 0 {
		return fmt.Errorf("%w: subject contains control character %U at byte %d (CR or LF would inject headers)",
			ErrInvalidOutbound, rune(s[i]), i)
	}
	return nil
}

// CheckAddress returns an error wrapping ErrInvalidOutbound unless a is one
// bare email address ("records@agency.gov": no display name, angle
// brackets, comments or control characters) of at most MaxAddressBytes.
func CheckAddress(a string) error {
	if len(a) > MaxAddressBytes {
		return fmt.Errorf("%w: address is %d bytes, at most %d", ErrInvalidOutbound, len(a), MaxAddressBytes)
	}
	if strings.IndexFunc(a, func(r rune) bool { return r < 0x21 || r == 0x7f }) >= 0 {
		return fmt.Errorf("%w: address %q contains a space or control character", ErrInvalidOutbound, a)
	}
	p, err := netmail.ParseAddress(a)
	if err != nil || p.Name != "" || p.Address != a {
		return fmt.Errorf("%w: %q is not a bare email address", ErrInvalidOutbound, a)
	}
	return nil
}
