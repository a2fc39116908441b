# intrapush — build, test, demo, install, package.
#
#   make               release binaries, the Swift runtime linked in statically
#   make generate      the local API's Swift types from packaging/varlink/*.varlink
#   make check         before every commit: the layers, the generated files and their generator,
#                      the docs against the code, every Swift test, the fuzz harnesses briefly
#   make test          everything: make check's, then the package test, the package under a real
#                      systemd, the interop matrix, the hostile peer, the local API's conformance,
#                      the desktop agent, power cuts and the benchmark on tiny sizes; the stages
#                      side by side where the cores allow (scripts/stages.py), each one's time
#                      printed at the end
#   make interop       the real intrapushd against server stacks we did not write (Tests/Interop)
#   make server-conformance  the conformance checker for push servers: its self-test, then the devserver
#   make demo          server and daemon on loopback, a few pushes, the CLI shows them
#   make install       PREFIX=/usr DESTDIR= ; binaries, unit, sysusers, config, man pages, completions
#   make deb           dist/intrapush_VERSION_ARCH.deb and -dbgsym (dpkg-buildpackage, debhelper)
#   make repo REPO_KEY=FINGERPRINT  the packages in the organisation's signed APT repository for
#                      Debian 12 and 13 (reprepro; dist/apt, its state in .build/repo)
#   make reproducible-check  the packages built twice elsewhere, compared bit for bit (or here and
#                      once elsewhere: REPRODUCIBLE_CHECK_FLAGS=--here, as CI does)
#   make system-test   the .deb installed, reloaded, removed, purged in a booted bookworm and trixie
#   make powercut      power cuts through a FUSE file system: the database, the outbox and the
#                      agent's state keep everything acknowledged, and no read receipt reaches
#                      the server for a mark that was lost (as root)
#   make bench-cli     the CLI's speed on a generated 1,000,000-row database (ROWS=…)
#   make bench         the daemon's figures as one table (also .build/bench.md) and the figures
#                      of docs/performance.md (docs/figures/, with Debian's matplotlib)
#   make bench-smoke   the same on tiny sizes, checking only that every figure is produced

PREFIX     ?= /usr
DESTDIR    ?=
SYSCONFDIR ?= /etc
SWIFT      ?= swift
SUDO       := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# The one place the version lives is the top entry of the Debian changelog.
VERSION    := $(shell head -n1 debian/changelog | cut -d' ' -f2 | tr -d '()')
# Without the Debian revision (0.1.0-1 -> 0.1.0), for the man pages.
UPSTREAM_VERSION := $(firstword $(subst -, ,$(VERSION)))
ARCH       := $(shell dpkg --print-architecture 2>/dev/null || uname -m)

# System packages the build links against, and those the tests use (Debian names): iproute2's
# ip(8) makes the network namespaces of the network-awareness tests (they skip without it).
SYSTEM_DEPS := libsqlite3-dev libsystemd-dev pkg-config
# What make check's own tests run besides: python3 (its runner and the docs' checks; a machine
# with only the Swift toolchain may lack it), openssl (certificates for the TLS tests), promtool
# (Debian's prometheus: the metrics tests check the exposition with it), curl (the metrics
# tests' scrapes), iproute2 (ss: the TCP keepalive test; ip: the network-namespace tests).
CHECK_DEPS  := $(SYSTEM_DEPS) python3 openssl prometheus curl iproute2
# What dpkg-buildpackage needs besides SYSTEM_DEPS (debian/control's Build-Depends).
DEB_DEPS    := dpkg-dev debhelper po-debconf
# make bench's figures.
BENCH_DEPS  := python3-matplotlib
# make repo's: the repository's keeper, and the signing.
REPO_DEPS   := reprepro gnupg
# The package test's tools, the system test's (debootstrap, systemd-nspawn, the repository it
# installs from), the notifier test's
# session bus, the power-cut test's FUSE, promtool, bench-smoke's figures; and DEB_DEPS, so that
# apt-get runs once, before the stages.
TEST_DEPS   := $(DEB_DEPS) $(BENCH_DEPS) $(REPO_DEPS) binutils groff-base man-db systemd procps iproute2 lintian curl prometheus \
	openssl systemd-container debootstrap strace python3-dbusmock python3-dbus dbus-daemon desktop-file-utils \
	fuse3 python3-fusepy
