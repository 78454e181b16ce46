package api

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// Issue 10 "Errors that tell the truth": a value JSON cannot encode (a
// sent_at in year 10000) is a logged 500 with the error body, never a 200
// with an empty body.
func TestEncodingFailureIsALogged500(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	core, logs := observer.New(zap.ErrorLevel)
	d := e.deps()
	d.Log = zap.New(core)
	srv, err := New(e.srv.cfg, d)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	caseID, _ := e.newCase()
	e.db.Exec(t, `UPDATE cases SET sent_at = '9999-12-31 23:00:00-05' WHERE id = $1`, caseID)
	rq := httptest.NewRequest("GET", "/v1/cases/"+itoa(caseID), nil)
	rq.Header.Set("Authorization", "Bearer "+testAdminKey)
	rec := httptest.NewRecorder()
	srv.Handler().ServeHTTP(rec, rq)
	var body errorBody
	if rec.Code != http.StatusInternalServerError || jsonUnmarshal(rec.Body.Bytes(), &body) != nil || body.Error.Code != "internal" {
		t.Fatalf("got %d %q, want 500 internal", rec.Code, rec.Body)
	}
	if logs.FilterMessage("request failed").Len() != 1 {
		t.Fatalf("encoding failure not logged: %v", logs.All())
	}
}

func TestHasNULEscape(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]bool{
		`{"a":"x\u0000y"}`:   true,
		`{"a":"\\\u0000"}`:   true,  // escaped backslash, then a NUL escape
		`{"a":"\\u0000"}`:    false, // escaped backslash, then text "u0000"
		`{"a":"\\\\u0000"}`:  false,
		`{"a":"u0000"}`:      false,
		`{"a":"\u00001"}`:    true,
		`{"a":"\u0001"}`:     false,
		`{"a":"plain text"}`: false,
	} {
		if got := hasNULEscape([]byte(in)); got != want {
			t.Errorf("hasNULEscape(%s) = %v, want %v", in, got, want)
		}
	}
}

func TestWriteJSONWritesNothingOnFailure(t *testing.T) {
	t.Parallel()
	rec := httptest.NewRecorder()
	if err := writeJSON(rec, http.StatusOK, map[string]any{"f": func() {}}); err == nil {
		t.Fatal("unencodable value accepted")
	}
	if rec.Body.Len() != 0 || rec.Header().Get("Content-Type") != "" {
		t.Fatalf("partial response written: %q", rec.Body)
	}
}
