-- +goose Up
-- A fee is an amount in a currency (issue 9: "amount plus ISO currency
-- code"): a UK council's £450 was stored, routed and shown as $450.00. The
-- ISO 4217 code of fee_cents sits beside it on the case, its proposals and
-- the stored analyses; rows written before this migration are USD, which
-- is what every fee then was read as.
ALTER TABLE cases ADD COLUMN fee_currency text NOT NULL DEFAULT 'USD' CHECK (fee_currency ~ '^[A-Z]{3}$');
ALTER TABLE proposals ADD COLUMN fee_currency text NOT NULL DEFAULT 'USD' CHECK (fee_currency ~ '^[A-Z]{3}$');
ALTER TABLE response_analyses ADD COLUMN fee_currency text NOT NULL DEFAULT 'USD' CHECK (fee_currency ~ '^[A-Z]{3}$');

-- +goose Down
ALTER TABLE response_analyses DROP COLUMN fee_currency;
ALTER TABLE proposals DROP COLUMN fee_currency;
ALTER TABLE cases DROP COLUMN fee_currency;
