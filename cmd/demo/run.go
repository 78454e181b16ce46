package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/foiaflow/foiaflow/cmd/internal/fleet"
	"github.com/foiaflow/foiaflow/dataset"
	"github.com/foiaflow/foiaflow/workflow"
)

type options struct {
	adminURL, dbName, redisAddr, dir string
	cases                            int
	timeout                          time.Duration
	// screenshots, when set, is where the reviewer desk's PNGs go: the fee
	// proposal is then approved by clicking in the page, not through the
	// JSON API.
	screenshots string
	// keep leaves the fleet running after the demo until interrupted, so
	// the reviewer desk can be opened in a browser.
	keep bool
	// interrupted is closed on Ctrl-C or SIGTERM (what -keep waits for).
	interrupted <-chan struct{}
}

const mailDomain = "demo.foiaflow.local"

// demoCase is one case of the demo and what happened to it.
type demoCase struct {
	reply    dataset.Reply
	caseID   int64
	address  string
	runID    int64
	status   string
	class    string
	action   string
	proposal string
	gate     *workflow.GatePayload
	pdf      []byte // the attachment its reply carried
}

func run(ctx context.Context, o options) error {
	if o.cases < 10 {
		return errors.New("-cases must be at least 10")
	}
	dir, err := filepath.Abs(o.dir)
	if err != nil {
		return err
	}
	left, err := fleet.Guard(dir)
	if err != nil {
		return err
	}
	sink := filepath.Join(dir, "outbox")
	_ = os.RemoveAll(sink)
	step("recreating database %s", o.dbName)
	if err := fleet.RecreateDB(ctx, o.adminURL, o.dbName); err != nil {
		return err
	}
	apiPort, err := fleet.FreePort()
	if err != nil {
		return err
	}
	key, secret := "demo-admin-"+fleet.RandHex(8), fleet.RandHex(16)
	dbURL := strings.Replace(o.adminURL, "/postgres?", "/"+o.dbName+"?", 1)
	f := &fleet.Fleet{Dir: dir, Left: left, Env: append(os.Environ(),
		"DATABASE_URL="+dbURL, "REDIS_ADDR="+o.redisAddr, "QUEUE_PREFIX=demo-"+fleet.RandHex(3)+"-",
		"API_ADDR=127.0.0.1:"+fmt.Sprint(apiPort), "API_BOOTSTRAP_ADMIN_KEY="+key, "INBOUND_RAW_SECRET="+secret,
		"MAIL_DOMAIN="+mailDomain, "MAIL_FROM=foiaflow demo <requests@"+mailDomain+">", "MAIL_SINK_DIR="+sink,
		"SEND_BUSINESS_HOURS=false", "SEND_MAX_JITTER=0s", "ANALYZER=offline", "DRAFTER=offline", "SMTP_HOST=",
		"WORKER_METRICS_ADDR=127.0.0.1:0", "SCHEDULER_METRICS_ADDR=127.0.0.1:0", "LOG_LEVEL=info",
		"DATA_DIR="+filepath.Join(dir, "data"), "MESSAGE_STORE=dir")}
	_ = os.RemoveAll(filepath.Join(dir, "data"))
	step("building api, worker and scheduler")
	if err := f.Build(ctx); err != nil {
		return err
	}
	step("migrating")
	if err := f.Run(ctx, "worker", "migrate"); err != nil {
		return err
	}
	step("starting api (127.0.0.1:%d), worker and scheduler; logs in %s", apiPort, filepath.Join(dir, "logs"))
	for _, name := range []string{"api", "worker", "scheduler"} {
		if _, err := f.Start(name); err != nil {
			_ = f.Stop()
			return err
		}
	}
	summary, err := scenario(ctx, o, &fleet.Client{Base: fmt.Sprintf("http://127.0.0.1:%d", apiPort), Key: key, Secret: []byte(secret),
		HTTP: &http.Client{Timeout: 10 * time.Second}}, sink)
	step("stopping the fleet")
	if serr := f.Stop(); serr != nil && err == nil {
		err = serr
	}
	left.Done()
	if err != nil {
		return fmt.Errorf("%w (see logs in %s)", err, filepath.Join(dir, "logs"))
	}
	fmt.Println("\ndemo OK")
	fmt.Println(summary)
	return nil
}

// keepServing prints how to open the reviewer desk and waits until the
// demo is interrupted (-keep).
func keepServing(c *fleet.Client, interrupted <-chan struct{}) {
	step("the fleet keeps running: open the reviewer desk at %s/ and sign in with the API key %s (Ctrl-C stops everything)", c.Base, c.Key)
	<-interrupted
}

func step(format string, args ...any) { fmt.Printf("==> "+format+"\n", args...) }

