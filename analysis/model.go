package analysis

import (
	"bufio"
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/foiaflow/foiaflow/workflow"
)

// modelMagic is the first line of a reply-model file.
const modelMagic = "foiaflow reply model v1"

// Model is the reply classifier: a multinomial logistic regression over the
// reply's features — word features (w:, b:, a:) hashed with FNV-1a into
// 2^Bits buckets, the others (cue:, lead:, s:, x:, z:) by name, so that a
// rare word pair can never share a weight with a FOIA cue — with a
// temperature that calibrates its probabilities. It is trained by cmd/train
// (package analysis/training) from the project's labelled replies and
// shipped as model.txt, embedded in the binary.
type Model struct {
	Classes []workflow.Class
	Bits    int
	// Temperature divides the logits before the softmax; fitted on
	// held-out folds so that a probability p means "right about p of the
	// time".
	Temperature float64
	// AgreementTemperature replaces Temperature for a reply the cue table
	// reads as the model does, or not at all (no Model.CueTableDisagrees);
	// fitted on such held-out replies only. 0 (a model file without it):
	// Temperature for every reply.
	AgreementTemperature float64
	Bias                 []float64
	// Rows maps a word feature's bucket to its weight per class; buckets no
	// training reply had, and those whose every weight training left under
	// 0.0005, are absent (weight 0).
	Rows map[uint32][]float64
	// Named maps every other feature, by name, to its weight per class.
	Named map[string][]float64
	// Names gives each bucket a readable name: the training feature that
	// hashed there (the most frequent one when several did).
	Names map[uint32]string
	// Meta are "key value" lines describing how the model was trained
	// (corpus, seed, regularisation, cross-validated figures).
	Meta []string
}

//go:embed model.txt
var modelFile []byte

// shipped is the embedded model, decoded once at start.
var shipped = mustDecodeModel(modelFile)

// ModelFile returns the bytes of the embedded model file (analysis/model.txt).
func ModelFile() []byte { return append([]byte(nil), modelFile...) }

func mustDecodeModel(b []byte) *Model {
	m, err := DecodeModel(bytes.NewReader(b))
	if err != nil {
		panic("analysis: embedded model.txt: " + err.Error())
	}
	return m
}

// Bucket hashes a feature name into the model's feature space.
func Bucket(name string, bits int) uint32 {
	h := uint32(2166136261) // FNV-1a, as hash/fnv's New32a
	for i := 0; i < len(name); i++ {
		h ^= uint32(name[i])
		h *= 16777619
	}
	return h & (1<<bits - 1)
}

// Hashed reports whether a feature is a word feature, looked up by bucket
// (the others are looked up by name).
func Hashed(name string) bool {
	return strings.HasPrefix(name, "w:") || strings.HasPrefix(name, "b:") || strings.HasPrefix(name, "a:")
}

// row returns the weights of a feature, or nil.
func (m *Model) row(name string) []float64 {
	if Hashed(name) {
		return m.Rows[Bucket(name, m.Bits)]
	}
	return m.Named[name]
}

// Logits returns the model's raw score per class (len(Classes)) for feats,
// before the temperature.
func (m *Model) Logits(feats []Feature) []float64 {
	return m.logits(feats, m.rows(feats))
}

// rows returns the weights of each of feats (nil for a feature the model
// does not know), so that scoring and explaining look each up once.
func (m *Model) rows(feats []Feature) [][]float64 {
	out := make([][]float64, len(feats))
	for i, f := range feats {
		out[i] = m.row(f.Name)
	}
	return out
}

// logits is Logits with the features' rows looked up.
func (m *Model) logits(feats []Feature, rows [][]float64) []float64 {
	out := make([]float64, len(m.Classes))
	copy(out, m.Bias)
	for i, f := range feats {
		for k, w := range rows[i] {
			out[k] += f.Value * w
		}
	}
	return out
}

// Probabilities returns the calibrated probability per class of feats, as
// the analyzer reports it (with the temperature of feats' cue-table
// reading, Model.CueTableDisagrees).
func (m *Model) Probabilities(feats []Feature) []float64 {
	z := m.Logits(feats)
	return Softmax(z, m.temperature(m.CueTableDisagrees(feats, z)))
}

