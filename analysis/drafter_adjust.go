package analysis

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/foiaflow/foiaflow/clock"
	"github.com/foiaflow/foiaflow/workflow"
)

// AdjustGrammar is the reviewer-facing summary of the ADJUST instructions
// the template drafter applies (docs/letters.md "ADJUST"). An instruction
// is one or more directives separated by ";" or line breaks; case, a
// leading "please" and a trailing period do not matter; "add paragraph:"
// takes the rest of the instruction as the paragraph's text.
const AdjustGrammar = `firmer | friendlier | narrow scope to ITEM, ITEM | limit date range to RANGE | ` +
	`add tracking number [NUMBER] | extend deadline to DATE (or: by N days, N business days, N weeks) | ` +
	`add paragraph: TEXT | drop paragraph N (or: drop paragraph about WORDS)`

// Directive kinds of the ADJUST grammar.
const (
	adjFirm      = "firm"
	adjFriendly  = "friendly"
	adjNarrow    = "narrow"
	adjDateRange = "date range"
	adjTracking  = "tracking"
	adjExtend    = "extend"
	adjAdd       = "add paragraph"
	adjDrop      = "drop paragraph"
)

// adjustment is one parsed directive; clause is the reviewer's wording.
type adjustment struct {
	kind, clause string
	args         []string
}

var (
	addParagraphRe = regexp.MustCompile(`(?i)(?:^|[;\n])\s*(?:please\s+)?add\s+(?:a\s+|this\s+)?(?:new\s+)?paragraph\b\s*(?:saying|that says|stating|reading)?\s*[:\-]?\s*`)
	toneRe         = regexp.MustCompile(`(?i)^(?:(?:make|keep) (?:it|the letter|the email|the tone|this) |use an? |be |sound |tone:? )?(?:a )?(?:more |much |a bit |slightly )?(firmer|firm|stronger|assertive|sterner|friendlier|friendly|softer|warmer|polite|politer|gentler|kinder|cordial)(?: tone)?$`)
	dateRangeRe    = regexp.MustCompile(`(?i)^(?:narrow|limit|restrict)(?: the)? (?:date range|dates|time frame|timeframe|time period|period)(?: of the request)? to:?\s+(.+)$`)
	narrowRe       = regexp.MustCompile(`(?i)^(?:narrow|limit|restrict|reduce)(?: the)?(?: scope| request| records)?(?: of the request)? (?:to|down to):?\s+(.+)$`)
	trackingRe     = regexp.MustCompile(`(?i)^(?:add|include|cite|mention|reference|quote)(?: the| our| your| its| their)? (?:tracking|reference|request|case) (?:number|no\.?|#|id)(?::?\s+([A-Za-z0-9][A-Za-z0-9\-/_.#]{0,39}))?$`)
	extendRe       = regexp.MustCompile(`(?i)^(?:extend|push back|move)(?: the)?(?: response| agency's| their)? (?:deadline|due date)(?: (?:to|until|till):? (.+)| by (\d{1,3}) ((?:business |working |calendar )?(?:days?|weeks?)))$`)
	extensionRe    = regexp.MustCompile(`(?i)^(?:grant|give|offer)(?: them| the agency)?(?: an)? (?:extension|more time)(?: (?:to|until|till):? (.+)| of (\d{1,3}) ((?:business |working |calendar )?(?:days?|weeks?)))$`)
	dropRe         = regexp.MustCompile(`(?i)^(?:drop|remove|delete|omit|cut)(?: the)? (?:(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|last|\d{1,2}(?:st|nd|rd|th)?) paragraph|paragraph (?:#|no\.? )?(\d{1,2})|paragraph (?:about|on|mentioning|that mentions|containing|with|that says|saying) (.+))$`)
	greetingRe     = regexp.MustCompile(`^(?:Hello,|Hi,|To .+:|Dear .+[,:])$`)
	dropWordsRe    = regexp.MustCompile(`^["'“‘](.+)["'”’]$`)
	trackingArgRe  = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9\-/_.#]{0,39}$`)
)

var ordinals = map[string]int{"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
	"eighth": 8, "ninth": 9, "tenth": 10}

