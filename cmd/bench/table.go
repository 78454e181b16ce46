package main

import (
	"fmt"
	"os"
	"text/tabwriter"
)

func printTable(rows []row) {
	fmt.Println()
	tw := tabwriter.NewWriter(os.Stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PHASE\tRUNS\tRUNS/S\tSTEPS/S\tP50 MS\tP99 MS\tMAX MS\tLOAD (1 5 15)\tNOTE")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.phase, r.n, r.perSec, r.steps, r.p50, r.p99, r.pmax, r.load, r.note)
	}
	_ = tw.Flush()
	fmt.Println()
}
