package api

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

func TestAuthRequiredEverywhereButHealth(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *Config) { c.AuthFailuresPerMinute = 1000 })
	e.req("GET", "/healthz", "", nil).expect(http.StatusOK, "")
	e.req("GET", "/readyz", "", nil).expect(http.StatusOK, "")
	for _, rt := range e.srv.routes() {
		if rt.access == public || rt.access == signed {
			continue
		}
		method, path, ok := strings.Cut(rt.pattern, " ")
		if !ok {
			method, path = "GET", rt.pattern
		}
		path = strings.NewReplacer("{id}", "1", "{caseId}", "1", "{proposalId}", "1", "{action}", "approve").Replace(path)
		e.req(method, path, "", nil).expect(http.StatusUnauthorized, "unauthorized")
		e.req(method, path, "ffk_not-a-key", nil).expect(http.StatusUnauthorized, "unauthorized")
	}
}

func TestWrongRoleIsForbidden(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.req("POST", "/v1/api-keys", e.reviewerKey, map[string]string{"name": "x", "role": "admin"}).expect(http.StatusForbidden, "forbidden")
	e.req("GET", "/v1/api-keys", e.reviewerKey, nil).expect(http.StatusForbidden, "forbidden")
	e.req("GET", "/admin/queues/", e.reviewerKey, nil).expect(http.StatusForbidden, "forbidden")
	if e.count(`SELECT count(*) FROM api_keys`) != 1 {
		t.Fatal("a forbidden request stored a key")
	}
}

func TestAPIKeyLifecycle(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.req("POST", "/v1/api-keys", testAdminKey, map[string]string{"name": "alice@newsroom.test", "role": "reviewer"}).
		expect(http.StatusCreated, "")
	var k createdAPIKey
	r.decode(&k)
	if !strings.HasPrefix(k.Key, keyPrefix) || k.Name != "alice@newsroom.test" || k.Role != RoleReviewer {
		t.Fatalf("created key %+v", k)
	}
	if n := e.count(`SELECT count(*) FROM api_keys WHERE key_hash = $1`, HashAPIKey(k.Key)); n != 1 {
		t.Fatalf("hash stored %d times", n)
	}
	if n := e.count(`SELECT count(*) FROM api_keys WHERE key_hash = $1`, k.Key); n != 0 {
		t.Fatal("plaintext key stored")
	}
	e.req("GET", "/v1/cases", k.Key, nil).expect(http.StatusOK, "")
	if !strings.Contains(string(e.req("GET", "/v1/api-keys", testAdminKey, nil).expect(http.StatusOK, "").Body), "alice@newsroom.test") {
		t.Fatal("key not listed")
	}
	e.req("DELETE", "/v1/api-keys/"+itoa(k.ID), testAdminKey, nil).expect(http.StatusNoContent, "")
	e.req("GET", "/v1/cases", k.Key, nil).expect(http.StatusUnauthorized, "unauthorized")
	e.req("DELETE", "/v1/api-keys/"+itoa(k.ID), testAdminKey, nil).expect(http.StatusNotFound, "api_key_not_found")
}

func TestAPIKeyBadInput(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.req("POST", "/v1/api-keys", testAdminKey, map[string]string{"name": "", "role": "reviewer"}).expect(http.StatusBadRequest, "invalid_name")
	e.req("POST", "/v1/api-keys", testAdminKey, map[string]string{"name": "x", "role": "root"}).expect(http.StatusBadRequest, "invalid_role")
	e.req("POST", "/v1/api-keys", testAdminKey, `{"name":"x","role":"admin","extra":1}`).expect(http.StatusBadRequest, "invalid_json")
	e.req("POST", "/v1/api-keys", testAdminKey, `{"name":`).expect(http.StatusBadRequest, "invalid_json")
	e.req("POST", "/v1/api-keys", testAdminKey, `{"name":"x","role":"admin"} {}`).expect(http.StatusBadRequest, "invalid_json")
	e.req("POST", "/v1/api-keys", testAdminKey, `{"name":"`+strings.Repeat("a", 2<<20)+`","role":"admin"}`).
		expect(http.StatusRequestEntityTooLarge, "body_too_large")
	e.req("DELETE", "/v1/api-keys/abc", testAdminKey, nil).expect(http.StatusBadRequest, "invalid_id")
	if n := e.count(`SELECT count(*) FROM api_keys`); n != 1 {
		t.Fatalf("rejected requests stored keys: %d", n)
	}
}