// scenario runs the demo against the started fleet and returns its summary
// line "demo: cases=N parked=N emails=N attachments=N attachments_verified=N
// appeals=N", printed last once the fleet has stopped.
func scenario(ctx context.Context, o options, c *fleet.Client, sink string) (string, error) {
	rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := fleet.WaitReady(rctx, c.Base+"/readyz"); err != nil {
		return "", err
	}
	replies, err := dataset.Corpus()
	if err != nil {
		return "", err
	}
	cases := pick(replies, o.cases)
	step("creating %d cases and posting their real agency replies as MIME (the RECORDS_READY reply carries a PDF)", len(cases))
	for i, dc := range cases {
		subject := "Records request " + dc.reply.Name
		k, err := c.CreateCase(ctx, i, subject)
		if err != nil {
			return "", err
		}
		dc.caseID, dc.address = k.ID, k.ReplyAddress
		raw, err := fleet.ReplyMIME(k, dc.reply, subject, "demo")
		if pdfCase(cases) == dc {
			dc.pdf = recordsPDF([]string{"Springfield Police Department - responsive records",
				"Request: " + subject, "Use-of-force report log, January-June 2025", "Page 1 of 1"})
			raw, err = fleet.ReplyMIMEWithAttachment(k, dc.reply, subject, "demo", "responsive-records.pdf", "application/pdf", dc.pdf)
		}
		if err != nil {
			return "", err
		}
		runID, match, err := c.PostReply(ctx, raw)
		if err != nil {
			return "", err
		}
		if runID == 0 {
			return "", fmt.Errorf("reply %s matched %q and started no run", dc.reply.Name, match)
		}
		dc.runID = runID
	}
	step("waiting until every run parks at a gate or completes")
	if err := waitRuns(ctx, c, cases); err != nil {
		return "", err
	}
	printTable(cases)
	verified, err := verifyRecords(ctx, c, cases)
	if err != nil {
		return "", err
	}
	var fee *demoCase
	for _, dc := range cases {
		if dc.gate != nil && dc.gate.Action == workflow.ActionApproveFee {
			fee = dc
			break
		}
	}
	if fee == nil {
		return "", errors.New("no fee proposal parked: nothing to approve")
	}
	var desk shots
	if o.screenshots != "" {
		if desk, err = deskTour(ctx, c, o.screenshots, fee); err != nil {
			return "", err
		}
	} else {
		step("approving the fee proposal of case %d (%s) through the API", fee.caseID, fee.reply.Name)
		decisionID, taskID, err := c.Approve(ctx, fee.caseID, fee.gate.ProposalID, fee.gate.Version)
		if err != nil {
			return "", err
		}
		fmt.Printf("    decision %d accepted, resume task %s\n", decisionID, taskID)
	}
	file, err := waitEML(ctx, sink)
	if err != nil {
		return "", err
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", err
	}
	step("the email handed to the sink: %s", file)
	fmt.Println(strings.TrimSpace(string(b)))
	fmt.Println()
	appeals, err := checkAppeals(ctx, c, cases)
	if err != nil {
		return "", err
	}
	attachments, err := attachmentsOf(ctx, c, cases)
	if err != nil {
		return "", err
	}
	emls, _ := filepath.Glob(filepath.Join(sink, "*.eml"))
	parked := 0
	for _, dc := range cases {
		if dc.status == "parked" {
			parked++
		}
	}
	// attachments_verified counts attachments downloaded back through the
	// API and compared byte for byte with what was posted.
	summary := fmt.Sprintf("demo: cases=%d parked=%d emails=%d attachments=%d attachments_verified=%d appeals=%d",
		len(cases), parked, len(emls), attachments, verified, appeals)
	if o.screenshots != "" {
		summary += fmt.Sprintf("\nscreenshots: pages=%d approved_via_page=%d eml=%d", desk.pages, desk.approved, emlsOf(sink, fee.address))
	}
	if o.keep {
		keepServing(c, o.interrupted)
	}
	return summary, nil
}

// pdfCase is the first RECORDS_READY case: its reply carries the PDF.
func pdfCase(cases []*demoCase) *demoCase {
	for _, dc := range cases {
		if dc.reply.Label == string(workflow.ClassRecordsReady) {
			return dc
		}
	}
	return nil
}

// verifyRecords downloads every stored attachment of every case back
// through the API and compares it byte for byte with what was posted; it
// returns how many matched.
func verifyRecords(ctx context.Context, c *fleet.Client, cases []*demoCase) (int, error) {
	step("downloading the records back through the API")
	verified := 0
	for _, dc := range cases {
		var m struct {
			Records struct {
				AttachmentsReceived int `json:"attachments_received"`
				RecordsDelivered    int `json:"records_delivered"`
			} `json:"records"`
			Messages []struct {
				StoredAttachments []struct {
					Filename    string `json:"filename"`
					ContentType string `json:"content_type"`
					SizeBytes   int64  `json:"size_bytes"`
					SHA256      string `json:"sha256"`
					DownloadURL string `json:"download_url"`
				} `json:"stored_attachments"`
			} `json:"messages"`
		}
		if err := c.Do(ctx, http.MethodGet, fmt.Sprintf("/v1/cases/%d/messages", dc.caseID), nil, &m, nil); err != nil {
			return verified, err
		}
		for _, msg := range m.Messages {
			for _, a := range msg.StoredAttachments {
				got, hdr, err := c.Get(ctx, a.DownloadURL)
				if err != nil {
					return verified, err
				}
				if dc.pdf == nil || !bytes.Equal(got, dc.pdf) {
					return verified, fmt.Errorf("case %d: attachment %s (%d bytes) differs from what was posted", dc.caseID, a.Filename, len(got))
				}
				fmt.Printf("    case %d: %s (%s, %d bytes, sha256 %.12s…) downloaded as %s: identical to the PDF posted\n",
					dc.caseID, a.Filename, a.ContentType, a.SizeBytes, a.SHA256, hdr.Get("Content-Type"))
				verified++
			}
		}
		if dc.pdf != nil {
			fmt.Printf("    case %d: %d attachment(s) received, %d counted as records delivered\n", dc.caseID,
				m.Records.AttachmentsReceived, m.Records.RecordsDelivered)
		}
	}
	if verified == 0 {
		return 0, errors.New("no attachment came back through the API")
	}
	return verified, nil
}

