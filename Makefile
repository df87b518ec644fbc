# The two commands: `make run` and `make test`. Both install what is missing first.
SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := run

# Build cache outside the clone, shared by every checkout on this machine.
export CARGO_TARGET_DIR ?= $(HOME)/.cache/tessera-target
export PATH := $(HOME)/.cargo/bin:$(PATH)
export CARGO_TERM_COLOR ?= never

ROOT := $(abspath .)
TESSERA_BIN := $(CARGO_TARGET_DIR)/debug/tessera
DESKTOP_BIN := $(CARGO_TARGET_DIR)/debug/tessera-desktop
DEB_DIR := $(CARGO_TARGET_DIR)/debug/bundle/deb
AS_ROOT := $(shell [ "$$(id -u)" -eq 0 ] || echo sudo)

RELEASE_DEB_DIR := $(CARGO_TARGET_DIR)/release/bundle/deb

.PHONY: disk-room figures package run test check check-rust check-ui-unit deps deps-build ui desktop serve lint gen \
        test-generated test-rust test-docs test-keyring test-ui test-ui-e2e desktop-deb desktop-install test-desktop \
        bench-ui bench-cli bench-mcp bench-knowledge bench-llama bench-llama-attention fuzz llama-worker test-llama test-gguf

## make run: install what is missing, build, open the desktop app.
run: deps-build ui desktop llama-worker
	TESSERA_LLAMA_BIN=$${TESSERA_LLAMA_BIN:-$(LLAMA_BIN)} $(DESKTOP_BIN)

## make test: install what is missing, run every suite. The Rust suites and the UI's checks run
## side by side (each waits on its own work much of the time), their output kept apart.
test: deps disk-room lint test-generated
	$(MAKE) --no-print-directory -j2 --output-sync=target test-rust test-ui
	$(MAKE) --no-print-directory test-docs test-keyring test-llama test-ui-e2e test-desktop
	@echo "make test: every suite passed"

deps:
	scripts/install-deps.sh all

disk-room:
	scripts/disk-room.sh

## The loop of a change: the Rust suites and the UI's unit suite, with no browser, no desktop and
## no local model (`make test` runs those too). Assumes `make test` or `make deps` ran once. The
## two run side by side (each waits on its own work much of the time), their output kept apart.
check:
	$(MAKE) --no-print-directory -j2 --output-sync=target check-rust check-ui-unit

check-rust:
	cargo test -q --workspace --exclude tessera-desktop

check-ui-unit:
	npm --prefix ui test --silent

deps-build:
	scripts/install-deps.sh build

ui:
	npm --prefix ui run build --silent

desktop: ui
	cargo build -p tessera-desktop

## The headless server with the web UI, for a browser.
serve: ui
	cargo run -p tessera-cli --bin tessera -- serve --ui-dir ui/dist

# The desktop crate embeds ui/dist at compile time, so clippy needs the UI built.
lint: ui
	cargo fmt --all -- --check
	cargo clippy --workspace --all-targets -- -D warnings

## Rewrite the generated JSON Schemas, TypeScript types and protocol vectors.
gen:
	cargo run -q -p tessera-cli --bin tessera-gen -- write
	python3 tests/vectors/extract.py

test-generated:
	cargo run -q -p tessera-cli --bin tessera-gen -- check
	python3 tests/vectors/extract.py --check
	python3 scripts/check-deps.py
	python3 scripts/module-graph.py
	python3 scripts/check-ui-routes.py

# Without the Secret Service of test-keyring, the keyring tests in here skip and say so.
test-rust:
	cargo test --workspace --exclude tessera-desktop

# Every route of the router in docs/api.md, every `tessera` subcommand and flag in docs/cli.md,
# read from the binary's --help; the crate graph of docs/architecture.md from cargo metadata. After test-rust the build is a no-op; alone, it keeps the
# binary from being older than the source.
test-docs:
	cargo build -q -p tessera-cli --bin tessera
	python3 scripts/check-docs.py $(TESSERA_BIN)
	python3 scripts/crate-graph.py

