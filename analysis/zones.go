package analysis

import (
	"regexp"
	"strings"
)

// zones is a normalized reply split into the agency's own words (body) and
// the parts that must not drive classification. Body keeps line structure so
// table-like fee layouts survive.
type zones struct {
	full string // normalized text, everything
	// fullLower is asciiLower(full).
	fullLower string
	body      string // agency's own words, used for classes, fees, facts
	footer    string // portal-system footers (kept for portal URL extraction)
	notes     []string
	// quoted, signature, disclaimer: the reply had such a zone (removed
	// from body).
	quoted, signature, disclaimer bool
	// attachedLetter: the body goes on with the text of an attached
	// letter (MuckRock's "Attached Correspondence:" line, removed).
	attachedLetter bool
}

var (
	attachedMarker = regexp.MustCompile(`(?i)^\s*attached correspondence:?\s*$`)
	quoteHeaderRe  = fre(`(?i)^\s*(-{2,}\s*original message\s*-{2,}|on .{5,200} wrote:|_{8,})\s*$`)
	fromHeaderRe   = regexp.MustCompile(`(?i)^\s*\**from:\**\s+\S`)
	// sentHeaderRe: a mail header's line after From: (a memorandum's
	// FROM: and SUBJECT: lines have none of these between them).
	sentHeaderRe = regexp.MustCompile(`(?i)^\s*\**(sent|date|to):\**\s`)
	// headerLineRe: any line of a mail header block.
	headerLineRe = regexp.MustCompile(`(?i)^\s*\**(from|sent|date|to|subject|cc|bcc|reply-to|importance):\**\s`)
	// forwardedRe opens a forwarded message ("---------- Forwarded message
	// ---------", "Begin forwarded message:").
	forwardedRe = regexp.MustCompile(`(?i)^\s*(-{2,}\s*forwarded message\s*-{2,}|begin forwarded message:?)\s*$`)

	letterStartRe = fre(`(?i)^\s*(to whom it may concern|dear (sir or madam|sir/madam|records custodian|custodian of records|foi[al] officer|public records officer|records officer))\s*[,:]?\s*$|(pursuant to|under) the .{3,100}(act|law|statute)[^.]{0,60}, i (hereby )?(request|am requesting)`)
	letterAskRe   = regexp.MustCompile(`(?i)\bi (hereby )?(request|am requesting)|requesting (the following|copies|records)`)
	letterEndRe   = regexp.MustCompile(`(?i)as the statute requires|anticipated cooperation|look forward to (receiving )?your (response|reply)|not being made for commercial purposes`)

	disclaimerRe = fre(`(?i)^[\s*_]*(confidentiality notice|confidential(ity)? (statement|disclaimer|communication)|(\*\s*)?privileged (and|&) confidential|confidential: attorney|notice: this (electronic|e-?mail|message)|disclaimer:|this (e-?mail|email message|message|communication|electronic (mail|message|transmission)|transmission)(,)? (and|along with|including) any|this (e-?mail|email message|message|communication|electronic (mail|message|transmission)) (is intended|may contain|contains|is confidential|is for the sole)|the information (contained|transmitted) in this|if you are not the intended recipient|caution: this (e-?mail|message) originated|\[?external (e-?mail|sender)\]?|(please note: )?florida has a very broad public records? law|under florida law,? e-?mail addresses are public records)`)

	// noticeLineRe: a line that belongs to a confidentiality notice.
	noticeLineRe = regexp.MustCompile(`\b(warning|notice|confidential\w*|privileged|disclaimer|intended|recipient|this (e-?mail|message|communication|transmission))\b`)
	// disclaimerBodyRe: words found only in a confidentiality notice (run
	// from the literals its matches start with).
	disclaimerBodyRe = newStartRe(regexp.MustCompile(`\b(not the intended (recipient|addressee)|for the (sole |exclusive )?use of the (intended )?(recipient|addressee|individual|person|entity)|(received|receive) this (e-?mail|message|communication|transmission|electronic mail)( message)? (in|by) (error|mistake))`))

	portalFooterRe = fre(`(?i)^[\s-]*please respond above this line|^\s*to (monitor|track|view|check) the (progress|status)[^.]{0,80}(log ?in|sign ?in|visit|click|go to)|auto-?generated (e-?mail|message)|unmonitored (e-?mail|mailbox|account)|^\s*(please )?do not (reply|respond) (to|directly to) this (e-?mail|message)`)

	valedictionRe = regexp.MustCompile(`(?i)^[\s*]*(sincerely( yours)?|regards|best regards|kind regards|kindest regards|warm regards|warmest regards|with regards|respectfully( yours)?|very truly yours|yours truly|thank you( so much| kindly)?|thanks( again)?|many thanks|best|best wishes|cheers|v/r|cordially|kindly|have a (wonderful|great|nice|good) (day|week|weekend))[\s,.!;:*]*$`)
	proseLineRe   = regexp.MustCompile(`^[^\n]*\b\w+\b[^\n]*(\s\S+){6,}[.?!:]$`)
)

