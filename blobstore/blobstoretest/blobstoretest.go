// Package blobstoretest is the contract every blobstore.Store passes: the
// directory store and the S3 store run the same suite (issue 11).
package blobstoretest

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/foiaflow/foiaflow/blobstore"
)

// Run runs the suite against the store newStore returns (a fresh, empty
// store per call).
func Run(t *testing.T, newStore func(t *testing.T) blobstore.Store) {
	t.Run("RoundTrip", func(t *testing.T) { roundTrip(t, newStore(t)) })
	t.Run("Dedup", func(t *testing.T) { dedup(t, newStore(t)) })
	t.Run("DigestMismatch", func(t *testing.T) { mismatch(t, newStore(t)) })
	t.Run("NotFoundAndBadDigest", func(t *testing.T) { notFound(t, newStore(t)) })
	t.Run("Seek", func(t *testing.T) { seek(t, newStore(t)) })
	t.Run("Large", func(t *testing.T) { large(t, newStore(t)) })
	t.Run("Concurrent", func(t *testing.T) { concurrent(t, newStore(t)) })
	t.Run("Empty", func(t *testing.T) { empty(t, newStore(t)) })
}

func put(t *testing.T, s blobstore.Store, b []byte) string {
	t.Helper()
	d := blobstore.Digest(b)
	if err := s.Put(context.Background(), d, bytes.NewReader(b), int64(len(b))); err != nil {
		t.Fatalf("put %d bytes: %v", len(b), err)
	}
	return d
}

func read(t *testing.T, s blobstore.Store, d string) []byte {
	t.Helper()
	o, err := s.Open(context.Background(), d)
	if err != nil {
		t.Fatalf("open %s: %v", d, err)
	}
	defer o.Close()
	b, err := io.ReadAll(o)
	if err != nil {
		t.Fatalf("read %s: %v", d, err)
	}
	if o.Size() != int64(len(b)) {
		t.Fatalf("Size() %d, read %d bytes", o.Size(), len(b))
	}
	return b
}

func roundTrip(t *testing.T, s blobstore.Store) {
	b := []byte("%PDF-1.4\nresponsive records\n%%EOF\n")
	d := put(t, s, b)
	if got := read(t, s, d); !bytes.Equal(got, b) {
		t.Fatalf("read back %q, stored %q", got, b)
	}
	n, err := s.Stat(context.Background(), d)
	if err != nil || n != int64(len(b)) {
		t.Fatalf("Stat = %d, %v; want %d", n, err, len(b))
	}
}

// errReader fails if read: a deduplicated Put must not read its body.
type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("read of a deduplicated body") }

func dedup(t *testing.T, s blobstore.Store) {
	b := []byte("the same attachment, sent twice")
	d := put(t, s, b)
	if err := s.Put(context.Background(), d, errReader{}, int64(len(b))); err != nil {
		t.Fatalf("second put of a stored digest: %v", err)
	}
	if got := read(t, s, d); !bytes.Equal(got, b) {
		t.Fatalf("read back %q", got)
	}
}

func mismatch(t *testing.T, s blobstore.Store) {
	ctx := context.Background()
	good := []byte("genuine bytes")
	d := blobstore.Digest(good)
	bad := []byte("forged bytes!")
	err := s.Put(ctx, d, bytes.NewReader(bad), int64(len(bad)))
	if !errors.Is(err, blobstore.ErrDigestMismatch) {
		t.Fatalf("put under a foreign digest: %v, want ErrDigestMismatch", err)
	}
	if _, err := s.Stat(ctx, d); !errors.Is(err, blobstore.ErrNotFound) {
		t.Fatalf("a mismatched put left an object: %v", err)
	}
	// A short body (size says more than the reader has) is a mismatch too.
	err = s.Put(ctx, d, bytes.NewReader(good[:4]), int64(len(good)))
	if err == nil {
		t.Fatal("short body accepted")
	}
	if _, err := s.Stat(ctx, d); !errors.Is(err, blobstore.ErrNotFound) {
		t.Fatalf("a short put left an object: %v", err)
	}
	// The right bytes are still accepted afterwards.
	put(t, s, good)
}

func notFound(t *testing.T, s blobstore.Store) {
	ctx := context.Background()
	d := blobstore.Digest([]byte("never stored"))
	if _, err := s.Open(ctx, d); !errors.Is(err, blobstore.ErrNotFound) {
		t.Fatalf("Open of a missing digest: %v", err)
	}
	if _, err := s.Stat(ctx, d); !errors.Is(err, blobstore.ErrNotFound) {
		t.Fatalf("Stat of a missing digest: %v", err)
	}
	for _, bad := range []string{"", "../../etc/passwd", strings.ToUpper(d), d[:63], d + "0", "g" + d[1:]} {
		if _, err := s.Open(ctx, bad); !errors.Is(err, blobstore.ErrBadDigest) {
			t.Fatalf("Open(%q): %v, want ErrBadDigest", bad, err)
		}
		if err := s.Put(ctx, bad, strings.NewReader("x"), 1); !errors.Is(err, blobstore.ErrBadDigest) {
			t.Fatalf("Put(%q): %v, want ErrBadDigest", bad, err)
		}
	}
}

func seek(t *testing.T, s blobstore.Store) {
	b := make([]byte, 100_000)
	_, _ = rand.Read(b)
	d := put(t, s, b)
	o, err := s.Open(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	if _, err := o.Seek(70_000, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	part := make([]byte, 1000)
	if _, err := io.ReadFull(o, part); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(part, b[70_000:71_000]) {
		t.Fatal("bytes after Seek differ")
	}
	end, err := o.Seek(0, io.SeekEnd)
	if err != nil || end != int64(len(b)) {
		t.Fatalf("Seek(0, End) = %d, %v", end, err)
	}
}

func large(t *testing.T, s blobstore.Store) {
	b := make([]byte, 5<<20+123)
	_, _ = rand.Read(b)
	d := put(t, s, b)
	if got := read(t, s, d); !bytes.Equal(got, b) {
		t.Fatal("large object read back differs")
	}
}

func concurrent(t *testing.T, s blobstore.Store) {
	b := []byte("records delivered by three webhooks at once")
	d := blobstore.Digest(b)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() { errs <- s.Put(context.Background(), d, bytes.NewReader(b), int64(len(b))) })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("concurrent put: %v", err)
		}
	}
	if got := read(t, s, d); !bytes.Equal(got, b) {
		t.Fatal("concurrent puts left different bytes")
	}
}

func empty(t *testing.T, s blobstore.Store) {
	d := put(t, s, nil)
	if got := read(t, s, d); len(got) != 0 {
		t.Fatalf("empty object read back %d bytes", len(got))
	}
}
