package training

import (
	"bytes"
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/foiaflow/foiaflow/analysis"
	"github.com/foiaflow/foiaflow/dataset"
	"github.com/foiaflow/foiaflow/workflow"
)

// The committed analysis/model.txt is exactly what `make train` produces:
// training is deterministic and nobody edited the file by hand.
func TestShippedModelIsWhatTrainingProduces(t *testing.T) {
	t.Parallel()
	b, _, err := ShippedModel(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, analysis.ModelFile()) {
		t.Fatalf("analysis/model.txt differs from a fresh training (%d vs %d bytes): run `make train` and commit the result", len(analysis.ModelFile()), len(b))
	}
	if len(b) > 5_000_000 {
		t.Errorf("model file is %d bytes, over 5 MB (5,000,000 bytes)", len(b))
	}
}

// A training whose context ends stops at its next L-BFGS step and returns
// the context's error, with no model: before it starts, and while it runs
// (a full training takes seconds; the context ends after 50 ms).
func TestTrainStopsWhenItsContextEnds(t *testing.T) {
	t.Parallel()
	replies, err := dataset.AllReplies()
	if err != nil {
		t.Fatal(err)
	}
	exs := Examples(replies)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if m, err := Train(ctx, exs, DefaultOptions()); !errors.Is(err, context.Canceled) || m != nil {
		t.Fatalf("cancelled before the start: model %v, error %v; want no model and context.Canceled", m != nil, err)
	}
	ctx, cancel = context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	if m, err := Train(ctx, exs, DefaultOptions()); !errors.Is(err, context.DeadlineExceeded) || m != nil {
		t.Fatalf("deadline while training: model %v, error %v; want no model and context.DeadlineExceeded", m != nil, err)
	}
}

// Temperature scaling finds the temperature that generated the data.
func TestFitTemperatureRecoversATemperature(t *testing.T) {
	t.Parallel()
	// Logits whose calibrated probabilities are softmax(z/2): draw labels
	// deterministically in proportion to them.
	var held []Scored
	for i := 0; i < 400; i++ {
		z := []float64{float64(i%7) - 2, float64(i%5) - 1, float64(i%3) * 1.5}
		p := analysis.Softmax(z, 2)
		u := math.Mod(float64(i)*0.6180339887, 1)
		label := 0
		for acc := p[0]; u > acc && label < len(p)-1; acc += p[label] {
			label++
		}
		held = append(held, Scored{Label: label, Logits: z})
	}
	got, err := FitTemperature(held)
	if err != nil {
		t.Fatal(err)
	}
	if got < 1.5 || got > 2.7 {
		t.Fatalf("temperature %.3f, want about 2", got)
	}
}

// The agreement temperature is fitted without the held-out replies the cue
// table reads otherwise: there the analyzer caps the confidence (or the
// model overrules at the all-replies temperature), and their confident
// mistakes would make every other reply read less sure.
func TestAgreementTemperatureLeavesOutCueTableDisagreements(t *testing.T) {
	t.Parallel()
	var agree, all []Scored
	for i := 0; i < 300; i++ {
		// Right four times in five with a margin of 2: sharper than T=1.
		z := []float64{2, 0, 0}
		label := 0
		if i%5 == 4 {
			label = 1 + i%2
		}
		agree = append(agree, Scored{Label: label, Logits: z})
	}
	all = append(all, agree...)
	for i := 0; i < 60; i++ {
		// Wrong every time with a margin of 4.
		all = append(all, Scored{Label: 2, Logits: []float64{4, 0, 0}, CueTableDisagrees: true})
	}
	wantAgree, err := FitTemperature(agree)
	if err != nil {
		t.Fatal(err)
	}
	wantAll, err := FitTemperature(all)
	if err != nil {
		t.Fatal(err)
	}
	gotAll, gotAgree, err := fitTemperatures(all)
	if err != nil {
		t.Fatal(err)
	}
	if gotAgree != wantAgree || gotAll != wantAll {
		t.Errorf("temperatures all %.4f, agreement %.4f; want %.4f (all) and %.4f (the agreeing predictions only)", gotAll, gotAgree, wantAll, wantAgree)
	}
	if wantAll < 1.5*wantAgree {
		t.Errorf("the disagreeing predictions moved the fit only from %.4f to %.4f: the test shows nothing", wantAgree, wantAll)
	}
}

