package store_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/foiaflow/foiaflow/migrations"
	"github.com/foiaflow/foiaflow/store"
	"github.com/foiaflow/foiaflow/store/storetest"
	"github.com/foiaflow/foiaflow/workflow"
)

func TestMigrationsSeedJurisdictionsAndAreIdempotent(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	if n := db.Int(t, `SELECT count(*) FROM jurisdictions`); n != 45 {
		t.Fatalf("jurisdictions = %d, want 45 (federal, DC, 42 states, UK)", n)
	}
	if n := db.Int(t, `SELECT count(*) FROM jurisdictions WHERE statute_citation = '' OR statute_source = '' OR appeal_source = ''`); n != 0 {
		t.Fatalf("%d jurisdictions without a statute citation or an appeal row", n)
	}
	if s := db.String(t, `SELECT source FROM jurisdictions WHERE code='US'`); s == "" {
		t.Fatal("federal row lost its source citation")
	}
	if n := db.Int(t, `SELECT days FROM jurisdictions WHERE code='TX'`); n != 10 {
		t.Fatalf("TX days = %d", n)
	}
	applied, err := migrations.Up(context.Background(), db.Store.Pool())
	if err != nil || len(applied) != 0 {
		t.Fatalf("second Up applied %v: %v", applied, err)
	}
}

func newCase(t *testing.T, db *storetest.DB, jur string) (int64, error) {
	var id int64
	_, err := db.Store.InTx(context.Background(), func(tx *store.Tx) error {
		var err error
		id, err = tx.CreateCase(context.Background(), store.NewCase{AgencyName: "A", AgencyEmail: "r@a.gov",
			Jurisdiction: jur, Subject: "s", RequestedRecords: []string{"x"}, ReplyToken: storetest.Suffix(6)})
		return err
	})
	return id, err
}

func TestDriverErrorsTranslatedAndNothingHalfStored(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	if _, err := newCase(t, db, "ZZ"); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("unknown jurisdiction: %v, want ErrConflict", err)
	}
	// The agency upserted before the failing insert rolled back with it.
	if n := db.Int(t, `SELECT count(*) FROM agencies`); n != 0 {
		t.Fatalf("agencies = %d after a rejected case", n)
	}
	if _, err := db.Store.GetRun(context.Background(), 999); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("missing run: %v, want ErrNotFound", err)
	}
	if _, err := db.Store.LoadCase(context.Background(), 999); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("missing case: %v", err)
	}
}

