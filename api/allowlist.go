package api

import (
	netmail "net/mail"
	"strings"
)

// maxAllowedSenders bounds an agency's allowlist.
const maxAllowedSenders = 100

// normalizeAllowedSenders validates an agency allowlist (issue 10,
// "Matching you can trust") and returns it lowercased and deduplicated:
// each entry is a bare address ("clerk@city.gov": exactly that sender) or
// a domain, written "@city.gov" or "city.gov" and stored "@city.gov" (every
// address at exactly that domain, not its subdomains). 400 invalid_field
// otherwise.
func normalizeAllowedSenders(in []string) ([]string, error) {
	if len(in) > maxAllowedSenders {
		return nil, invalid("agency_allowed_senders has more than %d entries", maxAllowedSenders)
	}
	out := make([]string, 0, len(in))
	seen := map[string]bool{}
	for i, e := range in {
		v := strings.ToLower(strings.TrimSpace(e))
		switch {
		case len(v) > 254 || v == "":
			return nil, invalid("agency_allowed_senders[%d] must be an address or a domain of at most 254 characters", i)
		case strings.HasPrefix(v, "@") || !strings.Contains(v, "@"):
			d := strings.TrimPrefix(v, "@")
			if !validDomain(d) {
				return nil, invalid("agency_allowed_senders[%d] %q is not a domain", i, e)
			}
			v = "@" + d
		default:
			a, err := netmail.ParseAddress(v)
			if err != nil || a.Name != "" || a.Address != v || !validDomain(v[strings.LastIndexByte(v, '@')+1:]) {
				return nil, invalid("agency_allowed_senders[%d] %q is not a bare email address", i, e)
			}
		}
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out, nil
}

// validDomain accepts a DNS name with at least two labels of letters,
// digits and hyphens.
func validDomain(d string) bool {
	labels := strings.Split(d, ".")
	if len(labels) < 2 || len(d) > 253 {
		return false
	}
	for _, l := range labels {
		if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return false
		}
		for _, c := range l {
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return true
}