# Reproducible builds: the checkout's path reaches no binary (Swift's #file and debug information,
# the C and C++ targets' __FILE__ and theirs); it reads as /usr/src/intrapush wherever the build
# ran. Nor does what varies with it: the debug information's references to the clang modules it
# imports ("breadcrumbs": their cache directory is named by a hash of the compiler's arguments,
# paths included), and each object's module hash (.swift_modhash, for incremental code
# generation, which differed between two builds even so: zeroed). `make reproducible-check`
# builds twice, elsewhere, and compares.
SOURCE_PREFIX := /usr/src/intrapush
PREFIX_MAP_FLAGS := -Xswiftc -file-prefix-map -Xswiftc $(CURDIR)=$(SOURCE_PREFIX) \
	-Xcc -ffile-prefix-map=$(CURDIR)=$(SOURCE_PREFIX) -Xcxx -ffile-prefix-map=$(CURDIR)=$(SOURCE_PREFIX)
REPRODUCIBLE_FLAGS := $(PREFIX_MAP_FLAGS) -Xswiftc -Xfrontend -Xswiftc -no-clang-module-breadcrumbs \
	-Xswiftc -Xfrontend -Xswiftc -disable-incremental-llvm-codegen
# lld, with relative relocations packed (DT_RELR, glibc >= 2.36) and no symbol table exported:
# the start-up relocation pass and the dynamic symbols are what made 4-5 MiB of a static
# binary resident at idle (measured: 25.4 -> 21.5 MiB RSS). Still position-independent.
RELEASE_FLAGS := -c release --static-swift-stdlib -Xswiftc -use-ld=lld \
	-Xlinker --no-export-dynamic -Xlinker -z -Xlinker pack-relative-relocs $(REPRODUCIBLE_FLAGS)
RELEASE_DIR := .build/release
# What gets installed; intrapush-devserver is for the demo and the tests only.
INSTALLED_BINARIES := $(RELEASE_DIR)/intrapushd $(RELEASE_DIR)/intrapush $(RELEASE_DIR)/intrapush-notifier

BINDIR      := $(PREFIX)/bin
SBINDIR     := $(PREFIX)/sbin
UNITDIR     := $(PREFIX)/lib/systemd/system
USERUNITDIR := $(PREFIX)/lib/systemd/user
APPLICATIONSDIR := $(PREFIX)/share/applications
AUTOSTARTDIR := $(SYSCONFDIR)/xdg/autostart
SYSUSERSDIR := $(PREFIX)/lib/sysusers.d
MANDIR      := $(PREFIX)/share/man
BASHCOMPDIR := $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR  := $(PREFIX)/share/zsh/vendor-completions
FISHCOMPDIR := $(PREFIX)/share/fish/vendor_completions.d
CONFDIR     := $(SYSCONFDIR)/intrapush

DEB        := dist/intrapush_$(VERSION)_$(ARCH).deb
NOTIFIER_DEB := dist/intrapush-notifier_$(VERSION)_$(ARCH).deb

.PHONY: install-daemon install-notifier notifier-test screenshot powercut powercut-smoke reproducible-check
.PHONY: generate generated-check docs-check server-conformance check swift-build swift-test-run ci bench-figures
.PHONY: repo check-deps
.PHONY: all release debug deps test-deps test swift-test deb-test system-test interop interop-deps demo install deb clean bench-cli bench bench-smoke fleet-sim fuzz fuzz-smoke hostile local-api-conformance architecture

all: release

# Installs whatever of the given packages is missing (apt-get; sudo when not root).
define apt_install_missing
	@missing=""; for p in $(1); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi
