module github.com/foiaflow/foiaflow/deploy/healthcheck

go 1.26.0
