# intrapush — build, test, demo, install, package.
#
#   make               release binaries, the Swift runtime linked in statically
#   make test          every Swift test, the package test (packaging/tests/deb-test.sh), the
#                      interop matrix and the benchmark on tiny sizes
#   make interop       the real intrapushd against server stacks we did not write (Tests/Interop)
#   make demo          server and daemon on loopback, a few pushes, the CLI shows them
#   make install       PREFIX=/usr DESTDIR= ; binaries, unit, sysusers, config, man pages, completions
#   make deb           dist/intrapush_VERSION_ARCH.deb
#   make bench-cli     the CLI's speed on a generated 1,000,000-row database (ROWS=…)
#   make bench         the daemon's figures of issue 5 as one table (also .build/bench.md)
#   make bench-smoke   the same on tiny sizes, checking only that every figure is produced

PREFIX     ?= /usr
DESTDIR    ?=
SYSCONFDIR ?= /etc
SWIFT      ?= swift
SUDO       := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# The one place the version lives is the top entry of the Debian changelog.
VERSION    := $(shell head -n1 packaging/debian/changelog | cut -d' ' -f2 | tr -d '()')
# Without the Debian revision (0.1.0-1 -> 0.1.0), for the man pages.
UPSTREAM_VERSION := $(firstword $(subst -, ,$(VERSION)))
ARCH       := $(shell dpkg --print-architecture 2>/dev/null || uname -m)

# System packages the build links against, and those the tests use (Debian names): iproute2's
# ip(8) makes the network namespaces of the network-awareness tests (they skip without it).
SYSTEM_DEPS := libsqlite3-dev libsystemd-dev pkg-config
TEST_DEPS   := dpkg-dev binutils groff-base man-db systemd procps iproute2
# lld, with relative relocations packed (DT_RELR, glibc >= 2.36) and no symbol table exported:
# the start-up relocation pass and the dynamic symbols are what made 4-5 MiB of a static
# binary resident at idle (measured: 25.4 -> 21.5 MiB RSS). Still position-independent.
RELEASE_FLAGS := -c release --static-swift-stdlib -Xswiftc -use-ld=lld \
	-Xlinker --no-export-dynamic -Xlinker -z -Xlinker pack-relative-relocs
RELEASE_DIR := .build/release
# What gets installed; intrapush-devserver is for the demo and the tests only.
INSTALLED_BINARIES := $(RELEASE_DIR)/intrapushd $(RELEASE_DIR)/intrapush

BINDIR      := $(PREFIX)/bin
SBINDIR     := $(PREFIX)/sbin
UNITDIR     := $(PREFIX)/lib/systemd/system
SYSUSERSDIR := $(PREFIX)/lib/sysusers.d
MANDIR      := $(PREFIX)/share/man
BASHCOMPDIR := $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR  := $(PREFIX)/share/zsh/vendor-completions
FISHCOMPDIR := $(PREFIX)/share/fish/vendor_completions.d
CONFDIR     := $(SYSCONFDIR)/intrapush

DEB        := dist/intrapush_$(VERSION)_$(ARCH).deb
DEB_STAGE  := .build/deb-root

.PHONY: all release debug deps test-deps test swift-test deb-test interop interop-deps demo install deb clean bench-cli bench bench-smoke

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

test-deps: deps
	$(call apt_install_missing,$(TEST_DEPS))

release: deps
	$(SWIFT) build $(RELEASE_FLAGS)

debug: deps
	$(SWIFT) build

# Unit and integration tests (the real binaries against intrapush-devserver on loopback), then
# the package test, which builds the release binaries and the .deb, then the interop matrix (the
# release daemon against real server stacks), then the benchmark once on tiny sizes so that it
# keeps working (it times nothing against targets).
test: test-deps
	$(MAKE) swift-test
	$(MAKE) deb-test
	$(MAKE) interop
	$(MAKE) bench-smoke

swift-test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

deb-test: deb
	packaging/tests/deb-test.sh $(DEB)

# Debian's node-ws, Go with gorilla/websocket, Jetty 9.4, nginx, HAProxy; the pinned Python
# stacks in .build/interop/venv. Each server program is compiled once, into .build/interop.
interop-deps:
	Tests/Interop/install-deps.sh

# INTEROP_FLAGS=--only=websockets,jetty runs some rows.
interop: release interop-deps
	python3 Tests/Interop/interop.py --daemon $(RELEASE_DIR)/intrapushd $(INTEROP_FLAGS)

# The CLI's speed on a generated database of ROWS notifications (default 1,000,000); prints figures.
bench-cli: release
	python3 scripts/bench_cli.py $(ROWS)

# The daemon's speed, latency, idle cost, start, fleet and outbox figures; BENCH_FLAGS=… passes options.
bench: release
	python3 scripts/bench.py $(BENCH_FLAGS)