## The local-model worker (issue 28): llama.cpp behind the OpenAI wire. A workspace of its own,
## built apart: its own target folder, and a `-C target-cpu` that llama.cpp's build follows
## (without one it leaves out AVX2/FMA). The packages carry it, so it is built for x86-64-v3
## (AVX2, FMA: any x86-64 machine since about 2015), not for this machine's CPU: a worker built
## with AVX-512 dies of SIGILL on most laptops. The bench builds a native one of its own.
LLAMA_TARGET_DIR ?= $(HOME)/.cache/tessera-llama-target
LLAMA_CPU ?= $(if $(filter x86_64,$(shell uname -m)),x86-64-v3,generic)
LLAMA_CARGO = cd crates/tessera-llama && TESSERA_TEST_GGUF=$(LLAMA_TARGET_DIR)/tiny.gguf TESSERA_BIN=$(TESSERA_BIN) \
	CARGO_TARGET_DIR=$(LLAMA_TARGET_DIR) RUSTFLAGS="-C target-cpu=$(LLAMA_CPU)" cargo
LLAMA_BIN := $(LLAMA_TARGET_DIR)/release/tessera-llama
# What the packages carry: the worker without its line tables (55 MB with them).
LLAMA_PACKAGED := $(LLAMA_TARGET_DIR)/tessera-llama.packaged
llama-worker:
	$(LLAMA_CARGO) build --release -q $(if $(LLAMA_FEATURES),--features "$(LLAMA_FEATURES)")
	strip --strip-debug -o $(LLAMA_PACKAGED) $(LLAMA_BIN)

## The suites' own model: random weights, a small vocabulary, a ChatML template with tools, a
## context of 16384, the worker's default most (the desktop app's tools and prompt take ~8,000
## of its tokens: its vocabulary spells JSON a character or two at a time).
TEST_GGUF := $(LLAMA_TARGET_DIR)/tiny.gguf
test-gguf:
	scripts/make-test-gguf.sh $(TEST_GGUF) --size tiny --context 16384

## The worker against the suite's own model (random weights, made by scripts/make-test-gguf.sh).
test-llama: llama-worker test-gguf
	cargo build -q -p tessera-cli --bin tessera
	$(LLAMA_CARGO) fmt -- --check
	$(LLAMA_CARGO) clippy --release --all-targets -q -- -D warnings
	$(LLAMA_CARGO) test --release -q

## Figures, not a test (issue 28): the worker, streamed over HTTP, beside llama-cpp-python
## in-process (pinned; a venv under ~/.cache, whose pip builds llama.cpp from source with
## GGML_NATIVE: minutes on two cores the first time) on the bench model (random weights,
## 1.2 GB, made once): time to first token, tokens/s, the worker's memory. Its sdist is kept
## beside the venv: run.py reads which llama.cpp it vendors and compares it with the worker's.
## A CPU that lists AMX in /proc/cpuinfo may still not run it (a virtual machine that does not
## hand the tile state to its guests): llama.cpp built with -march=native then dies of an
## invalid opcode in its AMX kernels on the first answer. Both sides of the bench are built
## without AMX there (the same flags for both), and the venv is rebuilt when the flags change.
LLAMA_BENCH_VENV ?= $(HOME)/.cache/tessera-llama-bench-venv
LLAMA_BENCH_MODEL ?= $(LLAMA_TARGET_DIR)/bench.gguf
LLAMA_NATIVE_DIR := $(LLAMA_TARGET_DIR)/native
LLAMA_NATIVE_CFLAGS := $(if $(shell grep -qw amx_tile /proc/cpuinfo 2>/dev/null && echo amx),-mno-amx-tile -mno-amx-int8 -mno-amx-bf16)
bench-llama:
	CFLAGS="$(LLAMA_NATIVE_CFLAGS)" CXXFLAGS="$(LLAMA_NATIVE_CFLAGS)" \
		$(MAKE) --no-print-directory llama-worker LLAMA_CPU=native LLAMA_TARGET_DIR=$(LLAMA_NATIVE_DIR)
	python3 -c 'import ensurepip' 2>/dev/null || $(AS_ROOT) apt-get install -y -q python3-venv
	[ -x $(LLAMA_BENCH_VENV)/bin/python ] || python3 -m venv $(LLAMA_BENCH_VENV)
	[ "$$(cat $(LLAMA_BENCH_VENV)/cflags 2>/dev/null)" = "$(LLAMA_NATIVE_CFLAGS)" ] || \
		$(LLAMA_BENCH_VENV)/bin/pip uninstall -q -y llama-cpp-python 2>/dev/null || true
	CMAKE_ARGS="-DGGML_NATIVE=ON" CFLAGS="$(LLAMA_NATIVE_CFLAGS)" CXXFLAGS="$(LLAMA_NATIVE_CFLAGS)" \
		$(LLAMA_BENCH_VENV)/bin/pip install -q --no-cache-dir --disable-pip-version-check \
		-r bench/llama/requirements.txt
	echo "$(LLAMA_NATIVE_CFLAGS)" > $(LLAMA_BENCH_VENV)/cflags
	pin=$$(sed -n 's/^llama-cpp-python==//p' bench/llama/requirements.txt); \
	[ -f $(LLAMA_BENCH_VENV)/sdist/llama_cpp_python-$$pin.tar.gz ] || \
		$(LLAMA_BENCH_VENV)/bin/pip download -q --disable-pip-version-check --no-deps \
		--no-binary :all: -d $(LLAMA_BENCH_VENV)/sdist llama-cpp-python==$$pin
	[ -f $(LLAMA_BENCH_MODEL) ] || scripts/make-test-gguf.sh $(LLAMA_BENCH_MODEL) --size bench
	python3 bench/llama/run.py $(LLAMA_NATIVE_DIR)/release/tessera-llama \
		$(LLAMA_BENCH_VENV)/bin/python $(LLAMA_BENCH_MODEL)
	python3 bench/llama/embeddings.py $(LLAMA_NATIVE_DIR)/release/tessera-llama \
		$(LLAMA_BENCH_VENV)/bin/python $(LLAMA_BENCH_MODEL)

