package mail

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// FileSender is the default sink when no SMTP server is configured
// (DESIGN.md "Email"): each message is written to <Dir>/<name>.eml where
// name is the sanitized Message-ID (FileName). Writes are atomic (temp file
// in Dir, fsync, rename), so a reader never sees a partial file, and the
// same Message-ID always maps to the same file: a resend overwrites it and
// never creates a second one. Safe for concurrent use.
type FileSender struct {
	Dir string
}

// NewFileSender creates dir (and parents) if needed.
func NewFileSender(dir string) (*FileSender, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create mail dir: %w", err)
	}
	return &FileSender{Dir: dir}, nil
}

// Send renders m with BuildMessage and writes it atomically. Errors:
// ErrInvalidOutbound from BuildMessage, ctx.Err() when ctx is done before
// the write, or the I/O error.
func (s *FileSender) Send(ctx context.Context, m Outbound) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	b, err := BuildMessage(m)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(s.Dir, ".sending-*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", m.MessageID, err)
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", m.MessageID, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("sync %s: %w", m.MessageID, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("close %s: %w", m.MessageID, err)
	}
	if err := os.Rename(tmp.Name(), s.Path(m.MessageID)); err != nil {
		return fmt.Errorf("rename %s: %w", m.MessageID, err)
	}
	return nil
}

// Path returns the file a message with messageID is written to.
func (s *FileSender) Path(messageID string) string {
	return filepath.Join(s.Dir, FileName(messageID))
}

// Sent returns the paths of every .eml file in Dir, sorted (for tests and
// the demo).
func (s *FileSender) Sent() ([]string, error) {
	paths, err := filepath.Glob(filepath.Join(s.Dir, "*.eml"))
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	return paths, nil
}

// FileName returns "<sanitized id>.eml" for a Message-ID: angle brackets
// are dropped and every byte outside [A-Za-z0-9._@+-] becomes '_'. When
// sanitizing changed anything (or the name would be longer than 160
// bytes), 12 hex chars of SHA-256 of the id are appended so that distinct
// ids never share a file.
func FileName(messageID string) string {
	id := strings.TrimSpace(messageID)
	inner := strings.Trim(id, "<>")
	var b strings.Builder
	changed := "<"+inner+">" != id
	for i := 0; i < len(inner); i++ {
		c := inner[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("._@+-", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('_')
		changed = true
	}
	name := strings.TrimLeft(b.String(), ".")
	if name != b.String() || name == "" || len(name) > 160 {
		changed = true
		name = name[:min(len(name), 160)]
	}
	if changed {
		sum := sha256.Sum256([]byte(messageID))
		name += "-" + hex.EncodeToString(sum[:6])
	}
	return name + ".eml"
}
