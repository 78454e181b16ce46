package analysis

import "fmt"

// keyScanner finds every occurrence of a fixed set of keys (non-empty
// byte strings) in one pass over a text: an Aho–Corasick automaton with
// every transition tabulated, over classes of bytes (each byte some key
// holds is a class of its own; all other bytes are class 0). One scan
// stands in for an index lookup per key where a text is checked for
// hundreds of keys at once (the cue table's). github.com/BobuSumisu/aho-corasick
// (v1.0.3) was measured in its place on 2026-11-30: the same offsets, but
// a 9.6 MB table of 256 transitions a state against this one's 0.4 MB, a
// copy of every text to []byte, and 9 % fewer replies a second over the
// 155 real ones (2,003 against 2,197, the mean of five alternating runs of
// BenchmarkOfflineCorpus), which the 2,000-a-second goal cannot spare.
type keyScanner struct {
	class [256]uint8
	cols  int
	// next[s*cols+c] is the state after state s reads a byte of class c;
	// state 0 is the start.
	next []uint16
	// ends[first[s]:first[s+1]] are the keys that end where the text
	// has brought the automaton to state s.
	first []int32
	ends  []int32
	lens  []int32 // the keys' lengths
}

// newKeyScanner returns the scanner of keys; a key's index in keys is how
// scan names it. It panics on an empty key, on more distinct bytes or
// states than it can number (the keys are the package's own).
func newKeyScanner(keys []string) *keyScanner {
	k := &keyScanner{cols: 1, lens: make([]int32, len(keys))}
	for _, key := range keys {
		if key == "" {
			panic("keyScanner: empty key")
		}
		for i := 0; i < len(key); i++ {
			if k.class[key[i]] == 0 {
				if k.cols == 256 {
					panic("keyScanner: more than 255 distinct bytes in the keys")
				}
				k.class[key[i]] = uint8(k.cols)
				k.cols++
			}
		}
	}
	// The trie of the keys, -1 where it has no edge.
	var next []int32
	var own [][]int32 // the keys ending at each state
	newState := func() int32 {
		for range k.cols {
			next = append(next, -1)
		}
		own = append(own, nil)
		return int32(len(own) - 1)
	}
	newState()
	for id, key := range keys {
		k.lens[id] = int32(len(key))
		s := int32(0)
		for i := 0; i < len(key); i++ {
			e := int(s)*k.cols + int(k.class[key[i]])
			if next[e] < 0 {
				t := newState()
				next[e] = t
			}
			s = next[e]
		}
		own[s] = append(own[s], int32(id))
	}
	if len(own) > 1<<16 {
		panic(fmt.Sprintf("keyScanner: %d states", len(own)))
	}
	// Breadth first, so that a state's fallback (the state of its longest
	// proper suffix in the trie) is complete before it: a missing edge
	// goes where the fallback's goes, and the keys ending at the fallback
	// end here too.
	fail := make([]int32, len(own))
	var queue []int32
	for c := range k.cols {
		if t := next[c]; t > 0 {
			queue = append(queue, t)
		} else {
			next[c] = 0
		}
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		own[s] = append(own[s], own[fail[s]]...)
		for c := range k.cols {
			e, f := int(s)*k.cols+c, int(fail[s])*k.cols+c
			if t := next[e]; t >= 0 {
				fail[t] = next[f]
				queue = append(queue, t)
			} else {
				next[e] = next[f]
			}
		}
	}
	k.next = make([]uint16, len(next))
	for i, t := range next {
		k.next[i] = uint16(t)
	}
	k.first = make([]int32, len(own)+1)
	for s, ids := range own {
		k.ends = append(k.ends, ids...)
		k.first[s+1] = int32(len(k.ends))
	}
	return k
}

// scan calls hit with the index of every key occurring in text and the
// offset where the occurrence starts (overlapping occurrences included),
// in the order the occurrences end.
func (k *keyScanner) scan(text string, hit func(key, start int)) {
	s := 0
	for i := 0; i < len(text); i++ {
		s = int(k.next[s*k.cols+int(k.class[text[i]])])
		if f, e := k.first[s], k.first[s+1]; f != e {
			for _, id := range k.ends[f:e] {
				hit(int(id), i+1-int(k.lens[id]))
			}
		}
	}
}