// parseAdjustments splits an instruction into directives. Clauses that match
// no directive are returned in unknown, in the reviewer's wording.
func parseAdjustments(instruction string) (adjs []adjustment, unknown []string) {
	head, tail := instruction, ""
	if loc := addParagraphRe.FindStringIndex(instruction); loc != nil {
		head, tail = instruction[:loc[0]], instruction[loc[1]:]
		if strings.TrimSpace(tail) == "" {
			unknown = append(unknown, "add paragraph (no text after it)")
		} else {
			adjs = append(adjs, adjustment{kind: adjAdd, clause: "add paragraph", args: []string{tail}})
		}
	}
	for _, raw := range strings.FieldsFunc(head, func(r rune) bool { return r == ';' || r == '\n' }) {
		clause := strings.Join(strings.Fields(raw), " ")
		clause = strings.TrimSpace(strings.TrimRight(clause, ".!"))
		if len(clause) > 7 && strings.EqualFold(clause[:7], "please ") {
			clause = strings.TrimSpace(clause[7:])
		}
		if clause == "" {
			continue
		}
		if a, ok := parseDirective(clause); ok {
			adjs = append(adjs, a)
		} else {
			unknown = append(unknown, clause)
		}
	}
	return adjs, unknown
}

func parseDirective(clause string) (adjustment, bool) {
	a := adjustment{clause: clause}
	if m := toneRe.FindStringSubmatch(clause); m != nil {
		switch strings.ToLower(m[1]) {
		case "firmer", "firm", "stronger", "assertive", "sterner":
			a.kind = adjFirm
		default:
			a.kind = adjFriendly
		}
		return a, true
	}
	if m := dateRangeRe.FindStringSubmatch(clause); m != nil {
		a.kind, a.args = adjDateRange, []string{m[1]}
		return a, true
	}
	if m := narrowRe.FindStringSubmatch(clause); m != nil {
		var items []string
		for _, it := range strings.Split(m[1], ",") {
			if it = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(it), "and ")); it != "" {
				items = append(items, it)
			}
		}
		a.kind, a.args = adjNarrow, items
		return a, len(items) > 0
	}
	if m := trackingRe.FindStringSubmatch(clause); m != nil {
		a.kind, a.args = adjTracking, []string{m[1]}
		return a, true
	}
	for _, re := range []*regexp.Regexp{extendRe, extensionRe} {
		if m := re.FindStringSubmatch(clause); m != nil {
			a.kind, a.args = adjExtend, m[1:]
			return a, true
		}
	}
	if m := dropRe.FindStringSubmatch(clause); m != nil {
		a.kind, a.args = adjDrop, m[1:]
		return a, true
	}
	return a, false
}

// letter is a draft split into paragraphs, with its greeting and sign-off.
type letter struct {
	paras            []string
	subject          string
	greeting, signof int // -1 when absent
}

func newLetter(text, subject string) *letter {
	l := &letter{subject: subject}
	for _, p := range strings.Split(strings.TrimSpace(strings.ReplaceAll(text, "\r\n", "\n")), "\n\n") {
		if p = strings.TrimSpace(p); p != "" {
			l.paras = append(l.paras, p)
		}
	}
	l.index()
	return l
}

func (l *letter) index() {
	l.greeting, l.signof = -1, -1
	for i, p := range l.paras {
		if l.greeting < 0 && i < 2 && greetingRe.MatchString(p) {
			l.greeting = i
		}
		if strings.HasPrefix(p, "Sincerely,") {
			l.signof = i
		}
	}
}

func (l *letter) text() string { return strings.Join(l.paras, "\n\n") + "\n" }

func (l *letter) insert(i int, p string) {
	l.paras = append(l.paras[:i], append([]string{p}, l.paras[i:]...)...)
	l.index()
}

func (l *letter) remove(i int) {
	l.paras = append(l.paras[:i], l.paras[i+1:]...)
	l.index()
}

// beforeSignoff inserts p before the sign-off, or at the end.
func (l *letter) beforeSignoff(p string) {
	if l.signof >= 0 {
		l.insert(l.signof, p)
		return
	}
	l.paras = append(l.paras, p)
	l.index()
}

// afterGreeting inserts p after the greeting, or at the start.
func (l *letter) afterGreeting(p string) { l.insert(l.greeting+1, p) }

// find returns the index of the first paragraph with the prefix, or -1.
func (l *letter) find(prefix string) int {
	for i, p := range l.paras {
		if strings.HasPrefix(p, prefix) {
			return i
		}
	}
	return -1
}

// replaceOrAdd replaces the paragraph starting with prefix, else inserts p
// before the sign-off.
func (l *letter) replaceOrAdd(prefix, p string) {
	if i := l.find(prefix); i >= 0 {
		l.paras[i] = p
		return
	}
	l.beforeSignoff(p)
}

// Fixed sentences the tone directives add or remove.
const (
	friendlyPara       = "Thank you for your work on this request. I know records offices handle many requests, and I appreciate your help."
	firmPrefix         = "Please treat this as a formal request under "
	dateRangePrefix    = "Please limit the request to records dated "
	extendPrefix       = "I agree to extend the deadline for your response to "
	narrowedPrefix     = "I am narrowing the request to the following records:"
	narrowedNote       = "I have narrowed the request to the records listed above; please process it on that basis."
	trackingParaPrefix = "Reference: tracking number "
)

