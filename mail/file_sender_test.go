package mail_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/foiaflow/foiaflow/mail"
)

func TestFileSenderIdempotent(t *testing.T) {
	t.Parallel()
	s, err := mail.NewFileSender(filepath.Join(t.TempDir(), "outbox", "sent"))
	if err != nil {
		t.Fatal(err)
	}
	var _ mail.Sender = s
	m := sampleOutbound()
	ctx := context.Background()
	// The same message sent concurrently and again later (a resend after a
	// crash) leaves exactly one file.
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if err := s.Send(ctx, m); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if err := s.Send(ctx, m); err != nil {
		t.Fatal(err)
	}
	files, err := s.Sent()
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || files[0] != s.Path(m.MessageID) {
		t.Fatalf("files %v", files)
	}
	entries, _ := os.ReadDir(s.Dir)
	if len(entries) != 1 {
		t.Fatalf("leftover temp files: %v", entries)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	in, err := mail.ParseMIME(b, 1<<20)
	if err != nil || in.MessageID != m.MessageID {
		t.Fatalf("file content: %v %q", err, in.MessageID)
	}

	other := sampleOutbound()
	other.MessageID = testIDs.MessageID("42:x:SEND_FOLLOWUP:2")
	if err := s.Send(ctx, other); err != nil {
		t.Fatal(err)
	}
	if files, _ := s.Sent(); len(files) != 2 {
		t.Fatalf("files %v", files)
	}
}

func TestFileSenderErrors(t *testing.T) {
	t.Parallel()
	s, err := mail.NewFileSender(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	bad := sampleOutbound()
	bad.To = nil
	if err := s.Send(context.Background(), bad); !errors.Is(err, mail.ErrInvalidOutbound) {
		t.Errorf("invalid: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.Send(ctx, sampleOutbound()); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	if files, _ := s.Sent(); len(files) != 0 {
		t.Errorf("files %v", files)
	}
}

func TestFileName(t *testing.T) {
	t.Parallel()
	if got := mail.FileName("<9de2207bc95e1d4002fdc4e9fc8fdd93@foiaflow.org>"); got != "9de2207bc95e1d4002fdc4e9fc8fdd93@foiaflow.org.eml" {
		t.Errorf("clean id: %q", got)
	}
	a, b := mail.FileName("<a/b@x>"), mail.FileName("<a_b@x>")
	if a == b || strings.ContainsAny(a, "/\\") {
		t.Errorf("collision or separator: %q %q", a, b)
	}
	for _, id := range []string{"<../../etc/passwd@x>", "<..@x>", "", "<" + strings.Repeat("z", 500) + "@x>"} {
		name := mail.FileName(id)
		if strings.ContainsAny(name, "/\\") || strings.HasPrefix(name, ".") || len(name) > 200 || !strings.HasSuffix(name, ".eml") {
			t.Errorf("FileName(%q) = %q", id, name)
		}
	}
}
