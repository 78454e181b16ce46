package analysis

import (
	"strings"
	"testing"
)

// LLM_PRICES overrides and extends the defaults; snapshot and provider-
// prefixed names find their base model; a model nobody priced is unknown,
// not free; malformed entries are refused with the entry named.
func TestParsePricesAndLookup(t *testing.T) {
	t.Parallel()
	p, err := ParsePrices(" gpt-4o=300/1200, llama3.1:8b=0/0 ,")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		model   string
		want    Price
		unknown bool
	}{
		{model: "gpt-4o", want: Price{300, 1200}},                      // overridden
		{model: "gpt-4o-mini", want: Price{15, 60}},                    // default kept
		{model: "gpt-4o-mini-2024-07-18", want: Price{15, 60}},         // dated snapshot
		{model: "gpt-4-0613", unknown: true},                           // base gpt-4 not priced
		{model: "openai/gpt-4.1-nano-2025-04-14", want: Price{10, 40}}, // provider prefix and snapshot
		{model: "llama3.1:8b", want: Price{0, 0}},                      // added, priced at zero
		{model: "mistral-large", unknown: true},
	} {
		got, ok := p.Lookup(c.model)
		if ok == c.unknown || got != c.want {
			t.Errorf("%s: %+v %v, want %+v known=%v", c.model, got, ok, c.want, !c.unknown)
		}
	}
	if got := (Price{InCents: 15, OutCents: 60}).MicroCents(1200, 300); got != 36_000 {
		t.Fatalf("MicroCents = %d, want 36000", got)
	}
	for _, bad := range []string{"gpt-4o", "gpt-4o=15", "=1/2", "x=1.5/2", "x=-1/2", "x=1/99999999"} {
		if _, err := ParsePrices(bad); err == nil || !strings.Contains(err.Error(), "LLM_PRICES entry") {
			t.Errorf("%q: err %v", bad, err)
		}
	}
	if d, _ := ParsePrices(""); len(d) != len(DefaultPrices()) {
		t.Fatalf("empty LLM_PRICES gives %d prices", len(d))
	}
}
