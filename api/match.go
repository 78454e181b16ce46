package api

import (
	"context"
	"errors"
	"fmt"

	"github.com/foiaflow/foiaflow/mail"
	"github.com/foiaflow/foiaflow/store"
)

// Match methods (messages.match_method), strongest first (DESIGN.md
// "Email", In).
const (
	matchReplyToken = "reply_token" // sent to requests+<token>@MAIL_DOMAIN
	matchInReplyTo  = "in_reply_to" // In-Reply-To/References name one of our sent Message-IDs
	matchSender     = "sender"      // From is the agency's address, else its domain
	matchOrphan     = "orphan"      // nothing matched: case_id NULL, a reviewer assigns it
)

// match finds the case of an inbound message; caseID 0 with matchOrphan
// when nothing matches.
func (s *Server) match(ctx context.Context, in mail.Inbound) (caseID int64, method string, err error) {
	try := func(m string, f func() (int64, error)) (bool, error) {
		id, err := f()
		if errors.Is(err, store.ErrNotFound) {
			return false, nil
		}
		if err != nil {
			return false, fmt.Errorf("match by %s: %w", m, err)
		}
		caseID, method = id, m
		return true, nil
	}
	if token, ok := mail.TokenFromAddresses(in.Recipients(), s.cfg.MailDomain); ok {
		if ok, err := try(matchReplyToken, func() (int64, error) { return s.st.CaseIDByToken(ctx, token) }); ok || err != nil {
			return caseID, method, err
		}
	}
	if ids := threadIDs(in); len(ids) > 0 {
		if ok, err := try(matchInReplyTo, func() (int64, error) { return s.st.CaseIDByOutboundMessageID(ctx, ids) }); ok || err != nil {
			return caseID, method, err
		}
	}
	if in.From.Address != "" {
		if ok, err := try(matchSender, func() (int64, error) { return s.st.CaseIDBySender(ctx, in.From.Address) }); ok || err != nil {
			return caseID, method, err
		}
	}
	return 0, matchOrphan, nil
}

// threadIDs are the Message-IDs the message answers: In-Reply-To first,
// then References newest first.
func threadIDs(in mail.Inbound) []string {
	var ids []string
	if in.InReplyTo != "" {
		ids = append(ids, in.InReplyTo)
	}
	for i := len(in.References) - 1; i >= 0; i-- {
		ids = append(ids, in.References[i])
	}
	return ids
}
