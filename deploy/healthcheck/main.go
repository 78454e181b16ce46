// Command healthcheck probes one HTTP health endpoint of a foiaflow process
// and exits 0 on a 2xx answer, 1 on anything else (error, timeout, non-2xx).
//
// The foiaflow image is distroless: it has no shell, curl or wget, so a
// Docker or Compose healthcheck cannot run `curl -f`. It execs this static
// binary instead, in exec form:
//
//	healthcheck [-timeout 2s] http://127.0.0.1:8080/readyz
//
// Kubernetes does not need it (its httpGet probes are made by the kubelet).
// It is a module of its own with no dependencies so the image build compiles
// it without downloading anything.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"
)

func main() {
	timeout := flag.Duration("timeout", 2*time.Second, "whole-request deadline")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: healthcheck [-timeout 2s] URL")
		flag.PrintDefaults()
	}
	flag.Parse()
	url := "http://127.0.0.1:8080/healthz"
	if flag.NArg() > 1 {
		flag.Usage()
		os.Exit(2)
	}
	if flag.NArg() == 1 {
		url = flag.Arg(0)
	}
	if err := probe(url, *timeout); err != nil {
		fmt.Fprintln(os.Stderr, "healthcheck:", err)
		os.Exit(1)
	}
}

// probe GETs url under timeout and wants a 2xx status; redirects are not
// followed (a health endpoint that redirects is misconfigured).
func probe(url string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("%s: %s: %s", url, resp.Status, body)
	}
	return nil
}
