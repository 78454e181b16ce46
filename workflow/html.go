package workflow

import (
	"html"
	"strings"
)

// TextToHTML renders plain text as escaped HTML paragraphs (blank lines
// separate paragraphs, single newlines become <br>). The result is safe to
// send: nothing from the text is interpreted as markup.
func TextToHTML(text string) string {
	var b strings.Builder
	for _, para := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n\n") {
		para = strings.TrimSpace(para)
		if para == "" {
			continue
		}
		b.WriteString("<p>")
		b.WriteString(strings.ReplaceAll(html.EscapeString(para), "\n", "<br>"))
		b.WriteString("</p>\n")
	}
	return b.String()
}
