package mail

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
)

// MinIDSecretBytes is the shortest secret NewIDs accepts (256 bits).
const MinIDSecretBytes = 32

// IDs mints the identifiers of outbound mail that an outsider must not be
// able to compute (issue 10, "Matching you can trust"): Message-IDs from
// execution keys and per-case reply tokens from case ids. Each is the
// HMAC-SHA-256 of its input under the server secret (MAIL_ID_SECRET),
// truncated to 128 bits and written as 32 lower-case hex digits. Both are
// deterministic (I4, I5: a resend after a crash reuses the Message-ID),
// yet knowing a case number or an execution key is not enough to forge a
// reply that names one of our Message-IDs or reply addresses.
//
// Rotating the secret changes the ids minted from then on; ids already
// stored (email_sends.message_id, cases.reply_token) keep matching because
// replies are matched by lookup, never by recomputation.
type IDs struct {
	domain string
	secret []byte
}

// NewIDs returns the minter of secret (at least MinIDSecretBytes bytes) for
// the mail domain domain (MAIL_DOMAIN, lower-cased in Message-IDs).
func NewIDs(secret []byte, domain string) (IDs, error) {
	if len(secret) < MinIDSecretBytes {
		return IDs{}, fmt.Errorf("mail: id secret is %d bytes, need at least %d", len(secret), MinIDSecretBytes)
	}
	domain = strings.ToLower(strings.TrimSpace(domain))
	if domain == "" || strings.ContainsAny(domain, "<>@ \t\r\n") {
		return IDs{}, fmt.Errorf("mail: bad mail domain %q", domain)
	}
	return IDs{domain: domain, secret: append([]byte(nil), secret...)}, nil
}

// IsZero reports whether k was not built by NewIDs.
func (k IDs) IsZero() bool { return len(k.secret) == 0 }

// MessageID returns the Message-ID of the email sent under executionKey:
// "<32 hex digits@domain>".
func (k IDs) MessageID(executionKey string) string {
	return "<" + k.mac("message-id", executionKey) + "@" + k.domain + ">"
}

// ReplyToken returns the reply token of a case, the <token> of its reply
// address requests+<token>@domain (32 lower-case hex digits).
func (k IDs) ReplyToken(caseID int64) string {
	return k.mac("reply-token", strconv.FormatInt(caseID, 10))
}

// mac is the first 128 bits of HMAC-SHA-256(secret, purpose NUL input) in
// hex; the purpose keeps the two kinds of ids apart.
func (k IDs) mac(purpose, input string) string {
	if len(k.secret) == 0 {
		panic("mail: IDs used without NewIDs")
	}
	m := hmac.New(sha256.New, k.secret)
	m.Write([]byte(purpose))
	m.Write([]byte{0})
	m.Write([]byte(input))
	return hex.EncodeToString(m.Sum(nil)[:16])
}