endef

deps:
	$(call apt_install_missing,$(SYSTEM_DEPS))

check-deps: deps
	$(call apt_install_missing,$(CHECK_DEPS))

test-deps: check-deps
	$(call apt_install_missing,$(TEST_DEPS))

release: deps
	$(SWIFT) build $(RELEASE_FLAGS)

debug: deps
	$(SWIFT) build

# Before every commit: the layers, the generated files and the generator's own tests, the docs
# against the code, the Swift tests (unit, and integration: the real binaries against
# intrapush-devserver on loopback), the fuzz harnesses from their seeds.
check: check-deps
	python3 scripts/stages.py check

# Everything: make check's stages, the release build and the .deb, the package test, the package
# under a booted systemd, the interop matrix (the release daemon against real server stacks), the
# hostile peer, the local API's conformance, the desktop agent, power cuts, and the benchmark once
# on tiny sizes so that it keeps working (it times nothing against targets). Stages run side by
# side where the cores allow; a new test target goes in scripts/stages.py's list.
test: test-deps
	python3 scripts/stages.py test

# What CI (.ci/run) runs: make test's stages, with the packages of the releases before for the
# system test's upgrades (scripts/previous_deb.sh) and the packages built once more elsewhere and
# compared bit for bit.
ci: test-deps
	python3 scripts/stages.py ci

# What the test targets build first; scripts/stages.py builds it as a stage of its own and passes
# these empty (SwiftPM's lock on .build would hold a test behind a build running beside it).
RELEASE_BUILD ?= release
DEB_BUILD ?= deb
INTEROP_DEPS ?= interop-deps

# libFuzzer harnesses for every parser of outside input (Fuzz/): FUZZ_TIME seconds each (or
# FUZZ_HARNESS=name for one); fuzz-smoke runs each briefly from its seeds, in make test, with
# libFuzzer's random choices seeded: the same inputs each run, so it fails for what changed.
FUZZ_TIME ?= 60
fuzz:
	Fuzz/run.sh $(FUZZ_TIME) $(FUZZ_HARNESS)

fuzz-smoke:
	FUZZ_SEED=1 Fuzz/run.sh 8

# The local API's Swift types from its interface files (packaging/varlink/*.varlink), and the
# version from debian/changelog, the one place each is written: `make generate` writes them,
# generated-check (in make test) fails when the committed ones are not what the files make.
generate:
	python3 scripts/varlink_generate.py
	python3 scripts/version_generate.py

generated-check:
	python3 scripts/varlink_generate.py --check
	python3 scripts/test_varlink_generate.py
	python3 scripts/version_generate.py --check

# Every relative link and #anchor of README.md, docs/ and ARCHITECTURE.md resolves; the journal's
# message ids, the exit statuses and the configuration keys are where the code says, each in the
# man pages, operating.md and config/intrapush.conf; and so are the keys a reload reconnects for,
# the receipts' placeholders, export's columns, the schema, the Limits and the threads
# (scripts/check_docs.py with docs_facts.py, docs_facts_more.py, docs_ceilings.py). First its
# self-test: each mistake planted back in a copy of the tree must be reported. Every statement
# of docs/protocol.md names a test or a conformance checker's step that exists
# (scripts/check_protocol.py, after its self-test: statements planted without one must be found).
# The license: LICENSE, every source file's SPDX identifier, and debian/copyright naming every
# Swift package linked (scripts/check_license.py, after its self-test).
docs-check:
	python3 scripts/check_docs.py --self-test
	python3 scripts/check_license.py --self-test
	python3 scripts/check_protocol.py --self-test
	python3 scripts/check_protocol.py

# The folders of every target keep the layers ARCHITECTURE.md declares: no two use each other.
architecture:
	python3 scripts/folder_graph.py

# A hostile and broken peer (Tests/Hostile): floods, absurd hints and ids, abuse of the local API,
# against the release daemon, with its peak RSS under each.
hostile: $(RELEASE_BUILD)
	python3 Tests/Hostile/hostile.py --daemon $(RELEASE_DIR)/intrapushd

