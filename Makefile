# foiaflow — run `make help` for the targets.
SHELL := /bin/bash
GO ?= go
CORPUS ?= dataset/replies/agency-replies
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2
export FOIAFLOW_TEST_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/test?sslmode=disable
export FOIAFLOW_TEST_REDIS_ADDR ?= 127.0.0.1:6379

# The harnesses (demo, chaos, attack, bench) are built, then exec'd by the recipe's
# shell so that make is their parent: they die with make (fleet.Guard) and
# their processes die with them (fleet.StartChild).
.PHONY: help services test lint eval train bench chaos attack demo screenshots fuzz migrate

help: ## list targets
	@grep -hE '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-10s %s\n", $$1, $$2}'

services: ## start or reuse local Postgres and Redis
	@bash scripts/services.sh

# Training and cross-validation are numeric loops (one goroutine per model;
# cross-validation trains GOMAXPROCS split models at a time) that the
# race detector slows eightfold (9 minutes instead of 1); they run without it.
NORACE_PKGS := ./analysis/training ./cmd/eval

test: services ## vet + race tests against real Postgres and Redis (training and cross-validation without -race)
	$(GO) vet ./...
	$(GO) test -race -count=1 -timeout 20m $$($(GO) list ./... | grep -v -e '/analysis/training$$' -e '/cmd/eval$$')
	$(GO) test -count=1 -timeout 20m $(NORACE_PKGS)

lint: ## go vet + staticcheck + offline checks of Dockerfile, docker-compose.yml, deploy/k8s
	$(GO) vet ./...
	cd deploy/healthcheck && $(GO) vet ./... && $(GO) test -count=1 ./... && $(GO) run $(STATICCHECK) ./...
	cd deploy && $(GO) vet ./... && $(GO) test -count=1 ./... && $(GO) run $(STATICCHECK) ./...
	$(GO) run $(STATICCHECK) ./...

eval: ## score the shipped model on CORPUS=dir of *.json replies; CV=1: k-fold and leave-one-set-out over the project's corpora
	$(GO) run ./cmd/eval $(if $(filter 1,$(CV)),-cv,-corpus $(CORPUS))

train: ## train the offline reply model on dataset/replies and write analysis/model.txt (deterministic)
	$(GO) run ./cmd/train

demo: services ## the main job end to end: real replies in, proposals parked, one approved, its .eml shown, an appeal checked; KEEP=1 leaves the fleet up for the reviewer desk
	$(GO) build -o var/bin/ ./cmd/demo
	exec var/bin/demo $(if $(filter 1,$(KEEP)),-keep)

screenshots: services ## the demo with the fee proposal approved in the reviewer desk (headless Chromium); PNGs in var/screenshots; last line screenshots: …
	$(GO) build -o var/bin/ ./cmd/demo
	exec var/bin/demo -screenshots var/screenshots

migrate: services ## apply migrations to DATABASE_URL
	$(GO) run ./cmd/worker migrate

chaos: ## kill workers, wipe Redis, restart Postgres under load (private PG/Redis); last line chaos: cases=…
	$(GO) build -o var/bin/ ./cmd/chaos
	exec var/bin/chaos $(CHAOS_FLAGS)

attack: ## replay spoofed, looping, hostile and malformed input against the real processes (private PG/Redis); last line attack: …
	$(GO) build -o var/bin/ ./cmd/attack
	exec var/bin/attack $(ATTACK_FLAGS)

FUZZTIME ?= 60s
FUZZ_PKGS ?= ./mail ./api ./analysis
fuzz: ## run every Fuzz* target of FUZZ_PKGS for FUZZTIME each (60s; FUZZTIME=10m or =1000000x for long runs)
	@set -e; for pkg in $(FUZZ_PKGS); do \
	  for target in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
	    echo "== $$pkg $$target ($(FUZZTIME))"; \
	    $(GO) test $$pkg -run '^$$' -fuzz "^$$target\$$" -fuzztime $(FUZZTIME); \
	  done; \
	done

bench: services ## durable-step ceiling + full pipeline on the real fleet (last line bench: …); SCALE=1: follow-up sweep over 100,000 cases
	$(GO) build -o var/bin/ ./cmd/bench
	exec var/bin/bench $(if $(filter 1,$(SCALE)),-scale)