// Calibration on replies the model has not seen (split: leave-one-set-out
// over the three sets, each model trained, with the written replies, and
// calibrated without the set it scores): the confidence the analyzer reports is close to how often it is
// right. Expected calibration error over the replies given a class, and the
// accuracy of the answers reported at 0.9 or more.
func TestCalibrationOnHeldOutSets(t *testing.T) {
	t.Parallel()
	replies, err := dataset.AllReplies()
	if err != nil {
		t.Fatal(err)
	}
	exs := Examples(replies)
	written, err := dataset.Written()
	if err != nil {
		t.Fatal(err)
	}
	wexs := Examples(written)
	o := DefaultOptions()
	type pred struct {
		conf  float64
		right bool
	}
	var preds []pred
	for _, set := range dataset.SetNames {
		train := slices.Clone(wexs)
		var test []dataset.Reply
		for i, ex := range exs {
			if ex.Set == set {
				test = append(test, replies[i])
			} else {
				train = append(train, ex)
			}
		}
		m, err := Train(t.Context(), train, o)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range test {
			a, err := analysis.Offline{Model: m}.Analyze(t.Context(), workflow.Reply{Text: r.Text}, workflow.CaseContext{})
			if err != nil {
				t.Fatal(err)
			}
			if a.Class != workflow.ClassUnknown {
				preds = append(preds, pred{a.Confidence, string(a.Class) == r.Label})
			}
		}
	}
	edges := []float64{0, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0001}
	ece, hiN, hiRight := 0.0, 0, 0
	for b := 0; b+1 < len(edges); b++ {
		n, right, sum := 0, 0, 0.0
		for _, p := range preds {
			if p.conf >= edges[b] && p.conf < edges[b+1] {
				n++
				sum += p.conf
				if p.right {
					right++
				}
			}
		}
		if n > 0 {
			ece += math.Abs(sum/float64(n)-float64(right)/float64(n)) * float64(n) / float64(len(preds))
			t.Logf("confidence %.1f–%.1f: n=%d predicted %.3f observed %.3f", edges[b], edges[b+1], n, sum/float64(n), float64(right)/float64(n))
		}
		if edges[b] >= 0.9 {
			hiN, hiRight = n, right
		}
	}
	t.Logf("leave-one-set-out: %d replies given a class, ECE %.3f, at >= 0.9: %d/%d right", len(preds), ece, hiRight, hiN)
	if ece > 0.10 {
		t.Errorf("expected calibration error %.3f on held-out sets, want <= 0.10", ece)
	}
	if hiN == 0 || float64(hiRight)/float64(hiN) < 0.85 {
		t.Errorf("answers at >= 0.9 confidence: %d/%d right, want >= 85%%", hiRight, hiN)
	}
}