// Softmax returns softmax(logits / temperature).
func Softmax(logits []float64, temperature float64) []float64 {
	out := make([]float64, len(logits))
	SoftmaxInto(out, logits, temperature)
	return out
}

// SoftmaxInto writes softmax(logits / temperature) into out (len(logits)
// long; out may be logits itself), without allocating.
func SoftmaxInto(out, logits []float64, temperature float64) {
	if temperature <= 0 {
		temperature = 1
	}
	hi := math.Inf(-1)
	for _, l := range logits {
		hi = max(hi, l/temperature)
	}
	sum := 0.0
	for i, l := range logits {
		out[i] = math.Exp(l/temperature - hi)
		sum += out[i]
	}
	for i := range out {
		out[i] /= sum
	}
}

// Contribution is what one feature added to the winning class's score
// against the runner-up.
type Contribution struct {
	Feature Feature
	Weight  float64 // value × (weight for the winner − weight for the runner-up)
}

// Explain returns the features that pushed class a over class b the most
// (positive weights only, largest first, ties in feature order, at most n).
func (m *Model) Explain(feats []Feature, a, b int, n int) []Contribution {
	return explain(feats, m.rows(feats), a, b, n)
}

// explain is Explain with the features' rows looked up: the n largest
// positive contributions, kept sorted as they are found (a stable sort of
// all of them, cut to n).
func explain(feats []Feature, rows [][]float64, a, b int, n int) []Contribution {
	if n <= 0 {
		return nil
	}
	var out []Contribution
	for i, row := range rows {
		if row == nil {
			continue
		}
		d := feats[i].Value * (row[a] - row[b])
		if !(d > 0) || len(out) == n && d <= out[n-1].Weight {
			continue
		}
		at := len(out)
		for at > 0 && out[at-1].Weight < d {
			at--
		}
		if len(out) < n {
			out = append(out, Contribution{})
		}
		copy(out[at+1:], out[at:len(out)-1])
		out[at] = Contribution{Feature: feats[i], Weight: d}
	}
	return out
}

// ClassIndex returns the index of c in m.Classes, or -1.
func (m *Model) ClassIndex(c workflow.Class) int {
	for i, x := range m.Classes {
		if x == c {
			return i
		}
	}
	return -1
}

// Encode writes the model as text: deterministic (buckets ascending, weights
// to 4 significant digits and to the nearest 1/weightSteps, which keeps the
// file under 5 MB), so the same training yields the same bytes.
//
//	foiaflow reply model v1
//	meta <key> <value>        (any number)
//	classes <class> …
//	bits <n>
//	temperature <t>
//	agreement_temperature <t> (optional)
//	bias <w> …                (one per class)
//	= <name> <w> …            (one line per named feature, names ascending)
//	<bucket> <name> <w> …     (one line per word bucket, one weight per class)
func (m *Model) Encode(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, modelMagic)
	for _, l := range m.Meta {
		fmt.Fprintln(bw, "meta", l)
	}
	cls := make([]string, len(m.Classes))
	for i, c := range m.Classes {
		cls[i] = string(c)
	}
	fmt.Fprintln(bw, "classes", strings.Join(cls, " "))
	fmt.Fprintln(bw, "bits", m.Bits)
	fmt.Fprintln(bw, "temperature", formatWeight(m.Temperature))
	if m.AgreementTemperature > 0 {
		fmt.Fprintln(bw, "agreement_temperature", formatWeight(m.AgreementTemperature))
	}
	fmt.Fprintln(bw, "bias", formatWeights(m.Bias))
	names := make([]string, 0, len(m.Named))
	for n := range m.Named {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(bw, "= %s %s\n", n, formatWeights(m.Named[n]))
	}
	buckets := make([]uint32, 0, len(m.Rows))
	for b := range m.Rows {
		buckets = append(buckets, b)
	}
	sort.Slice(buckets, func(i, j int) bool { return buckets[i] < buckets[j] })
	for _, b := range buckets {
		name := m.Names[b]
		if name == "" || strings.ContainsAny(name, " \t\n") {
			name = "-"
		}
		fmt.Fprintf(bw, "%d %s %s\n", b, name, formatWeights(m.Rows[b]))
	}
	return bw.Flush()
}

func formatWeight(f float64) string {
	s := strconv.FormatFloat(f, 'g', 4, 64)
	if s == "-0" {
		return "0"
	}
	return s
}