// softParas are courtesy paragraphs of the templates that a firmer tone
// drops.
var softParas = []string{
	"Thank you for your help.",
	"Thank you for your assistance. I look forward to your response within the time the statute requires.",
	friendlyPara,
}

func firmPara(c workflow.CaseContext) string {
	return firmPrefix + statuteOf(c) + ". I expect a complete written response within the time the law requires; if any record is withheld, please cite the specific exemption for each withholding and release every reasonably segregable portion."
}

// adjust applies a reviewer's ADJUST instruction to the version being
// adjusted (req.PreviousText, else the fresh draft d) through the grammar.
// Every directive must parse and apply, or nothing is applied: the text is
// returned unchanged with NeedsEdit saying what was not understood.
func adjust(d workflow.Draft, req workflow.DraftRequest) workflow.Draft {
	base := d.Text
	if strings.TrimSpace(req.PreviousText) != "" {
		base = req.PreviousText
	}
	instruction := req.Instruction
	if len(instruction) > MaxInstructionBytes {
		instruction = clip(instruction, MaxInstructionBytes)
	}
	adjs, unknown := parseAdjustments(instruction)
	l := newLetter(base, d.Subject)
	var failed []string
	for _, u := range unknown {
		failed = append(failed, fmt.Sprintf("%q is not an adjustment the template drafter knows", clip(cleanInstruction(u), 200)))
	}
	if len(failed) == 0 {
		// Paragraph numbers and words refer to the version the reviewer
		// saw: drops are resolved on it first, then removed together.
		var drops []int
		for _, a := range adjs {
			if a.kind != adjDrop {
				continue
			}
			i, err := l.pickDrop(a.args)
			if err != nil {
				failed = append(failed, fmt.Sprintf("%q: %v", clip(cleanInstruction(a.clause), 200), err))
			} else if !slices.Contains(drops, i) {
				drops = append(drops, i)
			}
		}
		slices.Sort(drops)
		for k := len(drops) - 1; k >= 0; k-- {
			l.remove(drops[k])
		}
		for _, a := range adjs {
			if a.kind == adjDrop {
				continue
			}
			if err := l.apply(a, req); err != nil {
				failed = append(failed, fmt.Sprintf("%q: %v", clip(cleanInstruction(a.clause), 200), err))
			}
		}
	}
	if len(failed) > 0 {
		d.Text = strings.TrimSpace(base) + "\n"
		d.HTML = workflow.TextToHTML(d.Text)
		d.NeedsEdit = "Instruction not applied, the text is unchanged: " + strings.Join(failed, "; ") +
			". Edit the text yourself (EDIT), or ADJUST again with: " + AdjustGrammar + "."
		return d
	}
	d.Subject, d.Text = l.subject, l.text()
	d.HTML = workflow.TextToHTML(d.Text)
	return d
}

func (l *letter) apply(a adjustment, req workflow.DraftRequest) error {
	c := req.Case
	switch a.kind {
	case adjFirm:
		for _, s := range softParas {
			if i := l.find(s); i >= 0 && l.paras[i] == s {
				l.remove(i)
			}
		}
		if l.find(firmPrefix) < 0 {
			l.beforeSignoff(firmPara(c))
		}
	case adjFriendly:
		if i := l.find(firmPrefix); i >= 0 {
			l.remove(i)
		}
		if l.find(friendlyPara) < 0 {
			l.afterGreeting(friendlyPara)
		}
	case adjNarrow:
		// The first list of records becomes the narrowed list; a letter
		// without one gets it before the sign-off. Past the initial request
		// the letter says the request was narrowed.
		list := bullets(a.args)
		at := -1
		for i, p := range l.paras {
			if isBulletList(p) && i > 0 && strings.Contains(strings.ToLower(l.paras[i-1]), "records") {
				at = i
				break
			}
		}
		if at < 0 {
			l.beforeSignoff(narrowedPrefix)
			l.beforeSignoff(list)
			return nil
		}
		l.paras[at] = list
		if req.Action != workflow.ActionSendInitial && l.find(narrowedNote) < 0 {
			l.insert(at+1, narrowedNote)
		}
	case adjDateRange:
		r := strings.TrimSpace(a.args[0])
		if r == "" || strings.ContainsAny(r, "\n") {
			return fmt.Errorf("no date range")
		}
		l.replaceOrAdd(dateRangePrefix, dateRangePrefix+r+".")
	case adjTracking:
		n := a.args[0]
		if n == "" {
			n = c.TrackingNumber
		}
		if n == "" || !trackingArgRe.MatchString(n) {
			return fmt.Errorf("the case has no tracking number; write it, e.g. add tracking number ABC-123")
		}
		if !strings.Contains(l.subject, n) {
			l.subject += " (Request " + n + ")"
		}
		if !strings.Contains(l.text(), n) {
			l.afterGreeting(trackingParaPrefix + n + ".")
		}
	case adjExtend:
		date, err := extendedDate(a.args, req)
		if err != nil {
			return err
		}
		l.replaceOrAdd(extendPrefix, extendPrefix+date+".")
	case adjAdd:
		p := strings.Join(strings.FieldsFunc(a.args[0], func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }), " ")
		if p == "" {
			return fmt.Errorf("no text to add")
		}
		l.beforeSignoff(p)
	}
	return nil
}

