package mail_test

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/foiaflow/foiaflow/mail"
)

// testIDs mints ids under a fixed test secret.
var testIDs = mustIDs("0123456789abcdef0123456789abcdef", "foiaflow.org")

func mustIDs(secret, domain string) mail.IDs {
	ids, err := mail.NewIDs([]byte(secret), domain)
	if err != nil {
		panic(err)
	}
	return ids
}

func TestIDsMessageIDDeterministicAndKeyed(t *testing.T) {
	t.Parallel()
	key := "exec:42:initial:42:SEND_INITIAL_REQUEST:1:v1"
	a := testIDs.MessageID(key)
	if a != mustIDs("0123456789abcdef0123456789abcdef", "FOIAFLOW.org").MessageID(key) {
		t.Fatal("not deterministic (I4/I5: a resend must reuse the Message-ID)")
	}
	if a == testIDs.MessageID("exec:42:initial:42:SEND_INITIAL_REQUEST:1:v2") {
		t.Fatal("different keys, same id")
	}
	if len(a) != len("<")+32+len("@foiaflow.org>") || !strings.HasPrefix(a, "<") || !strings.HasSuffix(a, "@foiaflow.org>") {
		t.Fatalf("shape %q", a)
	}
	if mail.NormalizeMessageID(a) != a {
		t.Fatal("not normalized")
	}
	// Issue 10: the old scheme (SHA-256 of the execution key) let anyone
	// compute the In-Reply-To of a case from its number.
	sum := sha256.Sum256([]byte(key))
	if strings.Contains(a, hex.EncodeToString(sum[:16])) {
		t.Fatal("Message-ID is the unkeyed hash of the execution key")
	}
	if a == mustIDs("another secret of at least 32 bytes!", "foiaflow.org").MessageID(key) {
		t.Fatal("Message-ID does not depend on the secret")
	}
}

func TestIDsReplyToken(t *testing.T) {
	t.Parallel()
	tok := testIDs.ReplyToken(42)
	if tok != testIDs.ReplyToken(42) || tok == testIDs.ReplyToken(43) {
		t.Fatalf("reply token not deterministic per case: %q", tok)
	}
	if len(tok) != 32 || strings.Trim(tok, "0123456789abcdef") != "" {
		t.Fatalf("token %q is not 32 lower-case hex digits", tok)
	}
	// A token round-trips through its reply address.
	got, ok := mail.TokenFromAddresses([]string{"Records <" + mail.ReplyAddress(tok, "foiaflow.org") + ">"}, "foiaflow.org")
	if !ok || got != tok {
		t.Fatalf("TokenFromAddresses = %q %v", got, ok)
	}
	// Reply tokens and Message-IDs are separate purposes.
	if strings.Contains(testIDs.MessageID("42"), tok) {
		t.Fatal("reply token equals a Message-ID local part")
	}
}

func TestNewIDsRejectsWeakConfig(t *testing.T) {
	t.Parallel()
	if _, err := mail.NewIDs([]byte("short"), "foiaflow.org"); err == nil {
		t.Fatal("short secret accepted")
	}
	if _, err := mail.NewIDs([]byte(strings.Repeat("s", 32)), "bad domain>"); err == nil {
		t.Fatal("bad domain accepted")
	}
}