# The local API as a client that knows it only from the daemon's introspection sees it
# (Tests/LocalAPI): PyPI's varlink client calls every method with valid and invalid parameters,
# and every reply and error must be declared by the interface called. First the checker's
# self-test (two faults planted in a service of its own must be reported), then the release daemon.
local-api-conformance: $(RELEASE_BUILD)
	python3 Tests/LocalAPI/conformance.py --self-test && python3 Tests/LocalAPI/conformance.py --daemon $(RELEASE_DIR)/intrapushd

# The desktop agent on a private session bus, with python-dbusmock's notification server, the
# devserver and the release daemon (Tests/Notifier); Debian's python3, which has the dbus module.
notifier-test: $(RELEASE_BUILD)
	/usr/bin/python3 Tests/Notifier/notifier_test.py --bin-dir $(RELEASE_DIR)

# Power cuts (Tests/PowerCut, as root): cutfs, a FUSE file system, keeps what was not fsynced in
# memory and loses it (or tears it, or lets it reach the disk out of order) on a cut. First its
# self-test (a writer acknowledging after COMMIT must lose rows under synchronous=NORMAL and OFF,
# none under FULL; one relying on SQLite writing in order must be caught; one sending read
# receipts before its marks are synced must be caught), then the daemon's database and outbox,
# and the agent's state, cut at random instants and checked after the reboot (the daemon's
# restart rounds cut inside a burst that starts the WAL over, with and without the
# checkpointer); then a stalled disk (cutfs holds every fsync): the daemon's local API answers
# and says so, and nothing is acknowledged before its commit. powercut-smoke, in make test, runs
# fewer rounds. POWERCUT_ROUNDS are the only rounds with marks and read receipts beside the
# pushes, and a receipt that leaves before its mark's sync is lost in few of them: 80, a third
# of them strict.
POWERCUT_ROUNDS ?= 80
POWERCUT_STRICT ?= 26
POWERCUT_RESTART ?= 8
POWERCUT_NO_CHECKPOINTER ?= 4
POWERCUT_AGENT_ROUNDS ?= 10
powercut: $(RELEASE_BUILD)
	@if [ "$$(id -u)" != 0 ]; then echo "powercut: skipped: mounting a FUSE file system needs root (CI runs it as root)"; else \
	  set -e; \
	  /usr/bin/python3 Tests/PowerCut/selftest.py --rounds 5; \
	  /usr/bin/python3 Tests/PowerCut/selftest.py --rounds 3 --strict --reorder-rounds 0 --receipt-rounds 0; \
	  /usr/bin/python3 Tests/PowerCut/powercut.py --rounds $(POWERCUT_ROUNDS) --strict-rounds $(POWERCUT_STRICT) \
	    --restart-rounds $(POWERCUT_RESTART) --no-checkpointer-rounds $(POWERCUT_NO_CHECKPOINTER) --binaries $(RELEASE_DIR); \
	  /usr/bin/python3 Tests/PowerCut/agent_powercut.py --rounds $(POWERCUT_AGENT_ROUNDS) --binaries $(RELEASE_DIR); \
	  /usr/bin/python3 Tests/PowerCut/stall.py --binaries $(RELEASE_DIR); \
	fi

powercut-smoke:
	$(MAKE) powercut POWERCUT_ROUNDS=10 POWERCUT_STRICT=4 POWERCUT_RESTART=2 POWERCUT_NO_CHECKPOINTER=1 POWERCUT_AGENT_ROUNDS=4

# Three pushes shown by dunst under Xvfb, and a screenshot of them (docs/notifier-screenshot.png).
screenshot: release
	scripts/screenshot.sh $(RELEASE_DIR) docs/notifier-screenshot.png

