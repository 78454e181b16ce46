// Command eval scores a reply analyzer on labelled agency replies (the
// format of dataset/replies/agency-replies) and prints per-class
// precision/recall/F1, a confusion matrix, accuracy, macro-F1, fee exact
// match, coverage and confident-wrong share at MIN_CONFIDENCE, a reliability
// table, throughput and the misclassified files with their top reasons. The
// last line is the stable contract of `make eval` (DESIGN.md "Measuring
// contracts"):
//
//	eval: n=N accuracy=0.NNN macro_f1=0.NNN fee_exact=0.NNN fee_n=N confident_wrong=0.NNN coverage=0.NNN
//
// Usage:
//
//	go run ./cmd/eval -corpus DIR [-analyzer offline|openai] [-passes N]
//	go run ./cmd/eval -cv
//
// -corpus scores the shipped model (or the OpenAI analyzer) on DIR. -cv scores
// by cross-validation over the project's corpora (dataset/replies): grouped
// k-fold, and leave-one-set-out (train on two sets, score the third), each
// split's model trained by package analysis/training exactly as cmd/train
// trains the shipped one; one line per split, in the same format with the
// split appended, and the pooled leave-one-set-out line last.
//
// With -analyzer openai the model is configured from OPENAI_BASE_URL,
// OPENAI_MODEL and OPENAI_API_KEY (read here, in cmd/, and nowhere else).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/foiaflow/foiaflow/analysis"
	"github.com/foiaflow/foiaflow/dataset"
	"github.com/foiaflow/foiaflow/workflow"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout, os.Getenv); err != nil {
		fmt.Fprintln(os.Stderr, "eval:", err)
		os.Exit(1)
	}
}

// config is the parsed command line.
type config struct {
	corpus        string
	cv            bool
	folds         int
	iterations    int
	minConfidence float64
	analyzer      string
	passes        int
	minTime       time.Duration
	timeout       time.Duration
}

func parseFlags(args []string) (config, error) {
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	var c config
	fs.StringVar(&c.corpus, "corpus", "dataset/replies/agency-replies", "directory of *.json labelled replies")
	fs.BoolVar(&c.cv, "cv", false, "cross-validate over the project's corpora (k-fold and leave-one-set-out) instead of scoring -corpus")
	fs.IntVar(&c.folds, "folds", 5, "k of the grouped k-fold (-cv)")
	fs.IntVar(&c.iterations, "iterations", 0, "L-BFGS iterations per split model (-cv); 0: the trainer's default. Fewer is faster and gives rougher figures than the shipped model's")
	fs.Float64Var(&c.minConfidence, "min-confidence", analysis.GateConfidence, "MIN_CONFIDENCE: below it a reply goes to a human (coverage, confident_wrong)")
	fs.StringVar(&c.analyzer, "analyzer", "offline", "offline or openai")
	fs.IntVar(&c.passes, "passes", 50, "minimum passes over the corpus for the throughput figure (offline)")
	fs.DurationVar(&c.minTime, "min-time", 3*time.Second, "minimum measuring time for throughput (offline); half a second swung ±15% between runs")
	fs.DurationVar(&c.timeout, "timeout", 60*time.Second, "per-reply timeout (openai)")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if c.analyzer != "offline" && c.analyzer != "openai" {
		return c, fmt.Errorf("unknown -analyzer %q (offline|openai)", c.analyzer)
	}
	if c.cv && c.analyzer != "offline" {
		return c, errors.New("-cv trains the offline model; it cannot be combined with -analyzer openai")
	}
	if c.iterations < 0 {
		return c, fmt.Errorf("-iterations %d: must be 0 (default) or more", c.iterations)
	}
	if c.cv && c.folds < 2 {
		return c, fmt.Errorf("-folds %d: need at least 2", c.folds)
	}
	if c.minConfidence < 0 || c.minConfidence > 1 {
		return c, fmt.Errorf("-min-confidence %v: must be within [0,1]", c.minConfidence)
	}
	return c, nil
}

func newAnalyzer(c config, getenv func(string) string) (workflow.Analyzer, error) {
	if c.analyzer == "offline" {
		return analysis.Offline{}, nil
	}
	oc := analysis.OpenAIConfig{
		BaseURL: getenv("OPENAI_BASE_URL"),
		Model:   getenv("OPENAI_MODEL"),
		APIKey:  getenv("OPENAI_API_KEY"),
	}
	if oc.APIKey == "" && oc.BaseURL == "" {
		return nil, errors.New("-analyzer openai needs OPENAI_API_KEY (or OPENAI_BASE_URL for a compatible server)")
	}
	return analysis.NewOpenAIAnalyzer(oc)
}