## Figures (issue 28): why the worker's flash attention is off on a CPU. The packaged build of
## the worker with `--flash-attn on` beside its default, on the bench model at ~2,400 tokens of
## context: the prompt read cold, then tokens/s after it (bench/llama/attention.py).
bench-llama-attention: llama-worker
	[ -f $(LLAMA_BENCH_MODEL) ] || scripts/make-test-gguf.sh $(LLAMA_BENCH_MODEL) --size bench
	python3 bench/llama/attention.py $(LLAMA_BIN) $(LLAMA_BENCH_MODEL)

## Coverage-guided fuzzing of every parser of outside input, FUZZ_SECONDS (600) per target:
## about two hours. Not part of `make test`, whose Rust suites replay every corpus
## (tests/tests/fuzz_corpus.rs).
fuzz:
	scripts/fuzz.sh

## API keys in a real keyring: gnome-keyring in a private D-Bus session, unlocked with an
## empty password. Built first so the timeout covers only the run (a hung keyring call).
## The suites are built as `make test-rust` builds them (the whole workspace's features): a
## `-p` build would resolve other features and compile half the workspace again.
KEYRING_TESTS := cargo test -q --workspace --exclude tessera-desktop --test all
test-keyring:
	$(KEYRING_TESTS) --no-run
	cargo build -q -p tessera-test-tools --bins
	timeout -k 10 300 scripts/with-keyring.sh $(KEYRING_TESTS) -- keyring:: serve_keys_moving::

test-ui:
	npm --prefix ui run typecheck
	npm --prefix ui run lint
	npm --prefix ui test

# The chat flows talk to the scripted provider (a fake of a paid model API, real OpenAI wire);
# the local-model flow downloads the suite's own model from tessera-fake-hub and runs the worker.
# Both end-to-end suites run with no network (scripts/offline.sh: loopback only), the local
# model's tests among them: nothing they do may need one.
test-ui-e2e: ui llama-worker test-gguf
	cargo build -q -p tessera-cli --bin tessera -p tessera-testkit -p tessera-test-tools --bins
	TESSERA_BIN=$(TESSERA_BIN) TESSERA_LLAMA_BIN=$(LLAMA_BIN) TESSERA_TEST_GGUF=$(TEST_GGUF) \
	  TESSERA_REQUIRE_LOCAL_MODEL=1 scripts/offline.sh npm --prefix ui run e2e

## Figures, not a test: long main-thread tasks while a 20k-token answer streams into the web UI.
bench-ui: ui
	cargo build -q -p tessera-cli --bin tessera -p tessera-testkit --bin tessera-scripted-provider
	TESSERA_BIN=$(TESSERA_BIN) node ui/bench/long-answer.mjs

