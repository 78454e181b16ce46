package web

import (
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// segment is a piece of a message's text; Mark is set on evidence.
type segment struct {
	Text string
	Mark bool
}

// evidenceSpans returns the quoted text of an analysis's reasons: the
// offline analyzer ends each feature's reason with `: "<span>"` (whitespace
// collapsed, clipped with "…").
func evidenceSpans(reasons []string) []string {
	var out []string
	for _, r := range reasons {
		i := strings.Index(r, `: "`)
		if i < 0 || !strings.HasSuffix(r, `"`) {
			continue
		}
		s, err := strconv.Unquote(r[i+2:])
		if err != nil {
			continue
		}
		s = strings.TrimSpace(strings.TrimSuffix(s, "…"))
		if len([]rune(s)) >= 3 {
			out = append(out, s)
		}
	}
	return out
}

// highlight splits text into segments, marking every place a span occurs
// (case-insensitive, any run of whitespace matching one space).
func highlight(text string, spans []string) []segment {
	if len(spans) == 0 {
		return []segment{{Text: text}}
	}
	// norm is text lower-cased with whitespace runs as one space; pos maps
	// each byte of norm back to its offset in text.
	var norm strings.Builder
	var pos []int
	space := false
	for i, r := range text {
		if unicode.IsSpace(r) {
			if !space {
				norm.WriteByte(' ')
				pos = append(pos, i)
			}
			space = true
			continue
		}
		space = false
		lr := string(unicode.ToLower(r))
		norm.WriteString(lr)
		for range len(lr) {
			pos = append(pos, i)
		}
	}
	pos = append(pos, len(text))
	n := norm.String()
	var marks [][2]int
	for _, s := range spans {
		s = strings.ToLower(strings.Join(strings.Fields(s), " "))
		for from := 0; ; {
			j := strings.Index(n[from:], s)
			if j < 0 {
				break
			}
			a, b := from+j, from+j+len(s)
			marks = append(marks, [2]int{pos[a], endOf(text, pos, b)})
			from = b
		}
	}
	if len(marks) == 0 {
		return []segment{{Text: text}}
	}
	sort.Slice(marks, func(i, j int) bool { return marks[i][0] < marks[j][0] })
	var out []segment
	at := 0
	for _, m := range marks {
		if m[1] <= at {
			continue
		}
		if m[0] > at {
			out = append(out, segment{Text: text[at:m[0]]})
		} else {
			m[0] = at
		}
		out = append(out, segment{Text: text[m[0]:m[1]], Mark: true})
		at = m[1]
	}
	return append(out, segment{Text: text[at:]})
}

// endOf maps the end b of a match in the normalized text to an offset in
// text: the end of the rune at norm byte b-1.
func endOf(text string, pos []int, b int) int {
	start := pos[b-1]
	for i, r := range text[start:] {
		return start + i + len(string(r))
	}
	return len(text)
}
