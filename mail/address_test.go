package mail_test

import (
	"strings"
	"testing"

	"github.com/foiaflow/foiaflow/mail"
)

func TestReplyAddressRoundTrip(t *testing.T) {
	t.Parallel()
	addr := mail.ReplyAddress("k7q2m9x4", "FoiaFlow.org")
	if addr != "requests+k7q2m9x4@foiaflow.org" {
		t.Fatalf("ReplyAddress = %q", addr)
	}
	if tok, ok := mail.TokenFromAddresses([]string{addr}, "foiaflow.org"); !ok || tok != "k7q2m9x4" {
		t.Fatalf("round trip: %q %v", tok, ok)
	}
}

func TestTokenFromAddresses(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		addrs []string
		want  string
	}{
		{"bare", []string{"requests+abc123@foiaflow.org"}, "abc123"},
		{"display name", []string{`"FOIA Desk" <requests+abc123@foiaflow.org>`}, "abc123"},
		{"upper case", []string{"REQUESTS+ABC123@FOIAFLOW.ORG"}, "abc123"},
		{"list, second matches", []string{"clerk@city.gov, Desk <requests+t-1_2.x@foiaflow.org>"}, "t-1_2.x"},
		{"later element", []string{"clerk@city.gov", "requests+q9@foiaflow.org"}, "q9"},
		{"unparseable list falls back", []string{`Broken "quote <requests+zz@foiaflow.org>`}, "zz"},
		{"other domain", []string{"requests+abc@evil.org"}, ""},
		{"subdomain is not the domain", []string{"requests+abc@mail.foiaflow.org"}, ""},
		{"other local part", []string{"records+abc@foiaflow.org"}, ""},
		{"empty token", []string{"requests+@foiaflow.org"}, ""},
		{"bad token chars", []string{`"requests+a b"@foiaflow.org`}, ""},
		{"too long", []string{"requests+" + strings.Repeat("a", 65) + "@foiaflow.org"}, ""},
		{"none", nil, ""},
	}
	for _, c := range cases {
		tok, ok := mail.TokenFromAddresses(c.addrs, "FOIAflow.org")
		if tok != c.want || ok != (c.want != "") {
			t.Errorf("%s: got %q %v, want %q", c.name, tok, ok, c.want)
		}
	}
}

func TestNormalizeMessageID(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"<a@b>":             "<a@b>",
		"  <a@b>  ":         "<a@b>",
		"a@b":               "<a@b>",
		"<a@b> (comment)":   "<a@b>",
		"<a@b> <c@d>":       "<a@b>",
		"<a\r\n @b>":        "<a@b>",
		"":                  "",
		"   ":               "",
		"<>":                "",
		"<CAF=Xy@Mail.Gov>": "<CAF=Xy@Mail.Gov>",
	}
	for in, want := range cases {
		if got := mail.NormalizeMessageID(in); got != want {
			t.Errorf("NormalizeMessageID(%q) = %q, want %q", in, got, want)
		}
	}
	refs := mail.ParseReferences("<a@b>\r\n <c@d> <a@b>")
	if strings.Join(refs, ",") != "<a@b>,<c@d>" {
		t.Errorf("ParseReferences %q", refs)
	}
	if refs := mail.ParseReferences("a@b, c@d"); strings.Join(refs, ",") != "<a@b>,<c@d>" {
		t.Errorf("ParseReferences bare %q", refs)
	}
}
