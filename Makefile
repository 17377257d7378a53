# Packages vet and the tests cover; narrow it with `make test PKGS=./league/`.
PKGS ?= ./...

# Fuzz targets `make test` runs for FUZZTIME each, as package:FuzzFunc.
# Add one per line, e.g.  FUZZ_TARGETS += ./tiers:FuzzLadder
FUZZ_TARGETS := ./api:FuzzJoin ./api:FuzzScore ./api:FuzzScoresBatch ./api:FuzzStandings \
	./api:FuzzPaths ./api:FuzzDecoder ./api:FuzzScoreValue ./league:FuzzParseSchedule ./api:FuzzLeaderboardWrite \
	./leaderboard:FuzzCatalog
# A count of inputs (3-15 s each on two cores), not a duration: Go 1.26's
# fuzzing coordinator can fail a timed run at its deadline with a bare
# "context deadline exceeded" and no failing input (go.dev/issue/75804,
# fixed in Go 1.27). A count has no deadline to race. FUZZTIME=30s still works.
FUZZTIME ?= 20000x

# The service runner is built and run rather than `go run`: `go run` dies on
# SIGTERM without passing it on, which would orphan the runner.
WITHSERVICES := bin/withservices

.PHONY: test test-local lint-api fuzz bench run build vet fmt withservices chromium

# test: vet, race tests and fuzz against throwaway Redis and PostgreSQL (or
# REDIS_URL / DATABASE_URL), the console's pages in a headless Chromium.
test: withservices chromium
	$(WITHSERVICES) -- $(MAKE) --no-print-directory test-local

# test-local: vet, race tests and fuzz against whatever services the environment names.
# The leaderboard package's race tests take 4-5 minutes on two quiet cores
# and twice that on a busy machine: past go test's default of 10 minutes a
# package is failed as hung, so the bound is raised.
test-local: vet
	go test -race -count=1 -timeout 25m $(PKGS)
	@$(MAKE) --no-print-directory lint-api
	@$(MAKE) --no-print-directory fuzz

# lint-api: api/openapi.yaml against Spectral's OpenAPI rules, failing on any
# warning (Node.js and npm needed: apt-get install nodejs npm; the linter's
# packages are pinned in api/lint/package-lock.json).
lint-api:
	@command -v npm >/dev/null || { echo "lint-api: needs Node.js and npm (apt-get install nodejs npm)"; exit 1; }
	cd api/lint && npm ci --silent --no-audit --no-fund && ./node_modules/.bin/spectral lint ../openapi.yaml --fail-severity=warn

# fuzz: run each of FUZZ_TARGETS for FUZZTIME (nothing while the list is empty).
fuzz:
	@for t in $(FUZZ_TARGETS); do \
		echo "fuzz: $$t for $(FUZZTIME)"; \
		go test -list "^$${t#*:}\$$" "$${t%%:*}" | grep -qx "$${t#*:}" || { echo "fuzz: no $$t"; exit 1; }; \
		go test -run '^$$' -fuzz "^$${t#*:}\$$" -fuzztime $(FUZZTIME) "$${t%%:*}" || exit 1; \
	done

# bench: the engine's Go benchmarks, then leaguebench's main table (every live
# workload through the library and HTTP, beside its same-run baseline), against
# throwaway Redis and PostgreSQL (or REDIS_URL / DATABASE_URL). BENCHMARKS.md
# has the other runs (open loop, memory, settlement) and the recorded figures.
BENCHFLAGS ?= -workloads join,score,standing,board,mix,batch -via lib,http -players 10000 -concurrency 32 -duration 10s
bench: withservices
	$(WITHSERVICES) -- sh -c 'go test -run "^$$" -bench . -benchtime 3s ./league && go run ./cmd/leaguebench $(BENCHFLAGS)'

# run: the server, with config.yaml.
run:
	go run -buildvcs=auto ./cmd/leagued

# build: the binaries into bin/.
build:
	go build -buildvcs=auto -o bin/ ./cmd/...

# vet: go vet $(PKGS).
vet:
	go vet $(PKGS)

# fmt: gofmt the tree.
fmt:
	go fmt ./...

# chromium: make sure the console's browser tests have a Chromium: Debian's
# package installed when missing and root (see .ci/chromium).
chromium:
	@./.ci/chromium

# withservices: build the service runner.
withservices:
	go build -o $(WITHSERVICES) ./internal/withservices