func isBulletList(p string) bool {
	for _, line := range strings.Split(p, "\n") {
		if !strings.HasPrefix(line, "- ") {
			return false
		}
	}
	return true
}

// pickDrop resolves "drop paragraph …" to the index of one paragraph,
// chosen by ordinal, number (1 is the first paragraph of the letter,
// greeting included) or contained words. The greeting and the sign-off
// stay.
func (l *letter) pickDrop(args []string) (int, error) {
	pick := -1
	switch {
	case args[0] != "" || args[1] != "":
		w := strings.ToLower(strings.TrimRight(args[0]+args[1], "stndrh"))
		switch n, err := strconv.Atoi(w); {
		case w == "last":
			pick = len(l.paras) - 1
			if pick == l.signof {
				pick--
			}
		case err == nil:
			pick = n - 1
		default:
			pick = ordinals[w] - 1
		}
		if pick < 0 || pick >= len(l.paras) {
			return -1, fmt.Errorf("the letter has %d paragraphs", len(l.paras))
		}
	default:
		words := strings.TrimSpace(args[2])
		if m := dropWordsRe.FindStringSubmatch(words); m != nil {
			words = m[1]
		}
		var hits []int
		for i, p := range l.paras {
			if strings.Contains(strings.ToLower(p), strings.ToLower(words)) && i != l.signof {
				hits = append(hits, i)
			}
		}
		if len(hits) != 1 {
			return -1, fmt.Errorf("%d paragraphs mention %q, need exactly one", len(hits), words)
		}
		pick = hits[0]
	}
	if pick == l.greeting || pick == l.signof {
		return -1, fmt.Errorf("the greeting and the sign-off stay")
	}
	return pick, nil
}

// dateLayouts are the absolute dates "extend deadline to DATE" accepts.
var dateLayouts = []string{"2006-01-02", "January 2, 2006", "January 2 2006", "Jan 2, 2006", "Jan 2 2006", "2 January 2006", "2 Jan 2006"}

// extendedDate resolves "to DATE" or "by N [business|working|calendar]
// days|weeks" to the new response date, counted from the case's due date
// (or now, when later or unknown) in the agency's zone. It must lie after
// now.
func extendedDate(args []string, req workflow.DraftRequest) (string, error) {
	c := req.Case
	loc := clock.DefaultLocation()
	if l, err := time.LoadLocation(c.AgencyTimezone); c.AgencyTimezone != "" && err == nil {
		loc = l
	}
	now := clock.DateOf(req.Now, loc)
	var d clock.Date
	if to := strings.TrimSpace(args[0]); to != "" {
		var t time.Time
		var err error
		for _, layout := range dateLayouts {
			if t, err = time.Parse(layout, to); err == nil {
				break
			}
		}
		if err != nil {
			return "", fmt.Errorf("%q is not a date like 2024-05-01 or May 1, 2024", to)
		}
		d = clock.DateOf(t, time.UTC)
	} else {
		n, _ := strconv.Atoi(args[1])
		unit := strings.ToLower(args[2])
		base := now
		if req.DueAt != nil && clock.DateOf(*req.DueAt, loc).After(now) {
			base = clock.DateOf(*req.DueAt, loc)
		}
		switch {
		case n <= 0:
			return "", fmt.Errorf("extend by at least one day")
		case strings.Contains(unit, "week"):
			d = base.AddDays(7 * n)
		case strings.HasPrefix(unit, "business") || strings.HasPrefix(unit, "working"):
			rule := clock.Rule{Abbrev: strings.ToUpper(c.Jurisdiction)}
			d = base
			for counted := 0; counted < n; {
				if d = d.AddDays(1); rule.WorkingDay(d) {
					counted++
				}
			}
		default:
			d = base.AddDays(n)
		}
	}
	if !d.After(now) {
		return "", fmt.Errorf("the new deadline %s is not after today", d)
	}
	return time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, time.UTC).Format("January 2, 2006"), nil
}
