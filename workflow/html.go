package workflow

import (
	"html"
	"strings"
)

// TextToHTML renders plain text as escaped HTML paragraphs (blank lines
// separate paragraphs, single newlines become <br> and a newline). The
// result is safe to send: nothing from the text is interpreted as markup.
// Drafts (analysis) and reviewer edits (resume) both use it.
func TextToHTML(text string) string {
	var b strings.Builder
	for _, p := range strings.Split(strings.TrimSpace(strings.ReplaceAll(text, "\r\n", "\n")), "\n\n") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		lines := strings.Split(p, "\n")
		for i, l := range lines {
			lines[i] = html.EscapeString(l)
		}
		b.WriteString("<p>")
		b.WriteString(strings.Join(lines, "<br>\n"))
		b.WriteString("</p>\n")
	}
	return b.String()
}
