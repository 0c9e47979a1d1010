# The two commands of README.md: `make demo` runs the main job, `make test` runs every check.
# Both start from a fresh clone: they install what the project needs first.

NODE := node --no-node-snapshot
TSX := $(NODE) --import tsx

.PHONY: setup build demo demo-library demo-dispatch demo-agents demo-durable demo-research demo-flows test lint typecheck unit bench bench-restate bench-startup-nodes bench-peers bench-scale bench-check bench-ts7 bench-postgres bench-dbos clean docker-engine postgres image chromium conformance node-matrix runtime-matrix restate

## setup: install dependencies from the lockfile (builds isolated-vm; allowScripts in package.json approves it)
setup: node_modules/.cordon-setup

node_modules/.cordon-setup: package.json package-lock.json
	npm ci --no-audit --no-fund
	@touch $@

## build: compile src/, sandbox/ and environments/ to dist/
build: setup
	npm run build

## demo: the main job: the cordon command runs a model's code against the shop's tools, in the default sandbox
demo: build
	npx --no-install cordon run examples/shop/task.ts --tools examples/shop/tools.ts

## demo-library: the same kind of job through the library: a run_code call dispatched in code (examples/code-mode.ts)
demo-library: setup
	$(TSX) examples/code-mode.ts

## demo-dispatch: one model turn of direct tool calls through the dispatcher, events printed
demo-dispatch: setup
	$(TSX) examples/dispatch-turn.ts

## demo-agents: OpenAI, Anthropic and AI SDK agent loops where the (scripted, local) model writes code
demo-agents: setup
	$(TSX) examples/agent-openai.ts
	$(TSX) examples/agent-anthropic.ts
	$(TSX) examples/agent-ai-sdk.ts

## demo-durable: runs pause at an approval in one process and resume in another (OpenAI, Anthropic, AI SDK; scripted model)
demo-durable: setup
	$(TSX) examples/durable-openai.ts
	$(TSX) examples/durable-anthropic.ts
	$(TSX) examples/durable-ai-sdk.ts

## demo-research: a model's code searches and reads pages with web_search and web_fetch (local server)
demo-research: setup
	$(TSX) examples/research.ts

## demo-flows: a web page (local server) tries to mail itself out; a flow policy refuses it, or asks a person with the body marked
demo-flows: setup
	$(TSX) examples/injected-page.ts

## test: lint, type-check, build, start the Docker engines and build the sandbox image, start Postgres, install chromium, start the Restate server, then every test suite, the MCP conformance suite, the Node matrix and the runtime matrix
test: setup lint typecheck build image postgres chromium restate unit conformance node-matrix runtime-matrix

## docker-engine: install Debian's Docker engine if missing, and start the two engines the tests use
docker-engine:
	scripts/docker-engine.sh --second

## postgres: install Debian's Postgres server if missing, and start the cluster the tests use (127.0.0.1:54329)
postgres:
	scripts/postgres.sh

## image: build the sandbox container image on those engines (from this machine's node; no registry)
image: setup docker-engine
	$(TSX) scripts/build-image.ts

## restate: start the Restate server the Restate tests use (fetched from the npm registry into .restate/; 127.0.0.1 only, ports of its own; `scripts/restate-server.sh stop` stops it)
restate:
	scripts/restate-server.sh

## chromium: install Debian's chromium if missing, for the approval page's browser test
chromium:
	scripts/chromium.sh

## lint: biome (format and lint rules), then knip (unused files, exports and dependencies; knip.jsonc)
lint: setup
	npm run lint

typecheck: setup
	npm run typecheck

# The Docker and Postgres suites and the browser test must run, not skip, once the engines and the
# server are up and chromium is in.
unit: setup
	CORDON_REQUIRE_DOCKER=1 CORDON_REQUIRE_POSTGRES=1 CORDON_REQUIRE_BROWSER=1 CORDON_SECOND_DOCKER_SOCKET=/run/cordon-docker-2/docker.sock npm test

## conformance: the official MCP conformance suite's server scenarios against cordon mcp --http and its client auth scenarios against cordon's OAuth client for remote upstreams (Node 22 and the suite from the npm registry), compared with test/mcp/conformance/expected.json and expected-client.json
conformance: build
	scripts/conformance.sh

## node-matrix: the security, conformance and packed-consumer suites on Node 22, 24 and 26 too (from the npm registry), each with its isolated-vm built from source (scripts/node-matrix.json pins both)
node-matrix: build
	scripts/node-matrix.sh

## runtime-matrix: the environment conformance cases (test/conformance/cases.ts, those that apply) and the checks of test/runtimes/checks.ts on cordon's core with the QuickJS environment on Bun, Deno and in a workerd Worker (each from the npm registry, pinned in scripts/runtime-matrix.json); the cases that do not apply are printed with why (about 65 s here once the runtimes are in .runtimes/, about 95 s the first time, which fetches them from the npm registry into .runtimes/, 340 MB unpacked)
runtime-matrix: build
	scripts/runtime-matrix.sh

