package analysis

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestKeyScannerFindsWhatOffsetsFinds: one scan reports, for every key,
// the offsets strings.Index finds one by one (overlapping occurrences and
// keys that are suffixes or prefixes of one another included), on random
// keys and texts over a small alphabet.
func TestKeyScannerFindsWhatOffsetsFinds(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	word := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = "ab c\xc3"[rng.IntN(5)]
		}
		return string(b)
	}
	for n := 0; n < 2000; n++ {
		keys := make([]string, 1+rng.IntN(8))
		for i := range keys {
			keys[i] = word(1 + rng.IntN(4))
		}
		text := word(rng.IntN(40))
		got := make([][]int, len(keys))
		newKeyScanner(keys).scan(text, func(key, start int) { got[key] = append(got[key], start) })
		for i, k := range keys {
			slices.Sort(got[i])
			if want := offsets(text, k, nil); !slices.Equal(got[i], want) {
				t.Fatalf("keys %q in %q: key %q at %v, want %v", keys, text, k, got[i], want)
			}
		}
	}
}