# The Swift tests: built, then run. The run is the test bundle itself, as `swift test --skip-build`
# runs it, without SwiftPM, whose lock on .build would keep it waiting while a build runs beside it.
# The test log is kept, and on failure the failed tests and their expectations are printed last,
# so that the tail of a CI log names them.
swift-test: swift-build
	$(MAKE) --no-print-directory swift-test-run

swift-build: deps
	$(SWIFT) build --build-tests

swift-test-run:
	@mkdir -p .build
	@bash -o pipefail -c 'NO_COLOR=1 .build/debug/intrapushPackageTests.xctest --testing-library swift-testing 2>&1 | tee .build/swift-test.log' || { \
		echo "== failed tests and expectations (full log: .build/swift-test.log) =="; \
		grep -E '✘|Fatal error' .build/swift-test.log | tail -40; \
		exit 1; }

deb-test: $(DEB_BUILD)
	packaging/tests/deb-test.sh $(DEB) $(NOTIFIER_DEB)

# The package in a booted Debian under systemd (systemd-nspawn; root only, else it skips), for
# each release in SYSTEM_TEST_RELEASES: bookworm (systemd 252) and trixie (systemd 257, the
# current stable); each root is made once and kept outside the clone
# (packaging/tests/system-test-root.sh: INTRAPUSH_TEST_CACHE, /var/cache/intrapush-test).
SYSTEM_TEST_RELEASES ?= bookworm trixie
export SYSTEM_TEST_RELEASES
# The releases before, for the upgrades from them: there when scripts/previous_deb.sh made them.
PREVIOUS_DEBS ?= $(wildcard .build/previous/intrapush_*_$(ARCH).deb)
system-test: $(DEB_BUILD)
	@for release in $(SYSTEM_TEST_RELEASES); do \
	  packaging/tests/system-test.sh $(DEB) $$release $(NOTIFIER_DEB) $(PREVIOUS_DEBS) || exit 1; \
	done

# Debian's node-ws, Go with gorilla/websocket, Jetty 9.4, nginx, HAProxy; the pinned Python
# stacks in .build/interop/venv. Each server program is compiled once, into .build/interop.
interop-deps:
	Tests/Interop/install-deps.sh

# INTEROP_FLAGS=--only=websockets,jetty runs some rows. Ends with the conformance checker against
# each server program (Tests/ServerConformance); its reports go to .build/interop/conformance.*.
interop: $(RELEASE_BUILD) $(INTEROP_DEPS)
	python3 Tests/Interop/interop.py --daemon $(RELEASE_DIR)/intrapushd $(INTEROP_FLAGS)

# The conformance checker for push servers (Tests/ServerConformance): first its self-test (faults
# planted in copies of spec_server.py must each be reported), then intrapush-devserver, the
# reference server, which must keep every statement it can be held to.
server-conformance: $(RELEASE_BUILD)
	python3 Tests/ServerConformance/check_server.py --self-test
	python3 Tests/ServerConformance/check_devserver.py --devserver $(RELEASE_DIR)/intrapush-devserver \
	  --report .build/interop/conformance-devserver.json

# The CLI's speed on a generated database of ROWS notifications (default 1,000,000); prints figures.
bench-cli: release
	python3 scripts/bench_cli.py $(ROWS)

# The daemon's speed, latency, idle cost, start, fleet and outbox figures; BENCH_FLAGS=… passes
# options. Then docs/performance.md's figures from what it measured (.build/bench.json), drawn
# with Debian's matplotlib (Debian's python3: the one on PATH may be another).
bench: release
	$(call apt_install_missing,$(BENCH_DEPS))
	python3 scripts/bench.py $(BENCH_FLAGS)
	$(MAKE) --no-print-directory bench-figures

# The figures alone, again, from the last make bench's .build/bench.json.
bench-figures:
	$(call apt_install_missing,$(BENCH_DEPS))
	/usr/bin/python3 scripts/bench_figures.py .build/bench.json docs/figures --page docs/performance.md

