package mail_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/foiaflow/foiaflow/mail"
)

func TestCheckSubject(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"", "RE: Public records request — fee of $25.00", "Tab\there", strings.Repeat("é", mail.MaxSubjectBytes/2)} {
		if err := mail.CheckSubject(ok); err != nil {
			t.Errorf("CheckSubject(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"Fee\r\nBcc: victim@example.org", "line\nfeed", "cr\ronly", "nul\x00", "del\x7f",
		"bad utf8 \xff", strings.Repeat("x", mail.MaxSubjectBytes+1)} {
		if err := mail.CheckSubject(bad); !errors.Is(err, mail.ErrInvalidOutbound) {
			t.Errorf("CheckSubject(%q) = %v, want ErrInvalidOutbound", bad, err)
		}
	}
}

func TestCheckAddress(t *testing.T) {
	t.Parallel()
	if err := mail.CheckAddress("records@springfield.gov"); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"", "records@springfield.gov\r\nBcc: x@y.org", "Records <records@springfield.gov>",
		"<records@springfield.gov>", "records@springfield.gov (comment)", "a@b.gov, c@d.gov", "no-at-sign",
		strings.Repeat("a", 250) + "@b.gov"} {
		if err := mail.CheckAddress(bad); !errors.Is(err, mail.ErrInvalidOutbound) {
			t.Errorf("CheckAddress(%q) = %v, want ErrInvalidOutbound", bad, err)
		}
	}
}

func TestBuildMessageRefusesHeaderInjection(t *testing.T) {
	t.Parallel()
	m := sampleOutbound()
	m.Subject = "Fee acceptance\r\nBcc: victim@example.org"
	if _, err := mail.BuildMessage(m); !errors.Is(err, mail.ErrInvalidOutbound) {
		t.Fatalf("BuildMessage with CR/LF subject: %v", err)
	}
}
