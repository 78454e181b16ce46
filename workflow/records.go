package workflow

import (
	"regexp"
	"strings"
)

// maxRecordLinks bounds the links kept from one reply.
const maxRecordLinks = 10

// linkRe finds http(s) links in reply text; trailing punctuation is trimmed
// by recordLinks.
var linkRe = regexp.MustCompile(`(?i)\bhttps?://[^\s<>()"'\[\]{}]+`)

// recordLinks returns the distinct http(s) links of a reply's text (at most
// maxRecordLinks, each at most 2,000 characters), plus the portal URL the
// analyzer extracted when the text does not contain it. They become
// retrieval tasks when the reply delivers records (RECORDS_READY,
// PARTIAL_DELIVERY) and the analyzer saw a download link.
func recordLinks(text string, a Analysis) []string {
	var out []string
	seen := map[string]bool{}
	add := func(u string) {
		u = strings.TrimRight(u, ".,;:!?")
		if u == "" || len(u) > 2000 || seen[strings.ToLower(u)] || len(out) >= maxRecordLinks {
			return
		}
		seen[strings.ToLower(u)] = true
		out = append(out, u)
	}
	for _, u := range linkRe.FindAllString(text, 4*maxRecordLinks) {
		add(u)
	}
	if strings.HasPrefix(strings.ToLower(a.PortalURL), "http") {
		add(a.PortalURL)
	}
	return out
}
