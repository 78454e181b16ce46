package api

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"
)

// TestOpenAPIDocumentMatchesRoutes fails when a route is served but not
// documented, or documented but not served, or the document is invalid.
func TestOpenAPIDocumentMatchesRoutes(t *testing.T) {
	t.Parallel()
	doc, err := openapi3.NewLoader().LoadFromData(OpenAPIDocument)
	if err != nil {
		t.Fatalf("openapi.json does not parse: %v", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("openapi.json is invalid: %v", err)
	}
	var documented []string
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			documented = append(documented, method+" "+path)
		}
	}
	var served []string
	for _, rt := range (&Server{log: zap.NewNop(), registry: prometheus.NewRegistry()}).routes() {
		method, path, ok := strings.Cut(rt.pattern, " ")
		if !ok { // a method-less subtree (asynqmon) is documented as GET
			method, path = "GET", rt.pattern
		}
		served = append(served, method+" "+path)
	}
	slices.Sort(documented)
	slices.Sort(served)
	for _, s := range served {
		if !slices.Contains(documented, s) {
			t.Errorf("route %q is not in openapi.json", s)
		}
	}
	for _, d := range documented {
		if !slices.Contains(served, d) {
			t.Errorf("openapi.json documents %q, which no route serves", d)
		}
	}
}

// TestOpenAPIListsEveryErrorCode keeps the documented error codes in step
// with the codes the handlers can return.
func TestOpenAPIListsEveryErrorCode(t *testing.T) {
	t.Parallel()
	codes := map[string]bool{}
	for _, f := range []string{"api_keys.go", "cases.go", "case_detail.go", "decisions.go", "inbound.go", "orphans.go", "records.go", "allowlist.go",
		"proposals.go", "json.go", "health.go", "errors.go", "auth.go", "throttle.go", "case_events.go", "escalations.go", "costs.go", "audit.go", "forks.go"} {
		b, err := sourceFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range regexp.MustCompile(`apiErr\(http\.Status\w+, "([a-z_]+)"|(?i:code): +"([a-z_]+)"`).FindAllStringSubmatch(string(b), -1) {
			codes[m[1]+m[2]] = true
		}
	}
	doc := string(OpenAPIDocument)
	for c := range codes {
		switch c {
		case "unauthorized", "forbidden", "internal", "not_found", "conflict", "route_not_found", "method_not_allowed":
			continue // generic codes, described once in the error schema
		}
		if !strings.Contains(doc, c) {
			t.Errorf("error code %q is not documented in openapi.json", c)
		}
	}
	if len(codes) < 20 {
		t.Fatalf("found only %d codes: the scan is broken", len(codes))
	}
}