bench-smoke: release
	python3 scripts/bench.py --smoke $(BENCH_FLAGS)

demo: deps
	./scripts/demo.sh

# `make && sudo make install`: install does not build again (as root) when the binaries exist.
$(INSTALLED_BINARIES):
	$(MAKE) release

install: $(INSTALLED_BINARIES)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(SBINDIR) $(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSUSERSDIR) \
	  $(DESTDIR)$(CONFDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man8 \
	  $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(FISHCOMPDIR)
	install -m 0755 $(RELEASE_DIR)/intrapushd $(DESTDIR)$(SBINDIR)/intrapushd
	install -m 0755 $(RELEASE_DIR)/intrapush $(DESTDIR)$(BINDIR)/intrapush
	sed 's|/usr/sbin/intrapushd|$(SBINDIR)/intrapushd|' packaging/intrapush.service \
	  >$(DESTDIR)$(UNITDIR)/intrapush.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/intrapush.service
	install -m 0644 packaging/intrapush.sysusers $(DESTDIR)$(SYSUSERSDIR)/intrapush.conf
	@# An operator's edited configuration is never overwritten.
	[ -e $(DESTDIR)$(CONFDIR)/intrapush.conf ] || install -m 0644 config/intrapush.conf $(DESTDIR)$(CONFDIR)/intrapush.conf
	for page in packaging/man/*.[158]; do \
	  name=$${page##*/}; \
	  sed 's/@VERSION@/$(UPSTREAM_VERSION)/' $$page | gzip -9n >$(DESTDIR)$(MANDIR)/man$${name##*.}/$$name.gz && \
	  chmod 0644 $(DESTDIR)$(MANDIR)/man$${name##*.}/$$name.gz || exit 1; \
	done
	$(RELEASE_DIR)/intrapush --generate-completion-script bash >$(DESTDIR)$(BASHCOMPDIR)/intrapush
	$(RELEASE_DIR)/intrapush --generate-completion-script zsh >$(DESTDIR)$(ZSHCOMPDIR)/_intrapush
	$(RELEASE_DIR)/intrapush --generate-completion-script fish >$(DESTDIR)$(FISHCOMPDIR)/intrapush.fish
	chmod 0644 $(DESTDIR)$(BASHCOMPDIR)/intrapush $(DESTDIR)$(ZSHCOMPDIR)/_intrapush $(DESTDIR)$(FISHCOMPDIR)/intrapush.fish

# A staged /usr tree, binaries stripped (build ids kept), packed by dpkg-deb as root:root.
deb: release
	rm -rf $(DEB_STAGE)
	$(MAKE) install DESTDIR=$(CURDIR)/$(DEB_STAGE) PREFIX=/usr SYSCONFDIR=/etc
	strip --strip-unneeded --remove-section=.comment \
	  $(DEB_STAGE)/usr/sbin/intrapushd $(DEB_STAGE)/usr/bin/intrapush
	install -d $(DEB_STAGE)/usr/share/doc/intrapush $(DEB_STAGE)/DEBIAN
	install -m 0644 packaging/debian/copyright $(DEB_STAGE)/usr/share/doc/intrapush/copyright
	gzip -9nc packaging/debian/changelog >$(DEB_STAGE)/usr/share/doc/intrapush/changelog.Debian.gz
	chmod 0644 $(DEB_STAGE)/usr/share/doc/intrapush/changelog.Debian.gz
	install -m 0644 packaging/debian/conffiles $(DEB_STAGE)/DEBIAN/conffiles
	install -m 0755 packaging/debian/postinst packaging/debian/prerm packaging/debian/postrm $(DEB_STAGE)/DEBIAN/
	depends=$$(packaging/depends.sh $(DEB_STAGE)/usr/sbin/intrapushd $(DEB_STAGE)/usr/bin/intrapush) && \
	  [ -n "$$depends" ] && \
	  size=$$(du -sk --exclude=DEBIAN $(DEB_STAGE) | cut -f1) && \
	  sed -e 's/@VERSION@/$(VERSION)/' -e 's/@ARCH@/$(ARCH)/' \
	      -e "s/@DEPENDS@/$$depends/" -e "s/@INSTALLED_SIZE@/$$size/" \
	      packaging/debian/control.in >$(DEB_STAGE)/DEBIAN/control
	@# Conffiles are tracked by dpkg itself, not in md5sums.
	(cd $(DEB_STAGE) && find usr -type f -exec md5sum {} + | sort -k2) >$(DEB_STAGE)/DEBIAN/md5sums
	mkdir -p dist
	dpkg-deb --root-owner-group -Zxz --build $(DEB_STAGE) $(DEB)
	@ls -l $(DEB)

clean:
	rm -rf .build dist
