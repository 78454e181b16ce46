package inbound

import (
	"context"
	"errors"
	"fmt"

	"github.com/foiaflow/foiaflow/mail"
	"github.com/foiaflow/foiaflow/store"
)

// Match methods (messages.match_method). There is no sender fallback: a
// message from the agency's domain that proves nothing is an orphan.
const (
	MatchReplyToken = "reply_token" // sent to requests+<token>@MAIL_DOMAIN
	MatchInReplyTo  = "in_reply_to" // In-Reply-To/References name a Message-ID we sent
	MatchOrphan     = "orphan"      // no proof: case_id NULL, a reviewer assigns it
	MatchManual     = "manual"      // assigned by a reviewer from the orphan queue
)

// Bounds on what matching looks at: no Message-ID we send is longer than
// maxThreadIDLen, and a References header naming more than maxThreadIDs
// messages is cut to its newest ones.
const (
	maxThreadIDLen = 998
	maxThreadIDs   = 50
)

// Match is where an inbound message belongs.
type Match struct {
	CaseID int64  // 0 for an orphan
	Method string // MatchReplyToken | MatchInReplyTo | MatchOrphan
	// SenderAllowed: From is the agency's address or on its allowlist
	// (store.SenderAllowed). False for orphans.
	SenderAllowed bool
	// Reason explains an orphan ("no reply token and no reference to a
	// message we sent").
	Reason string
}

// CaseMatcher attaches inbound mail to cases only by proof (issue 10,
// "Matching you can trust"): the per-case reply address token, or an
// In-Reply-To/References id naming one of our sent messages. The sender is
// then checked against the agency's allowlist; a sender that proves the
// thread but is not allowed is attached with SenderAllowed false, and the
// run it starts parks for a human.
type CaseMatcher struct {
	Store      *store.Store
	MailDomain string // domain of reply addresses (MAIL_DOMAIN)
}

// Match finds the case of in. Errors are store errors (retry).
func (m CaseMatcher) Match(ctx context.Context, in mail.Inbound) (Match, error) {
	reason := "no reply-address token and no In-Reply-To/References naming a message we sent"
	// found runs lookup, which returns the case and whether the sender is
	// allowed on it.
	found := func(method string, lookup func() (int64, bool, error)) (Match, bool, error) {
		id, ok, err := lookup()
		if errors.Is(err, store.ErrNotFound) {
			return Match{}, false, nil
		}
		if err != nil {
			return Match{}, false, fmt.Errorf("match by %s: %w", method, err)
		}
		return Match{CaseID: id, Method: method, SenderAllowed: ok}, true, nil
	}
	if token, ok := mail.TokenFromAddresses(in.Recipients(), m.MailDomain); ok {
		res, ok, err := found(MatchReplyToken, func() (int64, bool, error) {
			return m.Store.CaseByToken(ctx, token, in.From.Address)
		})
		if ok || err != nil {
			return res, err
		}
		reason = "reply-address token matches no case, and no In-Reply-To/References naming a message we sent"
	}
	if ids := threadIDs(in); len(ids) > 0 {
		res, ok, err := found(MatchInReplyTo, func() (int64, bool, error) {
			id, err := m.Store.CaseIDByOutboundMessageID(ctx, ids)
			if err != nil {
				return 0, false, err
			}
			allowed, err := m.Store.SenderAllowed(ctx, id, in.From.Address)
			return id, allowed, err
		})
		if ok || err != nil {
			return res, err
		}
	}
	return Match{Method: MatchOrphan, Reason: reason}, nil
}

// threadIDs are the Message-IDs the message answers: In-Reply-To first,
// then References newest first; ids longer than any we send are skipped.
func threadIDs(in mail.Inbound) []string {
	var ids []string
	add := func(id string) {
		if id != "" && len(id) <= maxThreadIDLen && len(ids) < maxThreadIDs {
			ids = append(ids, id)
		}
	}
	add(in.InReplyTo)
	for i := len(in.References) - 1; i >= 0; i-- {
		add(in.References[i])
	}
	return ids
}