## Figures, not a test (issue 27): `tessera chat` against curl, openai-python and the Vercel AI
## SDK on the same bytes (one word from process start; time per streamed delta), then the
## provider layer against a raw read. Installs the pinned peers itself (a venv under ~/.cache,
## bench/cli/node_modules).
BENCH_VENV ?= $(HOME)/.cache/tessera-bench-venv
bench-cli:
	cargo build --release -q -p tessera-cli --bin tessera
	python3 -c 'import ensurepip' 2>/dev/null || $(AS_ROOT) apt-get install -y -q python3-venv
	[ -x $(BENCH_VENV)/bin/python ] || python3 -m venv $(BENCH_VENV)
	$(BENCH_VENV)/bin/pip install -q -r bench/cli/requirements.txt
	npm --prefix bench/cli ci --no-audit --no-fund --loglevel=error
	BENCH_VENV=$(BENCH_VENV) python3 bench/cli/run.py $(CARGO_TARGET_DIR)/release/tessera
	cargo bench -q -p tessera-providers --bench stream

## Figures, not a test (issue 27): `echo` calls to server-everything through a Tessera turn and
## a direct TOOL_CALL_REQUEST, beside the official Python MCP client (pinned, in the venv).
bench-mcp:
	scripts/install-deps.sh all
	cargo build --release -q -p tessera-cli --bin tessera
	python3 -c 'import ensurepip' 2>/dev/null || $(AS_ROOT) apt-get install -y -q python3-venv
	[ -x $(BENCH_VENV)/bin/python ] || python3 -m venv $(BENCH_VENV)
	$(BENCH_VENV)/bin/pip install -q -r bench/mcp/requirements.txt
	python3 bench/mcp/run.py $(CARGO_TARGET_DIR)/release/tessera $(BENCH_VENV)/bin/python

## Figures, not a test (issue 47): lexical indexing of 10,000 files of 5 KB, memory while
## indexing, index size per MB of text, retrieval over 100,000 chunks; each beside its target.
bench-knowledge:
	cargo bench -q -p tessera-knowledge --bench knowledge

## The desktop app as people install it: a debug .deb, installed, driven under Xvfb. The
## worker goes beside the app in /usr/bin (it finds it there).
WORKER_FILES = {"/usr/bin/tessera-llama":"$(LLAMA_PACKAGED)"}
WORKER_BUNDLE = {"bundle":{"linux":{"deb":{"files":$(WORKER_FILES)},"rpm":{"files":$(WORKER_FILES)}}}}
desktop-deb: ui llama-worker
	rm -rf $(DEB_DIR)
	npx --no-install tauri build --debug --bundles deb --ci --config '$(WORKER_BUNDLE)'

desktop-install: desktop-deb
	$(AS_ROOT) env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --reinstall $(DEB_DIR)/*.deb

test-desktop: desktop-install test-gguf
	cargo build -q -p tessera-cli --bin tessera -p tessera-testkit --bins
	TESSERA_SCRIPTED_PROVIDER_BIN=$(CARGO_TARGET_DIR)/debug/tessera-scripted-provider \
	TESSERA_BIN=$(TESSERA_BIN) TESSERA_TEST_GGUF=$(TEST_GGUF) TESSERA_REQUIRE_LOCAL_MODEL=1 \
	TESSERA_DESKTOP_BIN=/usr/bin/tessera-desktop xvfb-run -a -s "-screen 0 1280x900x24" \
	  scripts/offline.sh dbus-run-session -- node --test tests/desktop/

## The .deb and .rpm people install (release build).
package: deps-build ui llama-worker
	npx --no-install tauri build --bundles deb,rpm --ci --config '$(WORKER_BUNDLE)'
	@ls -l $(CARGO_TARGET_DIR)/release/bundle/deb/*.deb $(CARGO_TARGET_DIR)/release/bundle/rpm/*.rpm

## The desktop figures of issue 7 (release build): start-up, memory, longest task, .deb size.
figures: package
	cargo build -q -p tessera-testkit --bin tessera-scripted-provider
	cargo build --release -q -p tessera-cli --bin tessera
	TESSERA_BIN=$(CARGO_TARGET_DIR)/release/tessera \
	TESSERA_DESKTOP_BIN=$(CARGO_TARGET_DIR)/release/tessera-desktop \
	TESSERA_DEB="$$(ls $(RELEASE_DEB_DIR)/*.deb | head -1)" \
	TESSERA_SCRIPTED_PROVIDER_BIN=$(CARGO_TARGET_DIR)/debug/tessera-scripted-provider \
	xvfb-run -a -s "-screen 0 1280x900x24" dbus-run-session -- node scripts/figures.mjs