// weightSteps: weights are written to the nearest 1e-5. A word's weight
// below it moves no logit by more than a few thousandths in all (a reply
// has a few hundred features), and a tenth of the file's bytes went to
// such weights ("-6.791e-06").
const weightSteps = 1e5 // per unit

func formatWeights(ws []float64) string {
	parts := make([]string, len(ws))
	for i, w := range ws {
		parts[i] = formatWeight(math.Round(w*weightSteps) / weightSteps)
	}
	return strings.Join(parts, " ")
}

// RoundTrip returns the model as it reads back from its file (weights
// rounded as Encode writes them), so a model scored in memory scores exactly
// as the shipped file will.
func (m *Model) RoundTrip() (*Model, error) {
	var buf bytes.Buffer
	if err := m.Encode(&buf); err != nil {
		return nil, err
	}
	return DecodeModel(&buf)
}

// DecodeModel reads a model written by Encode. A malformed file is an error
// naming the line.
func DecodeModel(r io.Reader) (*Model, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	m := &Model{Rows: map[uint32][]float64{}, Named: map[string][]float64{}, Names: map[uint32]string{}}
	line := 0
	fail := func(format string, a ...any) (*Model, error) {
		return nil, fmt.Errorf("model line %d: %s", line, fmt.Sprintf(format, a...))
	}
	for sc.Scan() {
		line++
		t := sc.Text()
		if line == 1 {
			if t != modelMagic {
				return fail("want %q", modelMagic)
			}
			continue
		}
		f := strings.Fields(t)
		if len(f) == 0 {
			continue
		}
		var err error
		switch f[0] {
		case "meta":
			m.Meta = append(m.Meta, strings.TrimPrefix(t, "meta "))
		case "classes":
			for _, c := range f[1:] {
				m.Classes = append(m.Classes, workflow.Class(c))
			}
		case "bits":
			if len(f) != 2 {
				return fail("bits takes one value")
			}
			if m.Bits, err = strconv.Atoi(f[1]); err != nil || m.Bits < 8 || m.Bits > 30 {
				return fail("bits %q", f[1])
			}
		case "temperature":
			if len(f) != 2 {
				return fail("temperature takes one value")
			}
			if m.Temperature, err = strconv.ParseFloat(f[1], 64); err != nil || m.Temperature <= 0 {
				return fail("temperature %q", f[1])
			}
		case "agreement_temperature":
			if len(f) != 2 {
				return fail("agreement_temperature takes one value")
			}
			if m.AgreementTemperature, err = strconv.ParseFloat(f[1], 64); err != nil || m.AgreementTemperature <= 0 {
				return fail("agreement_temperature %q", f[1])
			}
		case "bias":
			if m.Bias, err = parseWeights(f[1:], len(m.Classes)); err != nil {
				return fail("bias: %v", err)
			}
		case "=":
			if len(f) < 2 || Hashed(f[1]) {
				return fail("bad named feature line")
			}
			if m.Named[f[1]], err = parseWeights(f[2:], len(m.Classes)); err != nil {
				return fail("%s: %v", f[1], err)
			}
		default:
			if len(m.Classes) == 0 || m.Bits == 0 {
				return fail("weights before classes and bits")
			}
			b, err := strconv.ParseUint(f[0], 10, 32)
			if err != nil || b >= 1<<m.Bits || len(f) < 2 {
				return fail("bad bucket line")
			}
			ws, err := parseWeights(f[2:], len(m.Classes))
			if err != nil {
				return fail("bucket %d: %v", b, err)
			}
			m.Rows[uint32(b)] = ws
			if f[1] != "-" {
				m.Names[uint32(b)] = f[1]
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(m.Classes) < 2 || m.Bits == 0 || m.Temperature == 0 || len(m.Bias) != len(m.Classes) {
		return nil, errors.New("model: classes, bits, temperature or bias missing")
	}
	return m, nil
}

func parseWeights(f []string, n int) ([]float64, error) {
	if len(f) != n {
		return nil, fmt.Errorf("%d weights, want %d", len(f), n)
	}
	out := make([]float64, n)
	for i, s := range f {
		w, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(w) || math.IsInf(w, 0) {
			return nil, fmt.Errorf("weight %q", s)
		}
		out[i] = w
	}
	return out, nil
}
