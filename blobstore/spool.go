package blobstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
)

// ErrTooLarge: a Spool read more than its limit.
var ErrTooLarge = errors.New("blobstore: over the size limit")

// Spooled is a body written to a temporary file while it was hashed, so a
// request can be verified and stored without holding it in memory.
type Spooled struct {
	f      *os.File
	Digest string // lowercase hex SHA-256
	Size   int64
}

// Spool copies r into a new temporary file in dir (os.TempDir when empty),
// hashing it with SHA-256 and writing the same bytes to each of also (an
// HMAC, say). It reads at most max bytes: one byte more returns ErrTooLarge
// and removes the file. The caller must Close the result.
func Spool(dir string, r io.Reader, max int64, also ...io.Writer) (*Spooled, error) {
	f, err := os.CreateTemp(dir, "spool-*")
	if err != nil {
		return nil, fmt.Errorf("blobstore: spool: %w", err)
	}
	// Unlinked at once on Unix: the file vanishes with its descriptor even
	// if the process dies.
	_ = os.Remove(f.Name())
	h := sha256.New()
	w := io.MultiWriter(append([]io.Writer{f, h}, also...)...)
	n, err := io.Copy(w, io.LimitReader(r, max+1))
	if err == nil && n > max {
		err = fmt.Errorf("%w: more than %d bytes", ErrTooLarge, max)
	}
	if err == nil {
		_, err = f.Seek(0, io.SeekStart)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return &Spooled{f: f, Digest: hex.EncodeToString(h.Sum(nil)), Size: n}, nil
}

// Reader returns the spooled bytes from the start.
func (s *Spooled) Reader() (io.Reader, error) {
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	return s.f, nil
}

// Bytes reads the spooled bytes into memory (the parser needs them whole;
// callers bound Size first).
func (s *Spooled) Bytes() ([]byte, error) {
	r, err := s.Reader()
	if err != nil {
		return nil, err
	}
	b := make([]byte, s.Size)
	_, err = io.ReadFull(r, b)
	return b, err
}

// Store puts the spooled bytes into st under their digest.
func (s *Spooled) Store(ctx context.Context, st Store) error {
	r, err := s.Reader()
	if err != nil {
		return err
	}
	return st.Put(ctx, s.Digest, r, s.Size)
}

// Close removes the temporary file.
func (s *Spooled) Close() error { return s.f.Close() }