// Issue 10 "Loose doors": a browser resends HTTP Basic credentials by
// itself, so they are refused even when they carry a valid key.
func TestAdminQueuesRefuseBasicAuth(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.req("GET", "/admin/queues/", testAdminKey, nil).expect(http.StatusOK, "")
	for _, path := range []string{"/admin/queues/", "/v1/cases"} {
		rq, _ := http.NewRequest("GET", e.ts.URL+path, nil)
		rq.SetBasicAuth("admin", testAdminKey)
		r := e.send(rq).expect(http.StatusUnauthorized, "unauthorized")
		if got := r.Header.Get("WWW-Authenticate"); !strings.HasPrefix(got, "Bearer") {
			t.Fatalf("%s: WWW-Authenticate %q, want a Bearer challenge (a Basic one makes browsers prompt)", path, got)
		}
	}
}

func TestUnknownRouteAndMethodAreJSON(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.req("GET", "/v1/nothing", e.reviewerKey, nil).expect(http.StatusNotFound, "route_not_found")
	r := e.req("PUT", "/v1/cases", e.reviewerKey, nil).expect(http.StatusMethodNotAllowed, "method_not_allowed")
	if r.Header.Get("Allow") == "" {
		t.Fatal("405 without Allow")
	}
}

func TestRequestIDIsEchoed(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	if id := e.req("GET", "/healthz", "", nil, "X-Request-ID", "abc-123").Header.Get("X-Request-ID"); id != "abc-123" {
		t.Fatalf("echoed %q", id)
	}
	if id := e.req("GET", "/healthz", "", nil).Header.Get("X-Request-ID"); len(id) != 16 {
		t.Fatalf("generated %q", id)
	}
}

// Issue 10 "Loose doors": a cross-site form or text/plain POST (which a
// browser sends without a preflight) is refused on the JSON API before
// anything is stored, even with valid credentials.
func TestJSONRoutesRefuseBrowserContentTypes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	body, _ := json.Marshal(validCase())
	for _, ct := range []string{"text/plain", "text/plain; charset=utf-8", "application/x-www-form-urlencoded",
		"multipart/form-data; boundary=x", ""} {
		rq, _ := http.NewRequest("POST", e.ts.URL+"/v1/cases", bytes.NewReader(body))
		rq.Header.Set("Authorization", "Bearer "+e.reviewerKey)
		if ct != "" {
			rq.Header.Set("Content-Type", ct)
		}
		e.send(rq).expect(http.StatusUnsupportedMediaType, "unsupported_media_type")
	}
	if n := e.count(`SELECT count(*) FROM cases`); n != 0 {
		t.Fatalf("%d cases created through a non-JSON POST", n)
	}
	e.req("POST", "/v1/cases", e.reviewerKey, validCase(), "Content-Type", "application/json; charset=utf-8").
		expect(http.StatusCreated, "")
	// An action without a body needs no Content-Type (it reaches the
	// handler, which asks for its JSON body).
	e.req("POST", "/v1/cases", e.reviewerKey, nil).expect(http.StatusBadRequest, "invalid_json")
}

// Issue 10 "Loose doors": API key names are unique among active keys (they
// are the actor of every decision); a revoked key's name can be reused.
func TestAPIKeyNamesAreUnique(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	mk := func(name string) resp {
		return e.req("POST", "/v1/api-keys", testAdminKey, map[string]string{"name": name, "role": "reviewer"})
	}
	var k createdAPIKey
	mk("ana@newsroom.test").expect(http.StatusCreated, "").decode(&k)
	mk("ana@newsroom.test").expect(http.StatusConflict, "name_taken")
	mk("ANA@newsroom.test").expect(http.StatusConflict, "name_taken")
	mk(testReviewer).expect(http.StatusConflict, "name_taken")
	mk("bootstrap-admin").expect(http.StatusConflict, "name_taken")
	mk("tab\tname").expect(http.StatusBadRequest, "invalid_name")
	e.req("DELETE", "/v1/api-keys/"+itoa(k.ID), testAdminKey, nil).expect(http.StatusNoContent, "")
	mk("ana@newsroom.test").expect(http.StatusCreated, "")
	if n := e.count(`SELECT count(*) FROM api_keys WHERE lower(name) = 'ana@newsroom.test'`); n != 2 {
		t.Fatalf("%d keys named ana, want the revoked one and its replacement", n)
	}
}