func TestMessageAndRunCreationAreIdempotent(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	ctx := context.Background()
	caseID, err := newCase(t, db, "TX")
	if err != nil {
		t.Fatal(err)
	}
	var first, second int64
	for i, dst := range []*int64{&first, &second} {
		_, err := db.Store.InTx(ctx, func(tx *store.Tx) error {
			id, created, err := tx.InsertMessage(ctx, store.Message{CaseID: &caseID, Direction: "inbound",
				MessageID: "<same@agency.gov>", Text: "hello"})
			if created != (i == 0) {
				t.Errorf("delivery %d created=%v", i, created)
			}
			*dst = id
			if err != nil {
				return err
			}
			run, created, err := tx.CreateRun(ctx, store.NewRun{CaseID: caseID, Trigger: workflow.TriggerAgencyReply,
				TriggerKey: "reply:same", TriggerMessageID: &id, StartNode: workflow.NodeLoadContext, State: []byte(`{}`)})
			if created != (i == 0) || run.ID == 0 {
				t.Errorf("run %d created=%v id=%d", i, created, run.ID)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if first != second || db.Int(t, `SELECT count(*) FROM messages`) != 1 || db.Int(t, `SELECT count(*) FROM runs`) != 1 {
		t.Fatalf("redelivery stored twice: ids %d %d", first, second)
	}
}

func TestCaseLockIsExclusiveAndReleased(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	ctx := context.Background()
	l, err := db.Store.TryLockCase(ctx, 7)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Store.TryLockCase(ctx, 7); !errors.Is(err, store.ErrLockBusy) {
		t.Fatalf("second lock: %v, want ErrLockBusy", err)
	}
	if free, _ := db.Store.CaseLockFree(ctx, 7); free {
		t.Fatal("held lock reported free")
	}
	other, err := db.Store.TryLockCase(ctx, 8)
	if err != nil {
		t.Fatalf("other case blocked: %v", err)
	}
	other.Unlock(ctx)
	l.Unlock(ctx)
	if free, err := db.Store.CaseLockFree(ctx, 7); !free || err != nil {
		t.Fatalf("released lock not free: %v", err)
	}
}

func TestUpsertProposalKeepsEveryVersion(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	ctx := context.Background()
	caseID, _ := newCase(t, db, "TX")
	var runID int64
	_, err := db.Store.InTx(ctx, func(tx *store.Tx) error {
		r, _, err := tx.CreateRun(ctx, store.NewRun{CaseID: caseID, Trigger: workflow.TriggerManualReview, TriggerKey: "m",
			StartNode: "load_context", State: []byte(`{}`)})
		runID = r.ID
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	up := workflow.ProposalUpsert{CaseID: caseID, RunID: runID, Key: "k", Action: workflow.ActionSendFollowup,
		Status: workflow.ProposalPending, Version: 1, VersionSource: workflow.SourceAIGenerated, Subject: "s", BodyText: "v1"}
	for _, v := range []struct {
		version int
		source  string
		text    string
	}{{1, workflow.SourceAIGenerated, "v1"}, {1, workflow.SourceAIGenerated, "v1 again"}, {2, workflow.SourceAIRegenerated, "v2"}, {3, workflow.SourceHumanEdited, "v3"}} {
		up.Version, up.VersionSource, up.BodyText = v.version, v.source, v.text
		if _, err := db.Store.InTx(ctx, func(tx *store.Tx) error { _, err := tx.UpsertProposal(ctx, up); return err }); err != nil {
			t.Fatal(err)
		}
	}
	p, err := db.Store.LoadProposal(ctx, db.Int(t, `SELECT id FROM proposals`))
	if err != nil {
		t.Fatal(err)
	}
	if p.CurrentVersion != 3 || p.BodyText != "v3" {
		t.Fatalf("current %d %q", p.CurrentVersion, p.BodyText)
	}
	if n := db.Int(t, `SELECT count(*) FROM proposal_versions`); n != 3 {
		t.Fatalf("versions = %d, want 3 (v1 not rewritten)", n)
	}
	if s := db.String(t, `SELECT body_text FROM proposal_versions WHERE version=1`); s != "v1" {
		t.Fatalf("v1 rewritten to %q", s)
	}
}

func TestRawMessageLockReadsTheRowAndCommitReleasesIt(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	ctx := context.Background()
	if _, _, err := db.Store.TryLockRawMessageRead(ctx, 999999); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("missing raw message: %v, want ErrNotFound", err)
	}
	if free, err := db.Store.RawMessageLockFree(ctx, 999999); !free || err != nil {
		t.Fatalf("a missing raw message left its lock taken (free %v, %v)", free, err)
	}
	var raw store.RawMessage
	_, err := db.Store.InTx(ctx, func(tx *store.Tx) error {
		var err error
		raw, _, err = tx.InsertRawMessage(ctx, strings.Repeat("ab", 32), 42, "raw", false)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	l, got, err := db.Store.TryLockRawMessageRead(ctx, raw.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != raw.ID || got.SHA256 != raw.SHA256 || got.SizeBytes != 42 || got.Status != store.RawReceived {
		t.Fatalf("read %+v, want %+v", got, raw)
	}
	if _, _, err := db.Store.TryLockRawMessageRead(ctx, raw.ID); !errors.Is(err, store.ErrLockBusy) {
		t.Fatalf("second lock: %v, want ErrLockBusy", err)
	}
	if _, err := l.CommitUnlock(ctx, func(tx *store.Tx) error {
		_, err := tx.FinishRawMessage(ctx, raw.ID, store.RawFailed, 0, "test")
		return err
	}); err == nil {
		t.Fatal("finishing with message row 0 should violate the foreign key")
	}
	if free, _ := db.Store.RawMessageLockFree(ctx, raw.ID); free {
		t.Fatal("a failed commit released the lock before Unlock")
	}
	l.Unlock(ctx)
	l, _, err = db.Store.TryLockRawMessageRead(ctx, raw.ID)
	if err != nil {
		t.Fatalf("lock after Unlock: %v", err)
	}
	if _, err := l.CommitUnlock(ctx, func(tx *store.Tx) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if free, err := db.Store.RawMessageLockFree(ctx, raw.ID); !free || err != nil {
		t.Fatalf("lock still held after CommitUnlock (free %v, %v)", free, err)
	}
	l.Unlock(ctx)
}
