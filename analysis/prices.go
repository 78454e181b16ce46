package analysis

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Price is what a model charges, in US cents per 1,000,000 tokens, for
// prompt (input) and completion (output) tokens.
type Price struct {
	InCents  int64 `json:"in_cents_per_1m"`
	OutCents int64 `json:"out_cents_per_1m"`
}

// Prices is the per-model price table the cost report uses (LLM_PRICES):
// model name → Price. Look models up with Lookup, which also finds dated
// snapshots ("gpt-4o-mini-2024-07-18") and provider-prefixed names
// ("openai/gpt-4o-mini") under their base name.
type Prices map[string]Price

// DefaultPrices are OpenAI's list prices (cents per 1M tokens, standard
// tier, uncached input) of the models foiaflow is commonly run with.
// LLM_PRICES overrides or extends them.
func DefaultPrices() Prices {
	return Prices{
		"gpt-4o-mini":   {InCents: 15, OutCents: 60},
		"gpt-4o":        {InCents: 250, OutCents: 1000},
		"gpt-4.1":       {InCents: 200, OutCents: 800},
		"gpt-4.1-mini":  {InCents: 40, OutCents: 160},
		"gpt-4.1-nano":  {InCents: 10, OutCents: 40},
		"gpt-5":         {InCents: 125, OutCents: 1000},
		"gpt-5-mini":    {InCents: 25, OutCents: 200},
		"gpt-5-nano":    {InCents: 5, OutCents: 40},
		"o3-mini":       {InCents: 110, OutCents: 440},
		"o4-mini":       {InCents: 110, OutCents: 440},
		"gpt-3.5-turbo": {InCents: 50, OutCents: 150},
	}
}

// ParsePrices reads LLM_PRICES: comma-separated "model=IN/OUT" entries, IN
// and OUT whole cents per 1M prompt and completion tokens, e.g.
// "gpt-4o-mini=15/60,llama3.1:8b=0/0". The entries override or extend
// DefaultPrices; an empty string gives the defaults. A malformed entry is
// an error naming it.
func ParsePrices(s string) (Prices, error) {
	p := DefaultPrices()
	for _, entry := range strings.Split(s, ",") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		model, price, ok := strings.Cut(entry, "=")
		in, out, ok2 := strings.Cut(price, "/")
		model = strings.TrimSpace(model)
		if !ok || !ok2 || model == "" {
			return nil, fmt.Errorf("LLM_PRICES entry %q: want model=IN/OUT (cents per 1M tokens)", entry)
		}
		inC, err1 := strconv.ParseInt(strings.TrimSpace(in), 10, 64)
		outC, err2 := strconv.ParseInt(strings.TrimSpace(out), 10, 64)
		if err1 != nil || err2 != nil || inC < 0 || outC < 0 || inC > 1e7 || outC > 1e7 {
			return nil, fmt.Errorf("LLM_PRICES entry %q: IN and OUT must be whole cents per 1M tokens in 0..10000000", entry)
		}
		p[model] = Price{InCents: inC, OutCents: outC}
	}
	return p, nil
}

// snapshotSuffix is the date or number OpenAI appends to a model's name
// for a pinned snapshot: "-2024-07-18", "-0613".
var snapshotSuffix = regexp.MustCompile(`-(\d{4}-\d{2}-\d{2}|\d{4})$`)

// Lookup returns the price of model: its own entry, else the entry of its
// name without a provider prefix ("openai/") and without a snapshot suffix.
// ok is false for a model the table does not know (its cost is unknown,
// not zero).
func (p Prices) Lookup(model string) (Price, bool) {
	if pr, ok := p[model]; ok {
		return pr, true
	}
	base := model[strings.LastIndexByte(model, '/')+1:]
	if pr, ok := p[base]; ok {
		return pr, true
	}
	pr, ok := p[snapshotSuffix.ReplaceAllString(base, "")]
	return pr, ok
}

// MicroCents is the cost of tokens at price in millionths of a cent
// (cents per 1M tokens × tokens): exact, so sums over many small calls do
// not round away. Divide by 1,000,000 for cents.
func (pr Price) MicroCents(promptTokens, completionTokens int64) int64 {
	return promptTokens*pr.InCents + completionTokens*pr.OutCents
}
