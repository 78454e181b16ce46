package api

import (
	"net/http"
	"strings"
	"testing"
)

func TestAuthRequiredEverywhereButHealth(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
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

func TestAdminQueuesAndBasicAuth(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.req("GET", "/admin/queues/", testAdminKey, nil).expect(http.StatusOK, "")
	rq, _ := http.NewRequest("GET", e.ts.URL+"/admin/queues/", nil)
	rq.SetBasicAuth("admin", testAdminKey)
	if r := e.send(rq); r.Status != http.StatusOK {
		t.Fatalf("basic auth: %d", r.Status)
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
