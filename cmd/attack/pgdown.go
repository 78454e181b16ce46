package main

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// pgStop stops Postgres while requests keep coming: case creation, a case
// read, readiness and agency replies. Every answer must be a 503 with
// Retry-After within the limit (or a 2xx); the readiness answer must not
// name hosts or ports. Replies refused meanwhile are delivered again once
// Postgres is back, as a provider would, and must then be accepted.
func (a *attack) pgStop(ctx context.Context) error {
	if err := settled("before stopping postgres", a.waitQuiet(ctx)); err != nil {
		return err
	}
	t := a.cases["hostile"]
	if err := a.pg.Shutdown("fast"); err != nil {
		return err
	}
	a.c.pgDown.Store(true)
	down := time.Now()
	var mu sync.Mutex
	var refused [][]byte
	var slowest time.Duration
	n := 0
	for time.Since(down) < a.o.pgDown {
		n++
		raw, _, err := letter{from: t.k.AgencyEmail, to: t.k.ReplyAddress, subject: "RE: Records request hostile",
			text: fmt.Sprintf("We acknowledge your request (message %d sent while the database was down).", n), tag: "pgdown"}.build()
		if err != nil {
			return err
		}
		var wg sync.WaitGroup
		for _, req := range []func() (answer, error){
			func() (answer, error) {
				return a.c.json(ctx, http.MethodPost, "/v1/cases", map[string]any{"agency_name": "Agency down", "agency_email": "records@down.example.gov",
					"jurisdiction": "US", "subject": "while postgres is down", "sent_at": time.Now().UTC()}, nil, "pg down: POST /v1/cases")
			},
			func() (answer, error) {
				return a.c.json(ctx, http.MethodGet, fmt.Sprintf("/v1/cases/%d", a.cases["fee"].k.ID), nil, nil, "pg down: GET /v1/cases/{id}")
			},
			func() (answer, error) {
				req, err := http.NewRequestWithContext(ctx, http.MethodGet, a.c.fc.Base+"/readyz", nil)
				if err != nil {
					return answer{}, err
				}
				return a.c.send(req, "pg down: GET /readyz")
			},
			func() (answer, error) {
				ans, rc, err := a.c.postRaw(ctx, raw, "pg down: agency reply")
				mu.Lock()
				defer mu.Unlock()
				if err == nil && ans.status/100 == 2 {
					a.accepted[rc.RawMessageID] = "pg down: agency reply"
				} else {
					refused = append(refused, raw)
				}
				return ans, err
			},
		} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				start := time.Now()
				ans, err := req()
				mu.Lock()
				defer mu.Unlock()
				a.attempts++
				slowest = max(slowest, time.Since(start))
				if err == nil {
					a.checkLeak(ans)
				}
			}()
		}
		wg.Wait()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	if err := a.pg.Start(ctx); err != nil {
		return err
	}
	a.c.pgDown.Store(false)
	fmt.Printf("    postgres down %s: %d rounds of 4 requests, slowest answer %s; redelivering %d refused replies\n",
		time.Since(down).Round(time.Millisecond), n, slowest.Round(time.Millisecond), len(refused))
	for _, raw := range refused {
		if err := a.redeliver(ctx, raw); err != nil {
			a.never = append(a.never, err.Error())
		}
	}
	return settled("after postgres came back", a.waitQuiet(ctx))
}

// checkLeak flags an answer that names the database's host, port or user.
func (a *attack) checkLeak(ans answer) {
	body := strings.ToLower(string(ans.body))
	for _, s := range []string{"127.0.0.1", ":" + strconv.Itoa(a.pg.Port), "user=", "postgres@", "dial tcp", "sqlstate"} {
		if strings.Contains(body, s) {
			a.findings.add(&a.findings.serverErrors, "answer while postgres is down reveals %q: %.200s", s, ans.body)
			return
		}
	}
}

// redeliver posts raw until the webhook accepts it (a provider's retries).
func (a *attack) redeliver(ctx context.Context, raw []byte) error {
	var last string
	err := poll(ctx, 60*time.Second, func() (bool, error) {
		ans, rc, err := a.c.postRaw(ctx, raw, "pg back: redelivered reply")
		if err != nil || ans.status/100 != 2 {
			last = fmt.Sprintf("HTTP %d %v", ans.status, err)
			return false, nil
		}
		a.accepted[rc.RawMessageID] = "pg back: redelivered reply"
		return true, nil
	})
	if err != nil {
		return fmt.Errorf("a reply refused while postgres was down was never accepted afterwards (%s): %w", last, err)
	}
	return nil
}
