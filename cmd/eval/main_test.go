package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/foiaflow/foiaflow/dataset"
	"github.com/foiaflow/foiaflow/workflow"
)

func TestScoreMetrics(t *testing.T) {
	t.Parallel()
	c := func(v int64) *int64 { return &v }
	rs := []result{
		{label: workflow.ClassFeeQuote, predicted: workflow.ClassFeeQuote, confidence: 0.9, labelFee: c(100), fee: c(100)},
		{label: workflow.ClassFeeQuote, predicted: workflow.ClassDenial, confidence: 0.8, labelFee: c(200), fee: nil},
		{label: workflow.ClassDenial, predicted: workflow.ClassDenial, confidence: 0.5},
		{label: workflow.ClassNoRecords, predicted: workflow.ClassUnknown},
	}
	m := score(rs, 0.6)
	if m.n != 4 || m.correct != 2 || m.accuracy != 0.5 {
		t.Fatalf("accuracy %+v", m)
	}
	// FEE: P=1 R=.5 F1=.667; DENIAL: P=.5 R=1 F1=.667; NO_RECORDS: 0 → macro .444.
	// At 0.6: two replies given a class (coverage .5), one of them wrong
	// (confident_wrong .25 of all four).
	if got := lastLine(m); got != "eval: n=4 accuracy=0.500 macro_f1=0.444 fee_exact=0.500 fee_n=2 confident_wrong=0.250 coverage=0.500" {
		t.Errorf("last line %q", got)
	}
	if len(m.labelClasses) != 3 || len(m.predictedOnly) != 1 || m.predictedOnly[0] != workflow.ClassUnknown {
		t.Errorf("classes %v / %v", m.labelClasses, m.predictedOnly)
	}
}

func TestRunPrintsContractLastLine(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := map[string]string{
		"a.json": `{"source":"synthetic","text":"Your request is denied. The records are exempt from disclosure.","label":"DENIAL","label_source":"test","fee_amount":null,"notes":""}`,
		"b.json": `{"source":"synthetic","text":"The total cost is $12.50. Please remit a check payable to the City.","label":"FEE_QUOTE","label_source":"test","fee_amount":12.5,"notes":""}`,
		"c.json": `{"source":"synthetic","text":"Our office is not the custodian of these records.","label":"WRONG_AGENCY","label_source":"test","fee_amount":null,"notes":""}`,
	}
	for n, body := range files {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var out bytes.Buffer
	if err := run(context.Background(), []string{"-corpus", dir, "-passes", "2", "-min-time", "1ms"}, &out, func(string) string { return "" }); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	last := lines[len(lines)-1]
	if !lastLineRe.MatchString(last) {
		t.Fatalf("last line %q", last)
	}
	if !strings.HasPrefix(last, "eval: n=3 accuracy=1.000 macro_f1=1.000 fee_exact=1.000 fee_n=1 confident_wrong=0.000 coverage=") {
		t.Errorf("last line %q\n%s", last, out.String())
	}
	for _, want := range []string{"confusion", "throughput:", "misclassified: 0", "precision", "reliability"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q", want)
		}
	}
}

func TestRunErrors(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	if err := run(context.Background(), []string{"-corpus", t.TempDir()}, &out, func(string) string { return "" }); err == nil {
		t.Error("empty corpus accepted")
	}
	if err := run(context.Background(), []string{"-analyzer", "magic"}, &out, func(string) string { return "" }); err == nil {
		t.Error("unknown analyzer accepted")
	}
	if err := run(context.Background(), []string{"-corpus", "../../dataset/replies/agency-replies", "-analyzer", "openai"}, &out, func(string) string { return "" }); err == nil {
		t.Error("openai without key accepted")
	}
	if err := run(context.Background(), []string{"-cv", "-iterations", "-1"}, &out, func(string) string { return "" }); err == nil {
		t.Error("negative -iterations accepted")
	}
}

var lastLineRe = regexp.MustCompile(`^eval: n=\d+ accuracy=\d\.\d{3} macro_f1=\d\.\d{3} fee_exact=\d\.\d{3} fee_n=\d+ confident_wrong=\d\.\d{3} coverage=\d\.\d{3}( split=\S+)?$`)

// -cv prints one contract line per split, k-fold, each held-out set and
// each written batch, and the pooled leave-one-set-out line last. Its 45
// split models are trained with few L-BFGS iterations: the lines, not the
// figures, are under test here.
func TestCrossValidationLines(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	if err := run(context.Background(), []string{"-cv", "-folds", "2", "-iterations", "5"}, &out, func(string) string { return "" }); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	splits := map[string]bool{}
	for _, l := range lines {
		if strings.HasPrefix(l, "eval: ") {
			if !lastLineRe.MatchString(l) {
				t.Errorf("malformed line %q", l)
			}
			if i := strings.Index(l, " split="); i > 0 {
				splits[l[i+7:]] = true
			}
		}
	}
	want := []string{"kfold/1", "kfold/2", "kfold", "loso/agency-replies", "loso/muckrock-2022", "loso/foi-international", "loso", "written"}
	for _, b := range dataset.WrittenSetNames {
		want = append(want, "written/"+b)
	}
	for _, want := range want {
		if !splits[want] {
			t.Errorf("no line for split %s", want)
		}
	}
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "eval: n=155 ") || !strings.HasSuffix(last, " split=loso") {
		t.Errorf("last line %q is not the pooled leave-one-set-out line", last)
	}
	if !strings.Contains(out.String(), "reliability") {
		t.Error("no reliability table")
	}
}
