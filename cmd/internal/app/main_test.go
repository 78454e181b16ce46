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
	_, err := Load()
	if err == nil {
		t.Fatal("invalid config accepted")
	}
	for _, want := range []string{"ANALYZER", "WORKER_CONCURRENCY", "SMTP_TLS"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %s", err, want)
		}
	}
}
