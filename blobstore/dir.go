package blobstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Dir stores objects as files under a root directory:
// <root>/sha256/ab/cd/<digest>. Writes go to <root>/tmp first and are
// renamed into place after an fsync, so a reader never sees a partial file
// and a crash leaves at most a stray temporary file.
type Dir struct {
	root string
}

// NewDir creates root (and its tmp/ and sha256/ folders) if needed and
// returns the store.
func NewDir(root string) (*Dir, error) {
	if root == "" {
		return nil, errors.New("blobstore: empty directory")
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("blobstore: %w", err)
	}
	for _, d := range []string{filepath.Join(abs, "tmp"), filepath.Join(abs, "sha256")} {
		if err := os.MkdirAll(d, 0o750); err != nil {
			return nil, fmt.Errorf("blobstore: %w", err)
		}
	}
	return &Dir{root: abs}, nil
}

// Name implements Store.
func (d *Dir) Name() string { return "dir:" + d.root }

// TempDir is where Put writes before renaming; Spool files may live there
// too (same file system, so a rename never copies).
func (d *Dir) TempDir() string { return filepath.Join(d.root, "tmp") }

func (d *Dir) path(digest string) string {
	return filepath.Join(d.root, filepath.FromSlash(key(digest)))
}

// Put implements Store.
func (d *Dir) Put(ctx context.Context, digest string, r io.Reader, size int64) error {
	if err := CheckDigest(digest); err != nil {
		return err
	}
	dst := d.path(digest)
	if _, err := os.Stat(dst); err == nil {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(d.TempDir(), "put-*")
	if err != nil {
		return fmt.Errorf("blobstore: %w", err)
	}
	defer os.Remove(tmp.Name())
	v := newVerifier(r, digest, size)
	_, err = io.Copy(tmp, v)
	if err == nil {
		err = v.check()
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("blobstore: put %s: %w", digest, err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o750); err != nil {
		return fmt.Errorf("blobstore: %w", err)
	}
	if err := os.Chmod(tmp.Name(), 0o440); err != nil {
		return fmt.Errorf("blobstore: %w", err)
	}
	if err := os.Rename(tmp.Name(), dst); err != nil {
		return fmt.Errorf("blobstore: put %s: %w", digest, err)
	}
	return syncDir(filepath.Dir(dst))
}

// syncDir makes a rename durable.
func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("blobstore: %w", err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		return fmt.Errorf("blobstore: sync %s: %w", dir, err)
	}
	return nil
}

// Open implements Store.
func (d *Dir) Open(ctx context.Context, digest string) (Object, error) {
	if err := CheckDigest(digest); err != nil {
		return nil, err
	}
	f, err := os.Open(d.path(digest))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, digest)
	}
	if err != nil {
		return nil, fmt.Errorf("blobstore: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("blobstore: %w", err)
	}
	return fileObject{File: f, size: st.Size()}, nil
}

// Stat implements Store.
func (d *Dir) Stat(ctx context.Context, digest string) (int64, error) {
	if err := CheckDigest(digest); err != nil {
		return 0, err
	}
	st, err := os.Stat(d.path(digest))
	if errors.Is(err, fs.ErrNotExist) {
		return 0, fmt.Errorf("%w: %s", ErrNotFound, digest)
	}
	if err != nil {
		return 0, fmt.Errorf("blobstore: %w", err)
	}
	return st.Size(), nil
}

type fileObject struct {
	*os.File
	size int64
}

func (f fileObject) Size() int64 { return f.size }