// quoteHeaderGate, disclaimerGate and valedictionGate: how a reply
// header's, a confidentiality footer's and a valediction's line can start.
var (
	quoteHeaderGate = newLeadGate(quoteHeaderRe.re)
	disclaimerGate  = newLeadGate(disclaimerRe.re)
	valedictionGate = newLeadGate(valedictionRe)
)

// split finds the zones of a normalized reply; ix, when not nil, indexes
// asciiLower(norm).
func split(norm string, ix *gramIndex) zones {
	z := zones{full: norm}
	lines := strings.Split(norm, "\n")
	var lower string
	if ix != nil {
		lower = ix.text
	} else {
		lower = asciiLower(norm)
	}
	z.fullLower = lower
	lowers := strings.Split(lower, "\n")
	// The lines each pattern can match: those holding one of its keys.
	quoteHeader, fromHeader := quoteHeaderRe.linesHolding(lower, lowers, ix), strings.Contains(lower, "from:")
	letterStart := letterStartRe.linesHolding(lower, lowers, ix)
	portalFooter := portalFooterRe.linesHolding(lower, lowers, ix)
	// Line-start patterns are tried only on lines that start as they can
	// (their lead gates), unless the reply holds the non-ASCII folds of k
	// or s.
	gated := !strings.Contains(norm, "\u017f") && !strings.Contains(norm, "\u212a")
	drop := make([]byte, len(lines)) // 0 keep, 'h' the message's own header, 'q' quoted, 'f' footer, 'd' disclaimer, 's' signature

	// Quoted earlier messages: ">" lines, and everything after a reply header
	// up to the next MuckRock "Attached Correspondence:" block. A header
	// with nothing of the agency's above it (a forwarded message, or a mail
	// pasted with its own From:/Sent: lines) heads the agency's message
	// itself: only the header lines go.
	ownText := false
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if strings.HasPrefix(strings.TrimSpace(l), ">") {
			drop[i] = 'q'
			continue
		}
		isFrom := fromHeader && fromHeaderRe.MatchString(l) && nextMatches(lines, i+1, 4, sentHeaderRe)
		if !ownText && (isFrom || forwardedRe.MatchString(l)) {
			for ; i < len(lines) && (forwardedRe.MatchString(lines[i]) || headerLineRe.MatchString(lines[i]) || strings.TrimSpace(lines[i]) == ""); i++ {
				drop[i] = 'h'
			}
			i--
			continue
		}
		if strings.TrimSpace(l) != "" {
			ownText = true
		}
		if mayMatchLine(quoteHeader, i) && (!gated || quoteHeaderGate.mayMatch(lowers[i])) && quoteHeaderRe.match(lowers[i]) || isFrom {
			j := i
			for ; j < len(lines) && !isAttachedMarker(lines[j]); j++ {
				drop[j] = 'q'
			}
			z.notes = append(z.notes, "ignored quoted earlier message")
			i = j
		}
	}

	// A quoted copy of the requester's own letter.
	for i := 0; i < len(lines); i++ {
		if drop[i] != 0 || !mayMatchLine(letterStart, i) || !letterStartRe.match(lowers[i]) {
			continue
		}
		end := -1
		for j := i; j < len(lines) && j < i+80; j++ {
			if letterEndRe.MatchString(lines[j]) {
				end = j
				break
			}
		}
		block := strings.Join(lines[i:min(len(lines), i+12)], " ")
		if end < 0 || !letterAskRe.MatchString(block) {
			continue
		}
		for j := i; j <= end; j++ {
			drop[j] = 'q'
		}
		z.notes = append(z.notes, "ignored quoted copy of the original request letter")
		i = end
	}

	// Confidentiality footers: from the opening line to the end of the paragraph.
	for i := 0; i < len(lines); i++ {
		if drop[i] != 0 || gated && !disclaimerGate.mayMatch(lowers[i]) || !disclaimerRe.match(lowers[i]) {
			continue
		}
		j := i
		for ; j < len(lines) && strings.TrimSpace(lines[j]) != "" && !isAttachedMarker(lines[j]); j++ {
			drop[j] = 'd'
		}
		i = j
	}

	// A confidentiality notice under a heading of its own ("IMPORTANT
	// WARNING: This message is intended for …") does not start as the
	// line-start patterns know; it still names the one reader it was meant
	// for or tells a wrong one what to do. It is dropped from the line
	// where those words are, and from the notice lines just above it, to
	// the end of its paragraph: a letter with no blank line before the
	// notice keeps its own lines.
	if strings.Contains(lower, "intended") || strings.Contains(lower, "error") || strings.Contains(lower, "mistake") {
		for i := 0; i < len(lines); {
			j := i
			for j < len(lines) && drop[j] == 0 && strings.TrimSpace(lines[j]) != "" && !isAttachedMarker(lines[j]) {
				j++
			}
			if j > i {
				para := strings.Join(lowers[i:j], " ")
				if ms := disclaimerBodyRe.findAll(para, 1); ms != nil {
					m := ms[0]
					k, off := i, 0
					for k+1 < j && off+len(lowers[k])+1 <= m[0] {
						off += len(lowers[k]) + 1
						k++
					}
					for k > i && noticeLineRe.MatchString(lowers[k-1]) {
						k--
					}
					for ; k < j; k++ {
						drop[k] = 'd'
					}
				}
			}
			i = max(j, i+1)
		}
	}

	// Portal-system footers ("To monitor the progress … log into …").
	var footer []string
	for i, l := range lines {
		if drop[i] == 0 && mayMatchLine(portalFooter, i) && portalFooterRe.match(lowers[i]) {
			drop[i] = 'f'
			footer = append(footer, l)
		}
	}

	// Signatures: after a bare valediction, short non-prose lines.
	for i := 0; i < len(lines); i++ {
		if drop[i] != 0 || len(lines[i]) > 48 || gated && !valedictionGate.mayMatch(lines[i]) || !valedictionRe.MatchString(lines[i]) {
			continue
		}
		j := i + 1
		for ; j < len(lines); j++ {
			t := strings.TrimSpace(lines[j])
			if isAttachedMarker(t) || len(t) > 90 || isProseLine(t) {
				break
			}
			if drop[j] == 0 {
				drop[j] = 's'
			}
		}
		i = j - 1
	}

	var kept []string
	for i, l := range lines {
		switch drop[i] {
		case 0:
			if isAttachedMarker(l) {
				// MuckRock's "Attached Correspondence:" line heads the text
				// of the attached letters; it is no sentence of the agency's
				// ("attached … correspondence" is not records delivered).
				z.attachedLetter = true
				kept = append(kept, "")
				continue
			}
			kept = append(kept, l)
		case 'q':
			z.quoted = true
		case 's':
			z.signature = true
		case 'd':
			z.disclaimer = true
		}
	}
	body := strings.Join(kept, "\n")
	body = dropCourtesy(body)
	if b, n := dropLongQuotes(body); n > 0 {
		body = b
		z.quoted = true
		z.notes = append(z.notes, "ignored long quoted passages (restated request)")
	}
	z.body = body
	z.footer = strings.Join(footer, "\n")
	return z
}