// Replies of one request share a fold; every fold gets replies.
func TestFoldsKeepRequestsTogether(t *testing.T) {
	t.Parallel()
	replies, err := dataset.AllReplies()
	if err != nil {
		t.Fatal(err)
	}
	exs := Examples(replies)
	folds := Folds(exs, 5, DefaultOptions().Seed)
	byGroup := map[string]int{}
	size := make([]int, 5)
	for i, ex := range exs {
		if f, ok := byGroup[ex.Group]; ok && f != folds[i] {
			t.Errorf("group %s split across folds %d and %d", ex.Group, f, folds[i])
		}
		byGroup[ex.Group] = folds[i]
		size[folds[i]]++
	}
	for f, n := range size {
		if n < len(exs)/5-6 || n > len(exs)/5+6 {
			t.Errorf("fold %d has %d replies (of %d)", f, n, len(exs))
		}
	}
	if again := Folds(exs, 5, DefaultOptions().Seed); !equalInts(again, folds) {
		t.Error("fold assignment is not deterministic")
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Per-source copies train beside the shared columns and stay out of the
// model: a word that speaks for a class in one source only moves the
// shipped (shared) weight less than without copies, since part of what it
// says goes to that source's copy.
func TestSourceCopiesStayOutOfTheModel(t *testing.T) {
	t.Parallel()
	var exs []Example
	add := func(set string, label workflow.Class, words ...string) {
		for i := 0; i < 10; i++ {
			var fs []analysis.Feature
			for _, w := range words {
				fs = append(fs, analysis.Feature{Name: "w:" + w, Value: 1})
			}
			exs = append(exs, Example{Name: set, Set: set, Group: set + string(label) + string(rune('0'+i)), Label: label, Features: fs})
		}
	}
	add("a", workflow.ClassAcknowledgment, "received", "quirk")
	add("a", workflow.ClassDenial, "denied")
	add("b", workflow.ClassAcknowledgment, "received")
	add("b", workflow.ClassDenial, "denied")
	ack := classIndex(workflow.ClassAcknowledgment)
	weight := func(copies bool) float64 {
		o := DefaultOptions()
		o.SourceCopies = copies
		ix := newIndex(exs, o)
		m, err := fitWeights(t.Context(), ix, ix.all(), o)
		if err != nil {
			t.Fatal(err)
		}
		if len(m.Rows) > 3 {
			t.Errorf("copies %v: %d word rows, want at most the 3 words'", copies, len(m.Rows))
		}
		for name := range m.Named {
			if strings.Contains(name, "|") {
				t.Errorf("copies %v: a source copy %q is in the model", copies, name)
			}
		}
		return m.Logits([]analysis.Feature{{Name: "w:quirk", Value: 1}})[ack] - m.Bias[ack]
	}
	if with, without := weight(true), weight(false); with <= 0 || with >= without {
		t.Errorf("one source's word: acknowledgment weight %.3f with copies, %.3f without; want positive and lower", with, without)
	}
	ix := newIndex(exs, DefaultOptions())
	d, err := ix.design(ix.all(), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if want := d.shared + 3 + 2; len(d.keys) != want {
		t.Errorf("%d columns, want %d: %d shared and 5 copies (3 words in a, 2 in b)", len(d.keys), want, d.shared)
	}
	for _, k := range d.keys[d.shared:] {
		if !strings.HasPrefix(k, "a|") && !strings.HasPrefix(k, "b|") {
			t.Errorf("copy column %q is not named by its source", k)
		}
	}
}

// A calibration fold's design is cut from the index of all the training
// replies (index.design); it must be the design the fold's replies give on
// their own: the same columns, names, priors, rows, labels, weights and
// source copies, so that a fold trains exactly as if it were all there was.
func TestFoldDesignIsTheFoldsOwn(t *testing.T) {
	t.Parallel()
	exs := realAndWritten(t, 600)
	o := DefaultOptions()
	o.MinDocs = 2 // more word columns at the MinDocs edge
	ix := newIndex(exs, o)
	folds := map[string]func(i int, ex Example) bool{
		"not agency-replies":    func(_ int, ex Example) bool { return ex.Set != "agency-replies" },
		"not foi-international": func(_ int, ex Example) bool { return ex.Set != "foi-international" },
		"every third reply":     func(i int, _ Example) bool { return i%3 == 1 },
	}
	for name, in := range folds {
		var sel []int
		var own []Example
		for i, ex := range exs {
			if in(i, ex) {
				sel = append(sel, i)
				own = append(own, ex)
			}
		}
		cut, err := ix.design(sel, o)
		if err != nil {
			t.Fatal(err)
		}
		oix := newIndex(own, o)
		alone, err := oix.design(oix.all(), o)
		if err != nil {
			t.Fatal(err)
		}
		if cut.shared != alone.shared || !slices.Equal(cut.keys, alone.keys) || !slices.Equal(cut.names, alone.names) || !slices.Equal(cut.text, alone.text) {
			t.Errorf("%s: columns, their names or word flags differ: %d shared of %d, want %d of %d", name, cut.shared, len(cut.keys), alone.shared, len(alone.keys))
			continue
		}
		if !slices.EqualFunc(cut.prior, alone.prior, slices.Equal[[]float64]) {
			t.Errorf("%s: priors differ", name)
		}
		if !slices.EqualFunc(cut.rows, alone.rows, slices.Equal[[]cell]) {
			t.Errorf("%s: rows differ", name)
		}
		if !slices.Equal(cut.labels, alone.labels) || !slices.Equal(cut.weights, alone.weights) {
			t.Errorf("%s: labels or weights differ", name)
		}
		if cut.shared >= len(ix.keys) || cut.shared == 0 {
			t.Errorf("%s: %d shared columns of the index's %d: the fold should drop some and keep some", name, cut.shared, len(ix.keys))
		}
	}
}

// realAndWritten returns the examples of the real replies and of the first
// n written ones.
func realAndWritten(t *testing.T, n int) []Example {
	t.Helper()
	replies, err := dataset.AllReplies()
	if err != nil {
		t.Fatal(err)
	}
	written, err := dataset.Written()
	if err != nil {
		t.Fatal(err)
	}
	return append(Examples(replies), Examples(written[:n])...)
}

// A model a Pool trains on a subset of its examples is the model Train
// trains on those examples alone, byte for byte: cross-validation keys the
// corpus once and cuts every split from it.
func TestPoolTrainsAsTrainDoes(t *testing.T) {
	t.Parallel()
	exs := realAndWritten(t, 480)
	o := DefaultOptions()
	o.Iterations = 8
	pool := NewPool(exs, o)
	for _, set := range dataset.SetNames {
		// The split's order, as cmd/eval builds it: the written replies,
		// then the real ones of the other sets.
		var sel []int
		var own []Example
		for _, written := range []bool{true, false} {
			for i, ex := range exs {
				if ex.Written == written && ex.Set != set {
					sel = append(sel, i)
					own = append(own, ex)
				}
			}
		}
		cut := samePoolModel(t, "without "+set, pool, sel, own, o)
		if len(cut.Rows) == 0 || cut.Temperature == 1 {
			t.Errorf("without %s: %d word rows, temperature %v: not a trained, calibrated model", set, len(cut.Rows), cut.Temperature)
		}
	}
	// WrittenWeight 0 leaves the written replies out: the pool, keyed with
	// them, trains the model of the real replies alone.
	o.WrittenWeight = 0
	var all []int
	var real []Example
	for i, ex := range exs {
		all = append(all, i)
		if !ex.Written {
			real = append(real, ex)
		}
	}
	samePoolModel(t, "WrittenWeight 0", NewPool(exs, o), all, real, o)
}

// samePoolModel trains pool on sel and Train on own (the same examples),
// reports an error naming the case when the two model files differ, and
// returns the pool's model.
func samePoolModel(t *testing.T, name string, pool *Pool, sel []int, own []Example, o Options) *analysis.Model {
	t.Helper()
	cut, err := pool.Train(t.Context(), sel)
	if err != nil {
		t.Fatal(err)
	}
	alone, err := Train(t.Context(), own, o)
	if err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	if err := cut.Encode(&a); err != nil {
		t.Fatal(err)
	}
	if err := alone.Encode(&b); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Errorf("%s: the pool's model (%d bytes) differs from Train's (%d bytes)", name, a.Len(), b.Len())
	}
	return cut
}
