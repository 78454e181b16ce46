package blobstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// S3Config configures NewS3 (MESSAGE_STORE=s3).
type S3Config struct {
	// Endpoint is host[:port] of the S3-compatible service, without a
	// scheme (S3_ENDPOINT), e.g. "s3.us-east-1.amazonaws.com" or
	// "minio.internal:9000".
	Endpoint string
	// Bucket holds the objects (S3_BUCKET); it must exist unless
	// CreateBucket is set.
	Bucket string
	// Prefix is prepended to every object name (S3_PREFIX), e.g. "foiaflow/".
	Prefix    string
	Region    string // S3_REGION; empty lets the client discover it
	AccessKey string // S3_ACCESS_KEY
	SecretKey string // S3_SECRET_KEY
	// TLS selects https (S3_TLS, default true).
	TLS bool
	// PathStyle addresses buckets as endpoint/bucket instead of
	// bucket.endpoint (S3_PATH_STYLE; MinIO and most self-hosted servers).
	PathStyle bool
	// CreateBucket creates Bucket at start when it is missing (tests, dev).
	CreateBucket bool
}

// S3 stores objects in an S3-compatible bucket under
// <prefix>sha256/ab/cd/<digest>.
type S3 struct {
	c      *minio.Client
	bucket string
	prefix string
}

// NewS3 builds the client and checks that the bucket exists (creating it
// when cfg.CreateBucket is set).
func NewS3(ctx context.Context, cfg S3Config) (*S3, error) {
	if cfg.Endpoint == "" || cfg.Bucket == "" {
		return nil, errors.New("blobstore: S3 endpoint and bucket are required")
	}
	opts := &minio.Options{Creds: credentials.NewStaticV4(cfg.AccessKey, cfg.SecretKey, ""), Secure: cfg.TLS,
		Region: cfg.Region}
	if cfg.PathStyle {
		opts.BucketLookup = minio.BucketLookupPath
	}
	c, err := minio.New(cfg.Endpoint, opts)
	if err != nil {
		return nil, fmt.Errorf("blobstore: s3 client: %w", err)
	}
	ok, err := c.BucketExists(ctx, cfg.Bucket)
	if err != nil {
		return nil, fmt.Errorf("blobstore: s3 bucket %s: %w", cfg.Bucket, err)
	}
	if !ok && cfg.CreateBucket {
		if err := c.MakeBucket(ctx, cfg.Bucket, minio.MakeBucketOptions{Region: cfg.Region}); err != nil {
			return nil, fmt.Errorf("blobstore: create s3 bucket %s: %w", cfg.Bucket, err)
		}
	} else if !ok {
		return nil, fmt.Errorf("blobstore: s3 bucket %s does not exist", cfg.Bucket)
	}
	return &S3{c: c, bucket: cfg.Bucket, prefix: cfg.Prefix}, nil
}

// Name implements Store.
func (s *S3) Name() string { return "s3:" + s.bucket + "/" + s.prefix }

func (s *S3) object(digest string) string { return s.prefix + key(digest) }

// Put implements Store. The bytes are hashed while they upload; an upload
// whose bytes do not match digest is removed again and ErrDigestMismatch
// returned.
func (s *S3) Put(ctx context.Context, digest string, r io.Reader, size int64) error {
	if err := CheckDigest(digest); err != nil {
		return err
	}
	if _, err := s.Stat(ctx, digest); err == nil || !errors.Is(err, ErrNotFound) {
		return err
	}
	if size == 0 {
		// The empty object is implicit (see Open); some S3 servers refuse a
		// zero-length PUT from minio-go without a Content-Length.
		if digest != emptyDigest {
			return fmt.Errorf("%w: empty body under %s", ErrDigestMismatch, digest)
		}
		return nil
	}
	v := newVerifier(r, digest, size)
	_, err := s.c.PutObject(ctx, s.bucket, s.object(digest), v, size,
		minio.PutObjectOptions{ContentType: "application/octet-stream"})
	if err == nil {
		err = v.check()
		if err != nil {
			_ = s.c.RemoveObject(context.WithoutCancel(ctx), s.bucket, s.object(digest), minio.RemoveObjectOptions{})
		}
	}
	if err != nil {
		return fmt.Errorf("blobstore: put %s: %w", digest, err)
	}
	return nil
}

// Open implements Store.
func (s *S3) Open(ctx context.Context, digest string) (Object, error) {
	if digest == emptyDigest {
		return emptyObject{Reader: bytes.NewReader(nil)}, nil
	}
	size, err := s.Stat(ctx, digest)
	if err != nil {
		return nil, err
	}
	o, err := s.c.GetObject(ctx, s.bucket, s.object(digest), minio.GetObjectOptions{})
	if err != nil {
		return nil, s3Error(digest, err)
	}
	return s3Object{Object: o, size: size}, nil
}

// Stat implements Store.
func (s *S3) Stat(ctx context.Context, digest string) (int64, error) {
	if err := CheckDigest(digest); err != nil {
		return 0, err
	}
	if digest == emptyDigest {
		return 0, nil
	}
	info, err := s.c.StatObject(ctx, s.bucket, s.object(digest), minio.StatObjectOptions{})
	if err != nil {
		return 0, s3Error(digest, err)
	}
	return info.Size, nil
}

// emptyDigest is the SHA-256 of no bytes.
var emptyDigest = Digest(nil)

// s3Error translates "no such key" into ErrNotFound.
func s3Error(digest string, err error) error {
	code := minio.ToErrorResponse(err).Code
	if code == minio.NoSuchKey || code == "NotFound" || strings.Contains(code, "NoSuchKey") {
		return fmt.Errorf("%w: %s", ErrNotFound, digest)
	}
	return fmt.Errorf("blobstore: s3 %s: %w", digest, err)
}

type s3Object struct {
	*minio.Object
	size int64
}

func (o s3Object) Size() int64 { return o.size }

// emptyObject is the object of no bytes, never stored in the bucket.
type emptyObject struct{ *bytes.Reader }

func (emptyObject) Close() error { return nil }
func (emptyObject) Size() int64  { return 0 }