## bench: benchmarks (figures and ratios, not pass/fail) of the built package: "cordon" resolves to dist/ (Postgres for the durable runs' journal)
bench: build image postgres
	TSX_TSCONFIG_PATH=tsconfig.build.json $(TSX) bench/dispatch.ts
	TSX_TSCONFIG_PATH=tsconfig.build.json $(NODE) --expose-gc --import tsx bench/codemode.ts
	TSX_TSCONFIG_PATH=tsconfig.build.json $(TSX) bench/pause.ts
	TSX_TSCONFIG_PATH=tsconfig.build.json $(TSX) bench/durable.ts
	TSX_TSCONFIG_PATH=tsconfig.build.json $(TSX) bench/containment.ts
	TSX_TSCONFIG_PATH=tsconfig.build.json $(NODE) --expose-gc --import tsx bench/quickjs.ts
	TSX_TSCONFIG_PATH=tsconfig.build.json $(TSX) bench/out-of-process.ts
	TSX_TSCONFIG_PATH=tsconfig.build.json $(NODE) --expose-gc --import tsx bench/leak.ts
	TSX_TSCONFIG_PATH=tsconfig.build.json $(TSX) bench/tokens.ts
	TSX_TSCONFIG_PATH=tsconfig.build.json $(TSX) bench/tracing.ts
	TSX_TSCONFIG_PATH=tsconfig.build.json $(TSX) bench/builtins.ts
	TSX_TSCONFIG_PATH=tsconfig.build.json $(TSX) bench/typecheck.ts
	TSX_TSCONFIG_PATH=tsconfig.build.json $(TSX) bench/typecheck-pool.ts
	TSX_TSCONFIG_PATH=tsconfig.build.json $(TSX) bench/discovery.ts
	TSX_TSCONFIG_PATH=tsconfig.build.json $(TSX) bench/startup.ts
	TSX_TSCONFIG_PATH=tsconfig.build.json $(TSX) bench/observed.ts
	TSX_TSCONFIG_PATH=tsconfig.build.json $(TSX) bench/flows.ts

## bench-postgres: the Postgres journal's writes (sequential, 100 at once, 100 in one append) on the server make postgres starts
bench-postgres: build postgres
	TSX_TSCONFIG_PATH=tsconfig.build.json $(TSX) bench/postgres-journal.ts

## bench-dbos: a durable run inside a DBOS workflow (sequential calls, a fan-out of 100) beside no journal, on the server make postgres starts
bench-dbos: build postgres
	TSX_TSCONFIG_PATH=tsconfig.build.json $(TSX) bench/dbos.ts

## bench-restate: a journaled call's cost on Restate (restateRunCode, sequential and a fan-out of 100) beside none, on the server make restate starts
bench-restate: build restate
	RESTATE_LOGGING=WARN TSX_TSCONFIG_PATH=tsconfig.build.json $(TSX) bench/restate.ts

## bench-startup-nodes: bench/startup.ts (cordon run of the shop example) on each pinned Node, in the trees make node-matrix lays out
bench-startup-nodes: build
	scripts/bench-startup-nodes.sh

## bench-peers: cordon beside TanStack ai-code-mode, UTCP code-mode and Vercel's AI SDK code mode in one Node 22 process, and beside Cloudflare's codemode in one workerd (all from the npm registry, versions pinned and printed), then its bar chart in docs/charts/peers.svg
bench-peers: build
	scripts/bench-peers.sh
	$(TSX) bench/scale/peers-chart.ts .bench-peers/report.txt

## bench-scale: how cost grows (runs at once, idle sessions, calls per run, catalog size, recorded calls), where each curve bends and why; series and SVG charts into docs/charts/ (under 10 minutes; CORDON_SCALE=quick for small sizes)
bench-scale: build
	TSX_TSCONFIG_PATH=tsconfig.build.json $(NODE) --expose-gc --import tsx bench/scale/scale.ts

## bench-check: a report, not a test: bench/dispatch.ts, codemode.ts and containment.ts afresh, each figure beside the one recorded in docs/measurements.json, any worse than 1.25x flagged
bench-check: build
	$(TSX) bench/check-figures.ts

## bench-ts7: the type check with TypeScript 5's JavaScript API beside TypeScript 7's native compiler (installed from the npm registry into .bench-ts7/, not a dependency), same files, same run
bench-ts7: setup
	scripts/bench-ts7.sh

clean:
	scripts/restate-server.sh stop
	rm -rf dist node_modules .bench-peers .bench-ts7 .conformance .nodes .node-matrix .restate .runtimes .runtime-matrix
