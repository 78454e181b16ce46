package main

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/foiaflow/foiaflow/workflow"
)

// result is one classified corpus reply.
type result struct {
	name      string
	label     workflow.Class
	predicted workflow.Class
	// confidence is the analyzer's reported confidence (the calibrated
	// probability of the predicted class; 0 for UNKNOWN).
	confidence float64
	labelFee   *int64 // cents
	fee        *int64 // cents
	reasons    []string
	// feeInText: the labelled fee occurs in the reply text (else no
	// extractor can recover it, e.g. a fixture trimmed before the amount).
	feeInText bool
}

// classStats are the per-class counts of a confusion matrix.
type classStats struct {
	tp, fp, fn int
}

func (s classStats) precision() float64 { return ratio(s.tp, s.tp+s.fp) }
func (s classStats) recall() float64    { return ratio(s.tp, s.tp+s.fn) }
func (s classStats) f1() float64 {
	p, r := s.precision(), s.recall()
	if p+r == 0 {
		return 0
	}
	return 2 * p * r / (p + r)
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// metrics summarizes a run (DESIGN.md "Measuring contracts").
type metrics struct {
	n, correct        int
	accuracy, macroF1 float64
	feeN, feeExact    int
	// covered: replies given a class (not UNKNOWN) at confidence >=
	// minConfidence; confidentWrong: those of them with the wrong class.
	covered, confidentWrong int
	minConfidence           float64
	feeFalsePositive        int
	stats                   map[workflow.Class]*classStats
	confusion               map[workflow.Class]map[workflow.Class]int
	labelClasses            []workflow.Class
	predictedOnly           []workflow.Class
}

func (m metrics) feeExactRate() float64 { return ratio(m.feeExact, m.feeN) }

// score computes accuracy, per-class P/R/F1, macro-F1 over the classes present
// in the labels, fee exact match to the cent over FEE_QUOTE replies whose label
// states an amount, and, at minConfidence (MIN_CONFIDENCE), coverage (the share
// of replies given a class at that confidence or more) and confident_wrong
// (the share of all replies given a wrong class at that confidence or more).
func score(rs []result, minConfidence float64) metrics {
	m := metrics{n: len(rs), stats: map[workflow.Class]*classStats{}, confusion: map[workflow.Class]map[workflow.Class]int{}, minConfidence: minConfidence}
	get := func(c workflow.Class) *classStats {
		if m.stats[c] == nil {
			m.stats[c] = &classStats{}
		}
		return m.stats[c]
	}
	labels := map[workflow.Class]bool{}
	for _, r := range rs {
		labels[r.label] = true
		if m.confusion[r.label] == nil {
			m.confusion[r.label] = map[workflow.Class]int{}
		}
		m.confusion[r.label][r.predicted]++
		if r.label == r.predicted {
			m.correct++
			get(r.label).tp++
		} else {
			get(r.label).fn++
			get(r.predicted).fp++
		}
		if r.predicted != workflow.ClassUnknown && r.confidence >= minConfidence {
			m.covered++
			if r.predicted != r.label {
				m.confidentWrong++
			}
		}
		if r.labelFee != nil && r.label == workflow.ClassFeeQuote {
			m.feeN++
			if r.fee != nil && *r.fee == *r.labelFee {
				m.feeExact++
			}
		} else if r.fee != nil && r.label != workflow.ClassFeeQuote {
			m.feeFalsePositive++
		}
	}
	m.accuracy = ratio(m.correct, m.n)
	for _, c := range append(append([]workflow.Class{}, workflow.ReplyClasses...), workflow.ClassNoResponse) {
		if labels[c] {
			m.labelClasses = append(m.labelClasses, c)
		} else if m.stats[c] != nil {
			m.predictedOnly = append(m.predictedOnly, c)
		}
	}
	var sum float64
	for _, c := range m.labelClasses {
		sum += get(c).f1()
	}
	if len(m.labelClasses) > 0 {
		m.macroF1 = sum / float64(len(m.labelClasses))
	}
	return m
}

var abbrev = map[workflow.Class]string{
	workflow.ClassAcknowledgment: "ACK", workflow.ClassExtension: "EXT", workflow.ClassFeeQuote: "FEE",
	workflow.ClassDenial: "DEN", workflow.ClassPartial: "PART", workflow.ClassRecordsReady: "READY",
	workflow.ClassNoRecords: "NOREC", workflow.ClassClarification: "CLAR", workflow.ClassWrongAgency: "WRONG",
	workflow.ClassPortalRedirect: "PORTAL", workflow.ClassNoResponse: "NORESP", workflow.ClassUnknown: "UNK",
}

func short(c workflow.Class) string {
	if s, ok := abbrev[c]; ok {
		return s
	}
	return string(c)
}

// printReport writes the human part of the report (everything but the last
// line).
func printReport(w io.Writer, m metrics, rs []result) {
	fmt.Fprintf(w, "per-class (labels present: %d)\n", len(m.labelClasses))
	fmt.Fprintf(w, "  %-22s %5s %5s %5s %9s %6s %6s\n", "class", "tp", "fp", "fn", "precision", "recall", "f1")
	for _, c := range append(append([]workflow.Class{}, m.labelClasses...), m.predictedOnly...) {
		s := m.stats[c]
		if s == nil {
			s = &classStats{}
		}
		fmt.Fprintf(w, "  %-22s %5d %5d %5d %9.3f %6.3f %6.3f\n", c, s.tp, s.fp, s.fn, s.precision(), s.recall(), s.f1())
	}
	cols := append(append([]workflow.Class{}, m.labelClasses...), m.predictedOnly...)
	fmt.Fprintf(w, "\nconfusion (rows = label, columns = predicted)\n  %-7s", "")
	for _, c := range cols {
		fmt.Fprintf(w, " %6s", short(c))
	}
	fmt.Fprintln(w)
	for _, l := range m.labelClasses {
		fmt.Fprintf(w, "  %-7s", short(l))
		for _, p := range cols {
			if n := m.confusion[l][p]; n > 0 {
				fmt.Fprintf(w, " %6d", n)
			} else {
				fmt.Fprintf(w, " %6s", ".")
			}
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "\naccuracy %.3f (%d/%d), macro-F1 %.3f\n", m.accuracy, m.correct, m.n, m.macroF1)
	fmt.Fprintf(w, "fee exact %.3f (%d/%d labelled fees); fee set on %d non-fee replies\n", m.feeExactRate(), m.feeExact, m.feeN, m.feeFalsePositive)
	fmt.Fprintf(w, "at confidence >= %.2f: coverage %.3f (%d/%d given a class), confident wrong %.3f (%d/%d)\n",
		m.minConfidence, ratio(m.covered, m.n), m.covered, m.n, ratio(m.confidentWrong, m.n), m.confidentWrong, m.n)

	var miss []result
	for _, r := range rs {
		if r.label != r.predicted {
			miss = append(miss, r)
		}
	}
	sort.Slice(miss, func(i, j int) bool { return miss[i].name < miss[j].name })
	fmt.Fprintf(w, "\nmisclassified: %d\n", len(miss))
	for _, r := range miss {
		mark := ""
		if r.predicted != workflow.ClassUnknown && r.confidence >= m.minConfidence {
			mark = " (CONFIDENT)"
		}
		fmt.Fprintf(w, "  %s: label %s, predicted %s at %.2f%s\n", r.name, r.label, r.predicted, r.confidence, mark)
		for _, why := range topReasons(r.reasons, 4) {
			fmt.Fprintf(w, "      %s\n", why)
		}
	}
	var feeMiss []result
	for _, r := range rs {
		if r.labelFee != nil && (r.fee == nil || *r.fee != *r.labelFee) {
			feeMiss = append(feeMiss, r)
		}
	}
	if len(feeMiss) > 0 {
		fmt.Fprintf(w, "\nfee mismatches: %d\n", len(feeMiss))
		for _, r := range feeMiss {
			note := ""
			if !r.feeInText {
				note = " (labelled amount does not occur in the reply text)"
			}
			fmt.Fprintf(w, "  %s: label %s, extracted %s%s\n", r.name, cents(r.labelFee), cents(r.fee), note)
		}
	}
}

func cents(c *int64) string {
	if c == nil {
		return "null"
	}
	return fmt.Sprintf("%d.%02d", *c/100, *c%100)
}

// topReasons keeps the verdict line and the heaviest evidence lines.
func topReasons(rs []string, n int) []string {
	var out []string
	for _, r := range rs {
		if len(out) >= n {
			break
		}
		if strings.HasPrefix(r, "class ") || strings.HasPrefix(r, "best class") || strings.HasPrefix(r, "+") || strings.HasPrefix(r, "no class") || strings.HasPrefix(r, "the reply is not") || strings.HasPrefix(r, "LLM") || strings.HasPrefix(r, "guard") {
			out = append(out, r)
		}
	}
	return out
}

// lastLine is the stable contract line of `make eval` (DESIGN.md "Measuring
// contracts"; issue 9 added fee_n, confident_wrong and coverage).
func lastLine(m metrics) string {
	return fmt.Sprintf("eval: n=%d accuracy=%.3f macro_f1=%.3f fee_exact=%.3f fee_n=%d confident_wrong=%.3f coverage=%.3f",
		m.n, m.accuracy, m.macroF1, m.feeExactRate(), m.feeN, ratio(m.confidentWrong, m.n), ratio(m.covered, m.n))
}

// printReliability writes the reliability table of rs: per confidence bin,
// how many replies were given a class, their mean confidence and the share
// that was right.
func printReliability(w io.Writer, rs []result) {
	type bin struct {
		n, right int
		sum      float64
	}
	edges := []float64{0, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0001}
	bins := make([]bin, len(edges)-1)
	for _, r := range rs {
		if r.predicted == workflow.ClassUnknown {
			continue
		}
		for i := range bins {
			if r.confidence >= edges[i] && r.confidence < edges[i+1] {
				bins[i].n++
				bins[i].sum += r.confidence
				if r.predicted == r.label {
					bins[i].right++
				}
				break
			}
		}
	}
	fmt.Fprintf(w, "reliability (replies given a class)\n  %-11s %5s %10s %9s\n", "confidence", "n", "predicted", "observed")
	for i, b := range bins {
		if b.n == 0 {
			continue
		}
		fmt.Fprintf(w, "  %.1f–%-7.1f %5d %10.3f %9.3f\n", edges[i], min(edges[i+1], 1), b.n, b.sum/float64(b.n), float64(b.right)/float64(b.n))
	}
}

// amountInText reports whether c cents is written in text ("1,234.56",
// "1234.56" or "1,234" for whole dollars).
func amountInText(text string, c int64) bool {
	whole := fmt.Sprintf("%d", c/100)
	var grouped strings.Builder
	for i, d := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			grouped.WriteByte(',')
		}
		grouped.WriteRune(d)
	}
	frac := fmt.Sprintf(".%02d", c%100)
	for _, s := range []string{grouped.String() + frac, whole + frac} {
		if strings.Contains(text, s) {
			return true
		}
	}
	if c%100 == 0 {
		return strings.Contains(text, "$"+grouped.String()) || strings.Contains(text, "$"+whole)
	}
	return false
}
