package web

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/foiaflow/foiaflow/api"
	"github.com/foiaflow/foiaflow/store"
)

// Cookie names: the session, and the sign-in form's own CSRF token (a
// double-submit cookie, so nobody can sign a browser into their account).
const (
	sessionCookie = "foiaflow_desk"
	signinCookie  = "foiaflow_desk_signin"
)

// maxFormBytes bounds every form body (an edited letter is at most
// 200,000 characters; see api.DecisionRequest).
const maxFormBytes = 1 << 20

type sessionKey struct{}

// sessionFrom returns the signed-in session (nil outside k.session).
func sessionFrom(ctx context.Context) *store.WebSession {
	ws, _ := ctx.Value(sessionKey{}).(*store.WebSession)
	return ws
}

// principal is the reviewer behind a session, as api.Decide records it.
func principal(ws *store.WebSession) api.Principal {
	p := api.Principal{Name: ws.Name, Role: ws.Role}
	if ws.APIKeyID != nil {
		p.KeyID = *ws.APIKeyID
	}
	return p
}

// mayDecide reports whether a role may decide proposals (the API key roles:
// admin and reviewer both may).
func mayDecide(role string) bool { return role == api.RoleAdmin || role == api.RoleReviewer }

// randomToken returns 32 random bytes, hex-encoded.
func randomToken() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic("crypto/rand: " + err.Error()) // never fails on supported platforms
	}
	return hex.EncodeToString(b)
}

func hashToken(t string) string {
	sum := sha256.Sum256([]byte(t))
	return hex.EncodeToString(sum[:])
}

// secure reports whether cookies must be Secure: the request came over
// TLS, directly or through a proxy that says so (trusting the header can
// only make the cookie stricter).
func secure(r *http.Request) bool {
	return r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https")
}

func setCookie(w http.ResponseWriter, r *http.Request, name, value string, maxAge int) {
	http.SetCookie(w, &http.Cookie{Name: name, Value: value, Path: "/", MaxAge: maxAge, HttpOnly: true,
		Secure: secure(r), SameSite: http.SameSiteStrictMode})
}

// session loads the signed-in session into the request's context, or
// sends the browser to the sign-in page (a GET) or answers 401 (anything
// else). Every POST must carry the session's CSRF token (form field
// "csrf") and, when the browser sends one, an Origin of this host: 403
// otherwise.
func (k *Desk) session(h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var ws *store.WebSession
		if c, err := r.Cookie(sessionCookie); err == nil && len(c.Value) == 64 {
			s, err := k.st.WebSessionByHash(r.Context(), hashToken(c.Value), k.now())
			switch {
			case err == nil:
				ws = &s
			case !errors.Is(err, store.ErrNotFound):
				ae := k.api.ErrorOf(r.Context(), err)
				k.errorPage(w, r, ae.Status, "Unavailable", ae.Message)
				return
			}
		}
		if ws == nil {
			if r.Method == http.MethodGet {
				http.Redirect(w, r, "/signin?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
				return
			}
			k.errorPage(w, r, http.StatusUnauthorized, "Signed out", "Your session has ended. Sign in again.")
			return
		}
		r = r.WithContext(context.WithValue(r.Context(), sessionKey{}, ws))
		if r.Method == http.MethodPost {
			r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
			if !sameOrigin(r) || !tokenMatches(r.PostFormValue("csrf"), ws.CSRFToken) {
				k.errorPage(w, r, http.StatusForbidden, "Refused", "This form is out of date or did not come from this page (CSRF token missing or wrong). Reload the page and try again.")
				return
			}
		}
		h(w, r)
	})
}

// sameOrigin accepts a POST without an Origin header (older browsers) or
// with one naming this host.
func sameOrigin(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" {
		return true
	}
	u, err := url.Parse(o)
	return err == nil && u.Host == r.Host
}

func tokenMatches(got, want string) bool {
	return got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

// signInData is the sign-in page.
type signInData struct {
	page
	CSRF string
	Next string
}

// signInPage: GET /signin → the API key form, with a fresh double-submit
// token in its own cookie.
func (k *Desk) signInPage(w http.ResponseWriter, r *http.Request) {
	token := randomToken()
	setCookie(w, r, signinCookie, token, 600)
	k.render(w, http.StatusOK, "signin", signInData{page: page{Title: "Sign in"}, CSRF: token, Next: safeNext(r.URL.Query().Get("next"))})
}

// signIn: POST /signin (key, csrf, next) → a new session and a redirect to
// next; 403 without the sign-in token, 401 for a wrong key, 429 while the
// API throttles failed authentications from this address.
func (k *Desk) signIn(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	c, err := r.Cookie(signinCookie)
	if err != nil || !sameOrigin(r) || !tokenMatches(r.PostFormValue("csrf"), c.Value) {
		k.errorPage(w, r, http.StatusForbidden, "Refused", "The sign-in form is out of date (CSRF token missing or wrong). Open the sign-in page again.")
		return
	}
	next := safeNext(r.PostFormValue("next"))
	p, err := k.api.Authenticate(r, strings.TrimSpace(r.PostFormValue("key")))
	if err != nil {
		ae := k.api.ErrorOf(r.Context(), err)
		token := randomToken()
		setCookie(w, r, signinCookie, token, 600)
		msg := ae.Message
		if ae.Status == http.StatusUnauthorized {
			msg = "That API key is not valid (unknown or revoked)."
		}
		k.render(w, ae.Status, "signin", signInData{page: page{Title: "Sign in", Error: msg}, CSRF: token, Next: next})
		return
	}
	id := randomToken()
	now := k.now().UTC()
	ws := store.WebSession{IDHash: hashToken(id), Name: p.Name, Role: p.Role, CSRFToken: randomToken(),
		CreatedAt: now, ExpiresAt: now.Add(SessionTTL)}
	if p.KeyID != 0 {
		ws.APIKeyID = &p.KeyID
	}
	if err := k.st.CreateWebSession(r.Context(), ws); err != nil {
		ae := k.api.ErrorOf(r.Context(), err)
		k.errorPage(w, r, ae.Status, "Unavailable", ae.Message)
		return
	}
	setCookie(w, r, signinCookie, "", -1)
	setCookie(w, r, sessionCookie, id, int(SessionTTL.Seconds()))
	http.Redirect(w, r, next, http.StatusSeeOther)
}

// signOut: POST /signout → the session is deleted and the cookie cleared.
func (k *Desk) signOut(w http.ResponseWriter, r *http.Request) {
	if err := k.st.DeleteWebSession(r.Context(), sessionFrom(r.Context()).IDHash); err != nil {
		ae := k.api.ErrorOf(r.Context(), err)
		k.errorPage(w, r, ae.Status, "Unavailable", ae.Message)
		return
	}
	setCookie(w, r, sessionCookie, "", -1)
	http.Redirect(w, r, "/signin", http.StatusSeeOther)
}

// safeNext keeps a post-sign-in redirect on this site: a path starting
// with a single "/", else "/".
func safeNext(next string) string {
	if !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.HasPrefix(next, "/\\") || strings.ContainsAny(next, "\r\n") {
		return "/"
	}
	return next
}