// isAttachedMarker is attachedMarker.MatchString(l); a line without
// "attached c" in any case has no match.
func isAttachedMarker(l string) bool {
	return containsFold(l, "attached c") && attachedMarker.MatchString(l)
}

// isProseLine is proseLineRe.MatchString(t); the pattern ends the text with
// one of ".?!:".
func isProseLine(t string) bool {
	return t != "" && strings.IndexByte(".?!:", t[len(t)-1]) >= 0 && proseLineRe.MatchString(t)
}

func nextMatches(lines []string, from, n int, re *regexp.Regexp) bool {
	for k := from; k < len(lines) && k < from+n; k++ {
		if re.MatchString(lines[k]) {
			return true
		}
	}
	return false
}

// dropLongQuotes pairs double quotes left to right and replaces quoted
// passages of 60–600 bytes (agencies restating the request verbatim) with
// "[quoted]". It returns the new text and how many passages it replaced.
func dropLongQuotes(s string) (string, int) {
	var b strings.Builder
	n, last := 0, 0
	for i := 0; i < len(s); {
		open := strings.IndexByte(s[i:], '"')
		if open < 0 {
			break
		}
		open += i
		cl := strings.IndexByte(s[open+1:], '"')
		if cl < 0 {
			break
		}
		cl += open + 1
		if l := cl - open - 1; l >= 60 && l <= 600 {
			b.WriteString(s[last:open])
			b.WriteString(`"[quoted]"`)
			last = cl + 1
			n++
		}
		i = cl + 1
	}
	if n == 0 {
		return s, 0
	}
	b.WriteString(s[last:])
	return b.String(), n
}

