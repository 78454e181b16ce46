// Package migrations owns the foiaflow schema: SQL migrations embedded in the
// binary and applied with pressly/goose v3, plus the Go migrations that seed
// the jurisdictions table from the embedded CSVs of the dataset package
// (deadlines at version 2; statute citations and appeals at version 31).
// Every binary applies them through Up, under a Postgres session lock so that
// api, worker and scheduler starting together migrate once.
package migrations

import (
	"bytes"
	"context"
	"database/sql"
	"embed"
	"encoding/csv"
	"fmt"
	"hash/fnv"
	"strconv"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"

	"github.com/foiaflow/foiaflow/dataset"
)

//go:embed *.sql
var sqlFS embed.FS

// seedJurisdictionsVersion is the Go migration that loads the deadline CSV.
const seedJurisdictionsVersion = 2

// seedLettersVersion is the Go migration that loads the statute citations
// and appeals (after 00030_letters_appeals.sql added their columns).
const seedLettersVersion = 31

// Up applies every pending migration to the database behind pool (in the
// pool's search_path). It returns the versions applied.
func Up(ctx context.Context, pool *pgxpool.Pool) ([]int64, error) {
	db := stdlib.OpenDBFromPool(pool)
	defer db.Close()
	// One migration lock per schema: processes migrating the same schema
	// serialize, different schemas (tests) do not wait for each other.
	var schema string
	if err := pool.QueryRow(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
		return nil, fmt.Errorf("migrations: current schema: %w", err)
	}
	h := fnv.New64a()
	_, _ = h.Write([]byte("foiaflow-migrations:" + schema))
	locker, err := lock.NewPostgresSessionLocker(lock.WithLockID(int64(h.Sum64()>>1)), lock.WithLockTimeout(1, 120))
	if err != nil {
		return nil, fmt.Errorf("migrations: session locker: %w", err)
	}
	p, err := goose.NewProvider(goose.DialectPostgres, db, sqlFS,
		goose.WithSessionLocker(locker),
		goose.WithGoMigrations(goose.NewGoMigration(seedJurisdictionsVersion,
			&goose.GoFunc{RunTx: seedJurisdictions},
			&goose.GoFunc{RunTx: func(ctx context.Context, tx *sql.Tx) error {
				_, err := tx.ExecContext(ctx, `DELETE FROM jurisdictions`)
				return err
			}}),
			goose.NewGoMigration(seedLettersVersion,
				&goose.GoFunc{RunTx: seedLetters},
				&goose.GoFunc{RunTx: func(ctx context.Context, tx *sql.Tx) error {
					_, err := tx.ExecContext(ctx, `UPDATE jurisdictions SET statute_citation = '', statute_source = '',
					    appeal_kind = 'none', appeal_body = '', appeal_citation = '', appeal_file_days = NULL,
					    appeal_file_business_days = false, appeal_decide_days = NULL, appeal_decide_business_days = false,
					    appeal_source = ''`)
					return err
				}})),
	)
	if err != nil {
		return nil, fmt.Errorf("migrations: provider: %w", err)
	}
	res, err := p.Up(ctx)
	if err != nil {
		return nil, fmt.Errorf("migrations: up: %w", err)
	}
	out := make([]int64, 0, len(res))
	for _, r := range res {
		out = append(out, r.Source.Version)
	}
	return out, nil
}

// Jurisdiction is one row of the deadline CSV.
type Jurisdiction struct {
	Name         string
	Code         string
	Days         int
	BusinessDays bool
	Source       string
}

// ParseJurisdictions decodes the deadline CSV (header
// jurisdiction,abbrev,days,business_days,source). Rows are validated: a bad
// day count or boolean is an error naming the line.
func ParseJurisdictions(b []byte) ([]Jurisdiction, error) {
	rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("jurisdictions csv: %w", err)
	}
	if len(rows) < 2 || len(rows[0]) != 5 || rows[0][1] != "abbrev" {
		return nil, fmt.Errorf("jurisdictions csv: unexpected header %v", rows[0])
	}
	out := make([]Jurisdiction, 0, len(rows)-1)
	for i, r := range rows[1:] {
		days, err := strconv.Atoi(r[2])
		if err != nil || days <= 0 {
			return nil, fmt.Errorf("jurisdictions csv line %d: bad days %q", i+2, r[2])
		}
		bd, err := strconv.ParseBool(r[3])
		if err != nil {
			return nil, fmt.Errorf("jurisdictions csv line %d: bad business_days %q", i+2, r[3])
		}
		out = append(out, Jurisdiction{Name: r[0], Code: r[1], Days: days, BusinessDays: bd, Source: r[4]})
	}
	return out, nil
}

func seedJurisdictions(ctx context.Context, tx *sql.Tx) error {
	js, err := ParseJurisdictions(dataset.JurisdictionDeadlinesCSV)
	if err != nil {
		return err
	}
	for _, j := range js {
		if _, err := tx.ExecContext(ctx,
			`INSERT INTO jurisdictions (code, name, days, business_days, source) VALUES ($1,$2,$3,$4,$5)
			 ON CONFLICT (code) DO UPDATE SET name=excluded.name, days=excluded.days,
			   business_days=excluded.business_days, source=excluded.source`,
			j.Code, j.Name, j.Days, j.BusinessDays, j.Source); err != nil {
			return fmt.Errorf("seed jurisdiction %s: %w", j.Code, err)
		}
	}
	return nil
}

// seedLetters upserts every deadline row (so jurisdictions added to the
// deadline CSV since version 2, such as UK, exist), then writes each
// jurisdiction's statute citation and appeal. A jurisdiction left without a
// citation or an appeal row fails the migration, naming it.
func seedLetters(ctx context.Context, tx *sql.Tx) error {
	if err := seedJurisdictions(ctx, tx); err != nil {
		return err
	}
	statutes, err := dataset.Statutes()
	if err != nil {
		return err
	}
	for _, s := range statutes {
		if _, err := tx.ExecContext(ctx, `UPDATE jurisdictions SET statute_citation = $2, statute_source = $3 WHERE code = $1`,
			s.Abbrev, s.Citation, s.Source); err != nil {
			return fmt.Errorf("seed statute %s: %w", s.Abbrev, err)
		}
	}
	appeals, err := dataset.Appeals()
	if err != nil {
		return err
	}
	for _, a := range appeals {
		if _, err := tx.ExecContext(ctx, `UPDATE jurisdictions SET appeal_kind = $2, appeal_body = $3, appeal_citation = $4,
			    appeal_file_days = NULLIF($5, 0), appeal_file_business_days = $6, appeal_decide_days = NULLIF($7, 0),
			    appeal_decide_business_days = $8, appeal_source = $9 WHERE code = $1`,
			a.Abbrev, a.Kind, a.Body, a.Citation, a.FileDays, a.FileBusinessDays, a.DecideDays, a.DecideBusinessDays,
			a.Source); err != nil {
			return fmt.Errorf("seed appeal %s: %w", a.Abbrev, err)
		}
	}
	var missing string
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(string_agg(code, ', ' ORDER BY code), '') FROM jurisdictions
		WHERE statute_citation = '' OR appeal_source = ''`).Scan(&missing); err != nil {
		return fmt.Errorf("check letter data: %w", err)
	}
	if missing != "" {
		return fmt.Errorf("jurisdictions without a statute citation or appeal row: %s", missing)
	}
	return nil
}
