package app

import (
	"strings"
	"testing"
)

func TestMainRejectsUnknownCommandBeforeTouchingAnything(t *testing.T) {
	built := false
	err := run("worker", []string{"serve-forever"}, func(*App) (Process, error) { built = true; return nil, nil })
	if err == nil || !strings.Contains(err.Error(), "unknown command") || built {
		t.Fatalf("err %v, built %v", err, built)
	}
	if err := run("worker", []string{"-no-such-flag"}, nil); err == nil {
		t.Fatal("unknown flag accepted")
	}
}

func TestConfigValidationReportsEveryProblem(t *testing.T) {
	t.Setenv("ANALYZER", "magic")
	t.Setenv("WORKER_CONCURRENCY", "0")
	t.Setenv("SMTP_TLS", "sometimes")
	t.Setenv("STEP_TIMEOUT", "20s") // under OPENAI_TIMEOUT's 30s default
	_, err := Load()
	if err == nil {
		t.Fatal("invalid config accepted")
	}
	for _, want := range []string{"ANALYZER", "WORKER_CONCURRENCY", "SMTP_TLS", "STEP_TIMEOUT"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %s", err, want)
		}
	}
}

// Issue 10 "Loose doors": the unauthenticated metrics endpoints of the
// worker and scheduler listen on loopback unless configured otherwise.
func TestMetricsBindToLoopbackByDefault(t *testing.T) {
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	for name, addr := range map[string]string{"WORKER_METRICS_ADDR": c.WorkerMetricsAddr, "SCHEDULER_METRICS_ADDR": c.SchedulerMetricsAddr} {
		if !strings.HasPrefix(addr, "127.0.0.1:") {
			t.Errorf("%s defaults to %q, want loopback", name, addr)
		}
	}
}

// Issue 10 "Matching you can trust": Message-IDs and reply tokens are keyed
// by MAIL_ID_SECRET; a production mail domain cannot run on the public
// development secret or a short one.
func TestMailIDSecretRules(t *testing.T) {
	for _, tc := range []struct {
		domain, secret string
		ok             bool
	}{
		{"foiaflow.local", "", true}, // development default
		{"newsroom.test", "", true},
		{"foia.newsroom.org", "", false},
		{"foia.newsroom.org", devMailIDSecret, false},
		{"foia.newsroom.org", "too-short", false},
		{"foia.newsroom.org", "0123456789abcdef0123456789abcdef", true},
	} {
		c := Config{MailDomain: tc.domain, MailIDSecret: tc.secret}
		ids, err := c.MailIDs()
		if (err == nil) != tc.ok {
			t.Errorf("domain %q secret %q: err %v, want ok=%v", tc.domain, tc.secret, err, tc.ok)
		}
		if err == nil && ids.IsZero() {
			t.Errorf("domain %q: zero IDs", tc.domain)
		}
	}
	t.Setenv("MAIL_DOMAIN", "foia.newsroom.org")
	t.Setenv("MAIL_FROM", "foiaflow <requests@foia.newsroom.org>")
	if _, err := Load(); err == nil || !strings.Contains(err.Error(), "MAIL_ID_SECRET") {
		t.Fatalf("production domain without MAIL_ID_SECRET: %v", err)
	}
}

// The defaults alone must make a valid configuration, and Defaults must not
// read the process environment (it is the harnesses' source of defaults).
func TestDefaultsAreValidAndIgnoreTheEnvironment(t *testing.T) {
	t.Setenv("WORKER_CONCURRENCY", "97")
	d := Defaults()
	if err := d.Validate(); err != nil {
		t.Fatalf("defaults invalid: %v", err)
	}
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if c.WorkerConcurrency != 97 || d.WorkerConcurrency == 97 {
		t.Fatalf("Load read WORKER_CONCURRENCY=%d, Defaults %d", c.WorkerConcurrency, d.WorkerConcurrency)
	}
}
