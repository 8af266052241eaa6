-- Seed a `deals` table for pipelines/databases/postgres.yaml from the CRM
-- sales pipeline (Maven Analytics "CRM Sales Opportunities", 8,800 deals).
-- Run from the repository root, so the \copy path below resolves:
--   psql postgres://postgres@127.0.0.1:5432/test -f pipelines/databases/seed-postgres.sql
\set ON_ERROR_STOP on

DROP TABLE IF EXISTS deals;
CREATE TABLE deals (
  opportunity_id text PRIMARY KEY,
  sales_agent    text NOT NULL,
  product        text NOT NULL,
  account        text,                 -- empty on open deals
  deal_stage     text NOT NULL,        -- Prospecting, Engaging, Won, Lost
  engage_date    date,                 -- empty on Prospecting deals
  close_date     date,                 -- empty on open deals
  close_value    numeric(12, 2),       -- USD; 0 on Lost deals, empty on open ones
  updated_at     timestamptz NOT NULL  -- the incremental cursor
);

CREATE TEMP TABLE deals_csv (
  opportunity_id text, sales_agent text, product text, account text, deal_stage text,
  engage_date date, close_date date, close_value numeric
);
\copy deals_csv FROM '../shared/datasets/crm-sales-opportunities/sales_pipeline.csv' WITH (FORMAT csv, HEADER true)

-- A deal last changed when it closed, else when it was engaged; many deals
-- share a day, which exercises the (updated_at, opportunity_id) tie-break.
INSERT INTO deals
SELECT opportunity_id, sales_agent, product, NULLIF(account, ''), deal_stage, engage_date, close_date, close_value,
       COALESCE(close_date, engage_date, DATE '2016-10-01') + TIME '17:00'
  FROM deals_csv;

-- Every later UPDATE moves the row past the stored cursor.
CREATE OR REPLACE FUNCTION deals_touch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.updated_at := clock_timestamp();
  RETURN NEW;
END $$;
CREATE TRIGGER deals_touch BEFORE UPDATE ON deals FOR EACH ROW EXECUTE FUNCTION deals_touch();

-- The incremental read orders by (updated_at, opportunity_id).
CREATE INDEX deals_updated_at ON deals (updated_at, opportunity_id);
ANALYZE deals;

SELECT deal_stage, count(*) FROM deals GROUP BY deal_stage ORDER BY deal_stage;