func run(ctx context.Context, args []string, out io.Writer, getenv func(string) string) error {
	c, err := parseFlags(args)
	if err != nil {
		return err
	}
	if c.cv {
		return crossValidate(ctx, c, out)
	}
	replies, err := dataset.LoadReplies(os.DirFS(c.corpus))
	if err != nil {
		return fmt.Errorf("load corpus %s: %w", c.corpus, err)
	}
	if len(replies) == 0 {
		return fmt.Errorf("no *.json replies in %s", c.corpus)
	}
	an, err := newAnalyzer(c, getenv)
	if err != nil {
		return err
	}
	rs, usage, err := classify(ctx, an, replies, c.timeout)
	if err != nil {
		return err
	}
	m := score(rs, c.minConfidence)
	fmt.Fprintf(out, "corpus %s: %d replies, analyzer %s\n\n", c.corpus, len(replies), c.analyzer)
	printReport(out, m, rs)
	fmt.Fprintln(out)
	printReliability(out, rs)
	if c.analyzer == "offline" {
		perSec, passes := throughput(ctx, an, replies, c.passes, c.minTime)
		fmt.Fprintf(out, "\nthroughput: %.0f replies/s (single goroutine, %d passes over %d replies)\n", perSec, passes, len(replies))
		g := runtime.GOMAXPROCS(0)
		fmt.Fprintf(out, "throughput: %.0f replies/s (%d goroutines)\n", parallelThroughput(ctx, an, replies, g, c.minTime), g)
	} else {
		fmt.Fprintf(out, "\nllm usage: %d prompt + %d completion tokens, %d attempts\n", usage.PromptTokens, usage.CompletionTokens, usage.Attempts)
	}
	fmt.Fprintln(out, lastLine(m))
	return nil
}

// classify runs an over replies (each under timeout) and returns the
// results and the LLM usage summed.
func classify(ctx context.Context, an workflow.Analyzer, replies []dataset.Reply, timeout time.Duration) ([]result, workflow.LLMUsage, error) {
	rs := make([]result, 0, len(replies))
	var usage workflow.LLMUsage
	for _, r := range replies {
		actx, cancel := context.WithTimeout(ctx, timeout)
		a, err := an.Analyze(actx, workflow.Reply{MessageID: r.Name, Text: r.Text}, workflow.CaseContext{})
		cancel()
		if err != nil {
			return nil, usage, fmt.Errorf("analyze %s: %w", r.Name, err)
		}
		if a.Usage != nil {
			usage.PromptTokens += a.Usage.PromptTokens
			usage.CompletionTokens += a.Usage.CompletionTokens
			usage.Attempts += a.Usage.Attempts
		}
		name := r.Name
		if r.Set != "" {
			name = r.Set + "/" + r.Name
		}
		res := result{name: name, label: workflow.Class(r.Label), predicted: a.Class, confidence: a.Confidence,
			labelFee: r.FeeCents(), fee: a.FeeCents, reasons: a.Reasons}
		if res.labelFee != nil {
			res.feeInText = amountInText(r.Text, *res.labelFee)
		}
		rs = append(rs, res)
	}
	return rs, usage, nil
}

// throughput classifies the corpus repeatedly (at least passes times and
// minTime long) and returns replies per second.
func throughput(ctx context.Context, an workflow.Analyzer, replies []dataset.Reply, passes int, minTime time.Duration) (float64, int) {
	in := make([]workflow.Reply, len(replies))
	for i, r := range replies {
		in[i] = workflow.Reply{Text: r.Text}
	}
	start := time.Now()
	n, p := 0, 0
	for p < passes || time.Since(start) < minTime {
		for _, r := range in {
			_, _ = an.Analyze(ctx, r, workflow.CaseContext{})
			n++
		}
		p++
	}
	return float64(n) / time.Since(start).Seconds(), p
}

// parallelThroughput classifies the corpus from g goroutines for at least
// minTime and returns replies per second across all of them.
func parallelThroughput(ctx context.Context, an workflow.Analyzer, replies []dataset.Reply, g int, minTime time.Duration) float64 {
	var n atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for w := 0; w < g; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; time.Since(start) < minTime; i++ {
				_, _ = an.Analyze(ctx, workflow.Reply{Text: replies[i%len(replies)].Text}, workflow.CaseContext{})
				n.Add(1)
			}
		}()
	}
	wg.Wait()
	return float64(n.Load()) / time.Since(start).Seconds()
}