// courtesyRe matches, at the start of a sentence, a closing courtesy: an
// offer to answer questions, thanks for patience. It says nothing about the
// request, and its "please let me know" must not read as a question put to
// the requester.
var courtesyRe = regexp.MustCompile(`^(?i)[ \t]*((please )?(do not|don't) hesitate\b[^.!?\n]*|(please )?feel free to (contact|call|email|e-mail|reach|get in touch)[^.!?\n]*|(please )?let (me|us) know if (you have|you need|you require|i can|we can|there is|there are|there's)[^.!?\n]*|if you (have|need|require) (any )?(further |other |additional )?(questions|queries|assistance|help|concerns)[^.!?\n]*|should you (have|need|require)[^.!?\n]*(questions|queries|assistance|help)[^.!?\n]*|(i|we) hope (this|the above|that) (helps|is helpful|answers|assists)[^.!?\n]*|thank you (again )?for your (patience|understanding|cooperation|time|interest)[^.!?\n]*)[.!?]?`)

// courtesyGate: the phrases a courtesy sentence can start with.
var courtesyGate = newLeadGate(courtesyRe)

// dropCourtesy removes courtesy sentences from the agency's text. Only
// sentence starts whose first letter can begin one are tried.
//
// Mail is hard-wrapped: a courtesy sentence may run over a line break
// ("Please let us\nknow if you have any questions."), so the sentences are
// matched on the text with single line breaks read as spaces (same
// offsets) and cut from s.
func dropCourtesy(s string) string {
	var b strings.Builder
	last := 0
	gated := !strings.Contains(s, "\u017f") && !strings.Contains(s, "\u212a")
	u := s
	if strings.IndexByte(s, '\n') >= 0 {
		u = unwrapLines(s)
	}
	try := func(p int) {
		q := p
		for q < len(u) && (u[q] == ' ' || u[q] == '\t') {
			q++
		}
		if q == len(u) || p < last || !strings.ContainsRune("pdflistwPDFLISTW", rune(u[q])) || gated && !courtesyGate.mayMatch(u[q:]) {
			return
		}
		if loc := courtesyRe.FindStringIndex(u[p:]); loc != nil {
			b.WriteString(s[last:p])
			last = p + loc[1]
		}
	}
	try(0)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\n':
			try(i + 1)
		case (c == '.' || c == '!' || c == '?') && i+1 < len(s) && s[i+1] == ' ':
			try(i + 1)
		}
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}