// pick returns one reply per class first, then more until n. The fee quote
// states an amount and the denial cites an exemption, so the demo shows a
// fee acceptance and an appeal that argues the exemptions.
func pick(rs []dataset.Reply, n int) []*demoCase {
	var out []*demoCase
	seen := map[string]bool{}
	used := map[string]bool{}
	for _, r := range rs {
		if !seen[r.Label] && (r.Label != "FEE_QUOTE" || r.FeeAmount != nil) &&
			(r.Label != "DENIAL" || strings.Contains(strings.ToLower(r.Text), "exempt")) {
			seen[r.Label], used[r.Name] = true, true
			out = append(out, &demoCase{reply: r})
		}
	}
	for _, r := range rs {
		if len(out) >= n {
			break
		}
		if !used[r.Name] {
			used[r.Name] = true
			out = append(out, &demoCase{reply: r})
		}
	}
	return out[:min(n, len(out))]
}

func waitRuns(ctx context.Context, c *fleet.Client, cases []*demoCase) error {
	for _, dc := range cases {
		for {
			var st struct {
				Run *struct {
					ID     int64  `json:"id"`
					Status string `json:"status"`
				} `json:"run"`
				Interrupt json.RawMessage `json:"interrupt"`
			}
			if err := c.Do(ctx, http.MethodGet, fmt.Sprintf("/v1/cases/%d/agent-state", dc.caseID), nil, &st, nil); err != nil {
				return err
			}
			if st.Run != nil && st.Run.ID == dc.runID && (st.Run.Status == "parked" || st.Run.Status == "completed" ||
				st.Run.Status == "failed" || st.Run.Status == "cancelled") {
				dc.status = st.Run.Status
				if st.Run.Status == "parked" {
					dc.gate = &workflow.GatePayload{}
					if err := json.Unmarshal(st.Interrupt, dc.gate); err != nil {
						return err
					}
				}
				break
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("case %d run %d did not park or complete: %w", dc.caseID, dc.runID, ctx.Err())
			case <-time.After(50 * time.Millisecond):
			}
		}
		if err := describe(ctx, c, dc); err != nil {
			return err
		}
	}
	return nil
}

// describe fills class, action and proposal status from the case detail.
func describe(ctx context.Context, c *fleet.Client, dc *demoCase) error {
	var d struct {
		Analyses []struct {
			Class       string `json:"class"`
			FeeCents    *int64 `json:"fee_cents"`
			FeeCurrency string `json:"fee_currency"`
		} `json:"analyses"`
		Proposals []struct {
			Action string `json:"action_type"`
			Status string `json:"status"`
		} `json:"proposals"`
	}
	if err := c.Do(ctx, http.MethodGet, fmt.Sprintf("/v1/cases/%d", dc.caseID), nil, &d, nil); err != nil {
		return err
	}
	dc.class, dc.action, dc.proposal = "-", "NONE (recorded)", "-"
	if n := len(d.Analyses); n > 0 {
		dc.class = d.Analyses[n-1].Class
		if f := d.Analyses[n-1].FeeCents; f != nil {
			dc.class += " " + workflow.Money(*f, d.Analyses[n-1].FeeCurrency)
		}
	}
	if len(d.Proposals) > 0 {
		dc.action, dc.proposal = d.Proposals[0].Action, d.Proposals[0].Status
	}
	return nil
}

func printTable(cases []*demoCase) {
	fmt.Println()
	tw := tabwriter.NewWriter(os.Stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CASE\tREPLY\tLABEL (corpus)\tCLASS (analyzer)\tACTION\tPROPOSAL\tRUN")
	for _, dc := range cases {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\n", dc.caseID, dc.reply.Name, dc.reply.Label, dc.class, dc.action, dc.proposal, dc.status)
	}
	_ = tw.Flush()
	fmt.Println()
}

func waitEML(ctx context.Context, dir string) (string, error) {
	for {
		files, _ := filepath.Glob(filepath.Join(dir, "*.eml"))
		if len(files) > 0 {
			return files[0], nil
		}
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("no .eml in %s: %w", dir, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}
