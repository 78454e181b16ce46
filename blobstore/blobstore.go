// Package blobstore keeps the bytes of every inbound message and of every
// attachment, content-addressed by SHA-256 (issue 11, "Message store"): an
// object's key is the lowercase hex SHA-256 of its bytes, so the same
// attachment sent twice is stored once and a stored object can be checked
// against its name. Metadata (file name, media type, message, case) lives in
// Postgres (store/); this package only knows bytes.
//
// Two implementations share one contract, tested by blobstoretest.Run: Dir,
// a local directory (the default, DATA_DIR), and S3, any S3-compatible object
// store through minio-go, so a fleet of API replicas and workers shares one
// store.
package blobstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"regexp"
)

// Errors. Callers match them with errors.Is.
var (
	// ErrNotFound: no object has this digest.
	ErrNotFound = errors.New("blobstore: not found")
	// ErrDigestMismatch: the bytes given to Put do not hash to the digest
	// they were stored under (or their length differs from size); nothing
	// is stored.
	ErrDigestMismatch = errors.New("blobstore: digest mismatch")
	// ErrBadDigest: the digest is not 64 lowercase hex characters.
	ErrBadDigest = errors.New("blobstore: digest is not lowercase hex SHA-256")
)

// Store is a content-addressed object store.
type Store interface {
	// Put stores size bytes read from r under digest, the lowercase hex
	// SHA-256 of those bytes. An object already stored under digest is kept
	// and r is not read (deduplication). Errors: ErrBadDigest,
	// ErrDigestMismatch (nothing stored), or the backend's I/O error.
	Put(ctx context.Context, digest string, r io.Reader, size int64) error
	// Open returns the object stored under digest for reading and seeking
	// (http.ServeContent serves range requests from it). The caller closes
	// it. Errors: ErrBadDigest, ErrNotFound.
	Open(ctx context.Context, digest string) (Object, error)
	// Stat returns the size in bytes of the object stored under digest.
	// Errors: ErrBadDigest, ErrNotFound.
	Stat(ctx context.Context, digest string) (int64, error)
	// Name says which store this is, for logs ("dir:/var/data", "s3:bucket").
	Name() string
}

// Object is a stored object opened for reading.
type Object interface {
	io.ReadSeekCloser
	// Size is the object's length in bytes.
	Size() int64
}

var digestRe = regexp.MustCompile(`^[0-9a-f]{64}$`)

// CheckDigest returns ErrBadDigest unless d is 64 lowercase hex characters.
func CheckDigest(d string) error {
	if !digestRe.MatchString(d) {
		return fmt.Errorf("%w: %.80q", ErrBadDigest, d)
	}
	return nil
}

// Digest returns the lowercase hex SHA-256 of b.
func Digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// key is the object name of a digest: "sha256/ab/cd/<digest>" (two levels
// of fan-out keep directories small).
func key(digest string) string {
	return "sha256/" + digest[:2] + "/" + digest[2:4] + "/" + digest
}

// verifier hashes what is read through it and checks the digest and length
// at EOF.
type verifier struct {
	r      io.Reader
	h      hashWriter
	n      int64
	size   int64
	digest string
}

type hashWriter interface {
	io.Writer
	Sum([]byte) []byte
}

func newVerifier(r io.Reader, digest string, size int64) *verifier {
	return &verifier{r: r, h: sha256.New(), size: size, digest: digest}
}

func (v *verifier) Read(p []byte) (int, error) {
	n, err := v.r.Read(p)
	v.n += int64(n)
	_, _ = v.h.Write(p[:n])
	if v.n > v.size {
		return n, fmt.Errorf("%w: more than %d bytes", ErrDigestMismatch, v.size)
	}
	return n, err
}

// check reports ErrDigestMismatch unless exactly size bytes hashing to
// digest were read.
func (v *verifier) check() error {
	if v.n != v.size {
		return fmt.Errorf("%w: read %d bytes, expected %d", ErrDigestMismatch, v.n, v.size)
	}
	if got := hex.EncodeToString(v.h.Sum(nil)); got != v.digest {
		return fmt.Errorf("%w: bytes hash to %s, not %s", ErrDigestMismatch, got, v.digest)
	}
	return nil
}
