package mail

import (
	"net/mail"
	"strings"
	"unicode"
)

// ReplyLocalPart is the local part of every per-case reply address
// (DESIGN.md "Email": requests+<token>@domain).
const ReplyLocalPart = "requests"

// maxTokenLen bounds a reply token read from an address.
const maxTokenLen = 64

// ReplyAddress returns the per-case reply address "requests+<token>@domain",
// lower-cased (tokens are matched case-insensitively, so they should be
// generated lower-case).
func ReplyAddress(token, domain string) string {
	return strings.ToLower(ReplyLocalPart + "+" + token + "@" + domain)
}

// TokenFromAddresses returns the token of the first reply address
// "requests+<token>@domain" among addrs, and whether one was found. Each
// element may be a bare address, an address with a display name
// ("Records <requests+abc@x.org>") or a comma-separated list. Matching is
// case-insensitive and the token is returned lower-cased. Tokens are 1–64
// characters of [a-z0-9._-].
func TokenFromAddresses(addrs []string, domain string) (string, bool) {
	domain = strings.ToLower(strings.TrimSpace(domain))
	prefix := ReplyLocalPart + "+"
	for _, raw := range addrs {
		for _, a := range splitAddresses(raw) {
			local, dom, ok := strings.Cut(strings.ToLower(a), "@")
			if !ok || dom != domain || !strings.HasPrefix(local, prefix) {
				continue
			}
			if token := local[len(prefix):]; validToken(token) {
				return token, true
			}
		}
	}
	return "", false
}

// splitAddresses returns the bare addresses in s, tolerating input that
// net/mail rejects by falling back to the text between angle brackets.
func splitAddresses(s string) []string {
	if list, err := mail.ParseAddressList(s); err == nil {
		out := make([]string, len(list))
		for i, a := range list {
			out[i] = a.Address
		}
		return out
	}
	var out []string
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if i := strings.LastIndexByte(part, '<'); i >= 0 {
			part = strings.TrimSuffix(part[i+1:], ">")
		}
		if part != "" {
			out = append(out, strings.TrimSpace(part))
		}
	}
	return out
}

func validToken(t string) bool {
	if t == "" || len(t) > maxTokenLen {
		return false
	}
	for _, r := range t {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}

// NormalizeMessageID returns id in the form "<local@domain>": surrounding
// space is trimmed, the first <...> token is kept when present, otherwise
// the bare value is wrapped in angle brackets. It returns "" for an empty
// or whitespace-only id. Case is preserved.
func NormalizeMessageID(id string) string {
	id = strings.TrimSpace(id)
	if id == "" {
		return ""
	}
	if ids := extractMessageIDs(id); len(ids) > 0 {
		return ids[0]
	}
	if f := strings.Fields(id); len(f) > 0 {
		return bareMessageID(f[0])
	}
	return ""
}

// bareMessageID wraps a Message-ID written without a complete <...> pair
// in angle brackets, keeping the text before any stray '>' so the result
// normalizes to itself ("a>b" → "<a>", not "<a>b>"); "" when nothing is
// left.
func bareMessageID(f string) string {
	f = strings.Trim(f, "<>")
	if i := strings.IndexByte(f, '>'); i >= 0 {
		f = f[:i]
	}
	if f == "" {
		return ""
	}
	return "<" + f + ">"
}

// ParseReferences returns the Message-IDs of a References or In-Reply-To
// header value, each normalized, in order, without duplicates.
func ParseReferences(v string) []string {
	ids := extractMessageIDs(v)
	if len(ids) == 0 {
		for _, f := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || unicode.IsSpace(r) }) {
			if id := bareMessageID(f); id != "" {
				ids = append(ids, id)
			}
		}
	}
	seen := make(map[string]bool, len(ids))
	out := ids[:0]
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// extractMessageIDs returns every non-empty <...> token of s, with inner
// whitespace removed (folded headers can split an id).
func extractMessageIDs(s string) []string {
	var out []string
	for {
		i := strings.IndexByte(s, '<')
		if i < 0 {
			return out
		}
		j := strings.IndexByte(s[i:], '>')
		if j < 0 {
			return out
		}
		inner := strings.Join(strings.Fields(s[i+1:i+j]), "")
		if inner != "" {
			out = append(out, "<"+inner+">")
		}
		s = s[i+j+1:]
	}
}
