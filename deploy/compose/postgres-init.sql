-- Runs once, when the postgres volume is first initialised (docker-entrypoint-initdb.d).
-- The app uses the foiaflow database (POSTGRES_DB); `make test` uses `test`
-- (FOIAFLOW_TEST_DATABASE_URL), which scripts/services.sh may start through compose.
CREATE DATABASE test;
