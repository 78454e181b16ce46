package blobstore_test

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/foiaflow/foiaflow/blobstore"
	"github.com/foiaflow/foiaflow/blobstore/blobstoretest"
)

func TestDir(t *testing.T) {
	t.Parallel()
	blobstoretest.Run(t, func(t *testing.T) blobstore.Store {
		d, err := blobstore.NewDir(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		return d
	})
}

// TestS3 runs the same suite against an S3 protocol server started here
// (gofakes3 in memory behind a real HTTP listener): minio-go speaks signed
// S3 over HTTP to it exactly as it would to AWS or MinIO.
func TestS3(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(gofakes3.New(s3mem.New()).Server())
	t.Cleanup(srv.Close)
	blobstoretest.Run(t, func(t *testing.T) blobstore.Store {
		s, err := blobstore.NewS3(context.Background(), blobstore.S3Config{
			Endpoint: strings.TrimPrefix(srv.URL, "http://"), Bucket: "records", Prefix: t.Name() + "/",
			Region: "us-east-1", AccessKey: "test", SecretKey: "test-secret", PathStyle: true, CreateBucket: true})
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

func TestS3MissingBucket(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(gofakes3.New(s3mem.New()).Server())
	t.Cleanup(srv.Close)
	_, err := blobstore.NewS3(context.Background(), blobstore.S3Config{Endpoint: strings.TrimPrefix(srv.URL, "http://"),
		Bucket: "absent", Region: "us-east-1", AccessKey: "k", SecretKey: "s", PathStyle: true})
	if err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("missing bucket: %v", err)
	}
}

func TestSpool(t *testing.T) {
	t.Parallel()
	body := []byte("From: records@agency.gov\r\n\r\nHello\r\n")
	mac := hmac.New(sha256.New, []byte("k"))
	sp, err := blobstore.Spool(t.TempDir(), bytes.NewReader(body), int64(len(body)), mac)
	if err != nil {
		t.Fatal(err)
	}
	defer sp.Close()
	want := hmac.New(sha256.New, []byte("k"))
	want.Write(body)
	if !hmac.Equal(mac.Sum(nil), want.Sum(nil)) || sp.Digest != blobstore.Digest(body) || sp.Size != int64(len(body)) {
		t.Fatalf("spool digest/size/hmac wrong: %+v", sp)
	}
	d, err := blobstore.NewDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := sp.Store(context.Background(), d); err != nil {
		t.Fatal(err)
	}
	got, err := sp.Bytes()
	if err != nil || !bytes.Equal(got, body) {
		t.Fatalf("Bytes = %q, %v", got, err)
	}
	// One byte over the limit is refused.
	if _, err := blobstore.Spool(t.TempDir(), bytes.NewReader(body), int64(len(body)-1)); !errors.Is(err, blobstore.ErrTooLarge) {
		t.Fatalf("over the limit: %v", err)
	}
}
