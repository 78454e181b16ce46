package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/foiaflow/foiaflow/cmd/internal/browser"
	"github.com/foiaflow/foiaflow/cmd/internal/fleet"
	"github.com/foiaflow/foiaflow/workflow"
)

// shots is what the reviewer-desk part of the demo did (-screenshots).
type shots struct {
	pages    int // PNGs written
	approved int // proposals approved by clicking in the page
}

// deskTour drives the reviewer desk in headless Chromium instead of
// approving through the JSON API: it asks for a firmer redraft of the fee
// proposal (so the case shows two versions and their diff), signs in with
// the API key, and saves PNGs of the queue, the fee case (evidence
// highlighted, the diff between v1 and v2) and the escalations into dir;
// then it approves v2 by clicking the page's Approve button and saves the
// case again with the decision's notice.
func deskTour(ctx context.Context, c *fleet.Client, dir string, fee *demoCase) (shots, error) {
	var s shots
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return s, err
	}
	step("asking for a firmer redraft of proposal %d (case %d) so the page has two versions to compare", fee.gate.ProposalID, fee.caseID)
	err := c.Do(ctx, http.MethodPost, fmt.Sprintf("/v1/cases/%d/proposals/%d/adjust", fee.caseID, fee.gate.ProposalID),
		map[string]any{"version": fee.gate.Version, "instruction": "firmer"}, nil, map[string]string{"Idempotency-Key": "demo-adjust-" + fleet.RandHex(6)})
	if err != nil {
		return s, err
	}
	if err := waitVersion(ctx, c, fee.gate.ProposalID, fee.gate.Version+1); err != nil {
		return s, err
	}
	path, err := browser.Find(ctx)
	if err != nil {
		return s, err
	}
	bctx, closeBrowser := browser.Open(context.WithoutCancel(ctx), path)
	defer closeBrowser()
	go func() { <-ctx.Done(); closeBrowser() }()
	save := func(name string) error {
		png, err := chromedp.Run(bctx, chromedp.FullScreenshot(100))
		if err != nil {
			return fmt.Errorf("screenshot %s: %w", name, err)
		}
		file := filepath.Join(dir, name+".png")
		if err := os.WriteFile(file, png, 0o644); err != nil {
			return err
		}
		s.pages++
		fmt.Printf("    %s (%d KB)\n", file, len(png)/1024)
		return nil
	}
	step("signing in to the reviewer desk at %s/ in headless Chromium", c.Base)
	caseURL := fmt.Sprintf("%s/cases/%d?evidence=open", c.Base, fee.caseID)
	approve := fmt.Sprintf("approve-%d", fee.gate.ProposalID)
	steps := []struct {
		name string
		do   []chromedp.Action[chromedp.Void]
	}{
		{"", []chromedp.Action[chromedp.Void]{chromedp.Navigate(c.Base + "/"), chromedp.WaitVisible(chromedp.ID("key")),
			chromedp.SendKeys(chromedp.ID("key"), c.Key), chromedp.Submit(chromedp.ID("key")), chromedp.WaitVisible(chromedp.ID("queue"))}},
		{"queue", nil},
		{"case", []chromedp.Action[chromedp.Void]{chromedp.Navigate(caseURL), chromedp.WaitVisible(chromedp.ID(approve))}},
		{"escalations", []chromedp.Action[chromedp.Void]{chromedp.Navigate(c.Base + "/escalations"), chromedp.WaitVisible(chromedp.CSS("main h1"))}},
		{"", []chromedp.Action[chromedp.Void]{chromedp.Navigate(caseURL), chromedp.WaitVisible(chromedp.ID(approve)),
			chromedp.Click(chromedp.ID(approve)), chromedp.WaitVisible(chromedp.ID("notice-banner"))}},
		{"case-approved", nil},
	}
	for _, st := range steps {
		if len(st.do) > 0 {
			if err := chromedp.Do(bctx, st.do...); err != nil {
				return s, fmt.Errorf("desk: %w", err)
			}
		}
		if st.name != "" {
			if err := save(st.name); err != nil {
				return s, err
			}
		}
	}
	notice, err := chromedp.Run(bctx, chromedp.Text(chromedp.ID("notice-banner")))
	if err != nil || !strings.HasPrefix(notice, "Approved") {
		return s, fmt.Errorf("the page did not confirm the approval: %q %v", notice, err)
	}
	s.approved = 1
	fmt.Printf("    approved proposal %d v%d in the page: %s\n", fee.gate.ProposalID, fee.gate.Version+1, notice)
	return s, nil
}

// waitVersion waits until proposal id is pending at version v.
func waitVersion(ctx context.Context, c *fleet.Client, id int64, v int) error {
	for {
		var p struct {
			Proposal struct {
				Status         string `json:"status"`
				CurrentVersion int    `json:"current_version"`
			} `json:"proposal"`
		}
		if err := c.Do(ctx, http.MethodGet, fmt.Sprintf("/v1/proposals/%d", id), nil, &p, nil); err != nil {
			return err
		}
		if p.Proposal.CurrentVersion == v && p.Proposal.Status == workflow.ProposalPending {
			return nil
		}
		select {
		case <-ctx.Done():
			return errors.Join(fmt.Errorf("proposal %d did not reach version %d", id, v), ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// emlsOf counts the .eml files in sink sent to the case's agency from its
// reply address.
func emlsOf(sink, replyAddress string) int {
	files, _ := filepath.Glob(filepath.Join(sink, "*.eml"))
	n := 0
	for _, f := range files {
		if b, err := os.ReadFile(f); err == nil && strings.Contains(string(b), replyAddress) {
			n++
		}
	}
	return n
}