# Every figure on tiny sizes, and drawn (not into docs/): nothing judged.
bench-smoke: $(RELEASE_BUILD)
	python3 scripts/bench.py --smoke $(BENCH_FLAGS)
	/usr/bin/python3 scripts/bench_figures.py .build/bench.json .build/figures-smoke

demo: deps
	./scripts/demo.sh

# `make && sudo make install`: install does not build again (as root) when the binaries exist.
$(INSTALLED_BINARIES):
	$(MAKE) release

# Two packages from one tree: install-daemon is intrapush, install-notifier intrapush-notifier.
install: install-daemon install-notifier

install-daemon: $(INSTALLED_BINARIES)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(SBINDIR) $(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSUSERSDIR) \
	  $(DESTDIR)$(CONFDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man8 \
	  $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(FISHCOMPDIR)
	install -m 0755 $(RELEASE_DIR)/intrapushd $(DESTDIR)$(SBINDIR)/intrapushd
	install -m 0755 $(RELEASE_DIR)/intrapush $(DESTDIR)$(BINDIR)/intrapush
	sed 's|/usr/sbin/intrapushd|$(SBINDIR)/intrapushd|' packaging/intrapush.service \
	  >$(DESTDIR)$(UNITDIR)/intrapush.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/intrapush.service
	install -m 0644 packaging/intrapush.socket $(DESTDIR)$(UNITDIR)/intrapush.socket
	@# Names the sealed token to the unit where the package sealed it.
	install -d $(DESTDIR)$(PREFIX)/lib/systemd/system-generators
	install -m 0755 packaging/intrapush-token-generator $(DESTDIR)$(PREFIX)/lib/systemd/system-generators/intrapush-token-generator
	@# What each event the daemon logs means, and what to do (journalctl -x).
	install -d $(DESTDIR)$(PREFIX)/lib/systemd/catalog
	install -m 0644 packaging/intrapush.catalog $(DESTDIR)$(PREFIX)/lib/systemd/catalog/intrapush.catalog
	@# The local API's interface files, for the authors of other clients.
	install -d $(DESTDIR)$(PREFIX)/share/intrapush/varlink
	install -m 0644 packaging/varlink/*.varlink $(DESTDIR)$(PREFIX)/share/intrapush/varlink/
	install -m 0644 packaging/intrapush.sysusers $(DESTDIR)$(SYSUSERSDIR)/intrapush.conf
	@# The reference of every key, read by nobody; the administrator's settings go in drop-ins
	@# (or in intrapush.conf, which this never writes), so that a new release never asks.
	install -d $(DESTDIR)$(PREFIX)/share/intrapush $(DESTDIR)$(CONFDIR)/intrapush.conf.d
	install -m 0644 config/intrapush.conf $(DESTDIR)$(PREFIX)/share/intrapush/intrapush.conf
	install -m 0644 config/intrapush.conf.d-README $(DESTDIR)$(CONFDIR)/intrapush.conf.d/README
	for page in packaging/man/intrapush.1 packaging/man/*.[58]; do \
	  name=$${page##*/}; \
	  sed 's/@VERSION@/$(UPSTREAM_VERSION)/' $$page | gzip -9n >$(DESTDIR)$(MANDIR)/man$${name##*.}/$$name.gz && \
	  chmod 0644 $(DESTDIR)$(MANDIR)/man$${name##*.}/$$name.gz || exit 1; \
	done
	@# Sourced, not run: no #! line (lintian bash-completion-with-hashbang).
	$(RELEASE_DIR)/intrapush --generate-completion-script bash | sed '1{/^#!/d}' >$(DESTDIR)$(BASHCOMPDIR)/intrapush
	$(RELEASE_DIR)/intrapush --generate-completion-script zsh >$(DESTDIR)$(ZSHCOMPDIR)/_intrapush
	$(RELEASE_DIR)/intrapush --generate-completion-script fish >$(DESTDIR)$(FISHCOMPDIR)/intrapush.fish
	chmod 0644 $(DESTDIR)$(BASHCOMPDIR)/intrapush $(DESTDIR)$(ZSHCOMPDIR)/_intrapush $(DESTDIR)$(FISHCOMPDIR)/intrapush.fish

# The desktop agent: the user unit (enabled for every user by dh_installsystemduser), the
# autostart entry for sessions without graphical-session.target, the entry its notifications
# name (desktop-entry), the man page.
install-notifier: $(INSTALLED_BINARIES)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(USERUNITDIR) $(DESTDIR)$(APPLICATIONSDIR) $(DESTDIR)$(AUTOSTARTDIR) \
	  $(DESTDIR)$(MANDIR)/man1
	install -m 0755 $(RELEASE_DIR)/intrapush-notifier $(DESTDIR)$(BINDIR)/intrapush-notifier
	sed 's|/usr/bin/intrapush-notifier|$(BINDIR)/intrapush-notifier|' packaging/intrapush-notifier.service \
	  >$(DESTDIR)$(USERUNITDIR)/intrapush-notifier.service
	chmod 0644 $(DESTDIR)$(USERUNITDIR)/intrapush-notifier.service
	install -m 0644 packaging/intrapush-notifier.desktop $(DESTDIR)$(APPLICATIONSDIR)/intrapush-notifier.desktop
	install -m 0644 packaging/intrapush-notifier-autostart.desktop $(DESTDIR)$(AUTOSTARTDIR)/intrapush-notifier.desktop
	sed 's/@VERSION@/$(UPSTREAM_VERSION)/' packaging/man/intrapush-notifier.1 | gzip -9n \
	  >$(DESTDIR)$(MANDIR)/man1/intrapush-notifier.1.gz
	chmod 0644 $(DESTDIR)$(MANDIR)/man1/intrapush-notifier.1.gz

# dpkg-buildpackage through debhelper (debian/rules): intrapush and intrapush-dbgsym in dist/,
# with the .buildinfo and .changes beside them (lintian reads the .changes).
deb: deps
	$(call apt_install_missing,$(DEB_DEPS))
	mkdir -p dist
	rm -f dist/intrapush_$(VERSION)_* dist/intrapush-dbgsym_$(VERSION)_* dist/intrapush-notifier_$(VERSION)_* \
	  dist/intrapush-notifier-dbgsym_$(VERSION)_*
	dpkg-buildpackage -b -uc -us \
	  --buildinfo-file=dist/intrapush_$(VERSION)_$(ARCH).buildinfo --buildinfo-option=-udist \
	  --changes-file=dist/intrapush_$(VERSION)_$(ARCH).changes --changes-option=-udist
	@ls -l dist/*_$(VERSION)_*

# The organisation's APT repository (scripts/make_repo.sh; docs/operating.md, "From the
# organisation's APT repository"): REPO_KEY is the fingerprint of its signing key, in the keyring of
# GNUPGHOME. REPO_STATE is reprepro's own record: keep it from release to release.
REPO_KEY   ?=
REPO_STATE ?= .build/repo
REPO_OUT   ?= dist/apt
repo: $(DEB_BUILD)
	$(call apt_install_missing,$(REPO_DEPS))
	scripts/make_repo.sh --key "$(REPO_KEY)" --state $(REPO_STATE) --out $(REPO_OUT) $(DEB) $(NOTIFIER_DEB)

# Two builds of this commit elsewhere, compared file by file (scripts/reproducible_check.sh); a
# second full build, so CI runs it (.ci/run), not make test.
reproducible-check: deps
	scripts/reproducible_check.sh $(REPRODUCIBLE_CHECK_FLAGS)

clean:
	rm -rf .build dist

# A server restart seen by 1,000 / 10,000 / 100,000 simulated hosts, each the daemon's own
# session machine, without and with a server's retry hint; prints a table.
fleet-sim: deps
	$(SWIFT) build $(RELEASE_FLAGS) --product intrapush-fleet-sim
	$(RELEASE_DIR)/intrapush-fleet-sim
