package api

import (
	_ "embed"
	"net/http"
)

// OpenAPIDocument is the OpenAPI 3 description of every route (served at
// /openapi.json; openapi_test.go fails when it and the route table differ).
//
//go:embed openapi.json
var OpenAPIDocument []byte

// serveOpenAPI: GET /openapi.json.
func serveOpenAPI(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Content-Type", "application/json")
	_, err := w.Write(OpenAPIDocument)
	return err
}
