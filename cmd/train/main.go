// Command train fits the offline analyzer's reply model on the project's
// labelled replies (dataset/replies) and writes it to analysis/model.txt,
// the file the analyzer embeds. Training is deterministic: the same replies
// give the same bytes (`make train`; a test compares the committed file with
// a fresh training).
//
// Usage: go run ./cmd/train [-out analysis/model.txt]
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/foiaflow/foiaflow/analysis/training"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "train:", err)
		os.Exit(1)
	}
}

func run(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("train", flag.ContinueOnError)
	path := fs.String("out", "analysis/model.txt", "where to write the model")
	if err := fs.Parse(args); err != nil {
		return err
	}
	start := time.Now()
	b, m, err := training.ShippedModel(context.Background())
	if err != nil {
		return err
	}
	if err := writeIfChanged(*path, b); err != nil {
		return err
	}
	fmt.Fprintf(out, "train: wrote %s (%d bytes, %d word buckets, %d named features, temperature %.4g, agreement temperature %.4g) in %s\n",
		*path, len(b), len(m.Rows), len(m.Named), m.Temperature, m.AgreementTemperature, time.Since(start).Round(time.Millisecond))
	return nil
}

// writeIfChanged writes b to path through a temporary file and a rename,
// leaving the file untouched when it already holds b.
func writeIfChanged(path string, b []byte) error {
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, b) {
		return nil
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
