package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"slices"
	"time"

	"github.com/foiaflow/foiaflow/analysis"
	"github.com/foiaflow/foiaflow/analysis/training"
	"github.com/foiaflow/foiaflow/dataset"
	"golang.org/x/sync/errgroup"
)

// split is one cross-validation split: the replies scored by a model
// trained on the others.
type split struct {
	name  string // "kfold/3", "loso/foi-international"
	train []int  // indexes into the pool of all examples
	test  []dataset.Reply
}

// crossValidate scores the offline model by grouped k-fold and by
// leave-one-set-out over the embedded corpora, training each split's model
// as cmd/train trains the shipped one (its temperature calibrated on folds
// of that split's training replies only).
func crossValidate(ctx context.Context, c config, out io.Writer) error {
	replies, err := dataset.AllReplies()
	if err != nil {
		return err
	}
	written, err := dataset.Written()
	if err != nil {
		return err
	}
	exs := training.Examples(replies)
	wexs := training.Examples(written)
	o := training.DefaultOptions()
	if c.iterations > 0 {
		o.Iterations = c.iterations
	}
	start := time.Now()

	// Every split trains on a subset of one pool: the real examples, then
	// the written ones.
	pool := training.NewPool(append(slices.Clone(exs), wexs...), o)
	realIDs, writtenIDs := ids(0, len(exs)), ids(len(exs), len(wexs))

	// Every real split trains on all the written replies too; they are
	// never held out there.
	folds := training.Folds(exs, c.folds, o.Seed)
	var foldNames []string
	for f := 0; f < c.folds; f++ {
		foldNames = append(foldNames, fmt.Sprintf("kfold/%d", f+1))
	}
	kfold := splitBy(foldNames, func(i int) string { return foldNames[folds[i]] }, realIDs, replies, writtenIDs)
	loso := splitBy(prefixed("loso/", dataset.SetNames), func(i int) string { return "loso/" + exs[i].Set }, realIDs, replies, writtenIDs)
	// The written batches, each scored by a model trained on the real sets
	// and the other batches: text no cue was written against.
	lobo := splitBy(prefixed("written/", dataset.WrittenSetNames), func(i int) string { return "written/" + wexs[i].Set }, writtenIDs, written, realIDs)

	fmt.Fprintf(out, "cross-validation over %d replies in %d sets (%s), MIN_CONFIDENCE %.2f; %d written replies in %d batches train every split\n",
		len(replies), len(dataset.SetNames), joinSets(), c.minConfidence, len(written), len(dataset.WrittenSetNames))
	kAll, err := runSplits(ctx, c, pool, kfold, out, false)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "\n== grouped %d-fold, pooled\n", c.folds)
	km := score(kAll, c.minConfidence)
	printReport(out, km, kAll)
	printReliability(out, kAll)
	fmt.Fprintln(out, lastLine(km)+" split=kfold")

	fmt.Fprintln(out, "\n== written replies, leave-one-batch-out (train on the real sets and the other batches, score this one)")
	wAll, err := runSplits(ctx, c, pool, lobo, out, false)
	if err != nil {
		return err
	}
	wm := score(wAll, c.minConfidence)
	printReport(out, wm, wAll)
	printReliability(out, wAll)
	fmt.Fprintln(out, lastLine(wm)+" split=written")

	fmt.Fprintln(out, "\n== leave-one-set-out (train on the other sets, score this one)")
	lAll, err := runSplits(ctx, c, pool, loso, out, true)
	if err != nil {
		return err
	}
	fmt.Fprintln(out, "\n== leave-one-set-out, pooled")
	lm := score(lAll, c.minConfidence)
	printReport(out, lm, lAll)
	printReliability(out, lAll)
	fmt.Fprintf(out, "\ncross-validation took %s\n", time.Since(start).Round(time.Millisecond))
	perSec, passes := throughput(ctx, analysis.Offline{}, replies, 5, c.minTime)
	fmt.Fprintf(out, "throughput: %.0f replies/s (shipped model, single goroutine, %d passes over all %d replies)\n", perSec, passes, len(replies))
	fmt.Fprintln(out, lastLine(lm)+" split=loso")
	return nil
}

// splitBy makes one split per name: the replies whose key is that name
// (pool example pids[i] is replies[i]) scored by a model trained on base
// and then the other examples of pids.
func splitBy(names []string, key func(i int) string, pids []int, replies []dataset.Reply, base []int) []split {
	var out []split
	for _, name := range names {
		s := split{name: name, train: slices.Clone(base)}
		for i, id := range pids {
			if key(i) == name {
				s.test = append(s.test, replies[i])
			} else {
				s.train = append(s.train, id)
			}
		}
		out = append(out, s)
	}
	return out
}

// ids is from, from+1, …, from+n-1.
func ids(from, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = from + i
	}
	return out
}

func prefixed(prefix string, names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = prefix + n
	}
	return out
}

// runSplits trains and scores each split and returns all results; with
// detail, each split's report is printed too. Splits are trained
// GOMAXPROCS at a time (each training is one goroutine's numeric loop);
// every split's own line is printed, in order, as soon as it and the ones
// before it are done.
func runSplits(ctx context.Context, c config, pool *training.Pool, splits []split, out io.Writer, detail bool) ([]result, error) {
	type outcome struct {
		m    *analysis.Model
		rs   []result
		ok   bool
		done chan struct{}
	}
	outs := make([]outcome, len(splits))
	for i := range outs {
		outs[i].done = make(chan struct{})
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	launched := make(chan struct{})
	go func() {
		defer close(launched)
		for i, s := range splits {
			g.Go(func() error {
				defer close(outs[i].done)
				if err := gctx.Err(); err != nil {
					return err // another split failed
				}
				m, err := pool.Train(gctx, s.train)
				if err != nil {
					return fmt.Errorf("%s: %w", s.name, err)
				}
				rs, _, err := classify(gctx, analysis.Offline{Model: m}, s.test, c.timeout)
				if err != nil {
					return fmt.Errorf("%s: %w", s.name, err)
				}
				outs[i].m, outs[i].rs, outs[i].ok = m, rs, true
				return nil
			})
		}
	}()
	var all []result
	for i, s := range splits {
		<-outs[i].done
		if !outs[i].ok {
			break // g.Wait says which split failed
		}
		sm := score(outs[i].rs, c.minConfidence)
		if detail {
			fmt.Fprintf(out, "\n-- %s: trained on %d replies, temperature %.3f\n", s.name, len(s.train), outs[i].m.Temperature)
			printReport(out, sm, outs[i].rs)
			printReliability(out, outs[i].rs)
		}
		fmt.Fprintln(out, lastLine(sm)+" split="+s.name)
		all = append(all, outs[i].rs...)
	}
	<-launched
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return all, nil
}

func joinSets() string {
	s := ""
	for i, n := range dataset.SetNames {
		if i > 0 {
			s += ", "
		}
		s += n
	}
	return s
}
