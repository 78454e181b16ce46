package main

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

func TestProbe(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("/ok", func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("ok")) })
	mux.HandleFunc("/down", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "postgres: down", http.StatusServiceUnavailable)
	})
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/ok", http.StatusFound) })
	block := make(chan struct{})
	defer close(block)
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-block:
		case <-r.Context().Done():
		}
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	for _, tc := range []struct {
		path string
		ok   bool
	}{{"/ok", true}, {"/down", false}, {"/redirect", false}, {"/slow", false}, {"/missing", false}} {
		err := probe(srv.URL+tc.path, 200*time.Millisecond)
		if (err == nil) != tc.ok {
			t.Errorf("probe %s: err=%v, want ok=%v", tc.path, err, tc.ok)
		}
	}
	if err := probe("http://127.0.0.1:1/healthz", time.Second); err == nil {
		t.Error("probe of a closed port succeeded")
	}
}
