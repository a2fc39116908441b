# intrapush — build, test, demo, install.
# `make` builds release binaries with the Swift runtime linked in statically.

PREFIX     ?= /usr
DESTDIR    ?=
SWIFT      ?= swift
SUDO       := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# System libraries the build links against (Debian package names).
SYSTEM_DEPS := libsqlite3-dev libsystemd-dev pkg-config
RELEASE_FLAGS := -c release --static-swift-stdlib
BINARIES   := intrapushd intrapush intrapush-devserver

.PHONY: all release debug deps test unit-test integration-test demo install clean

all: release

# Installs whatever of SYSTEM_DEPS is missing (apt-get; sudo when not root).
deps:
	@missing=""; for p in $(SYSTEM_DEPS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

release: deps
	$(SWIFT) build $(RELEASE_FLAGS)

debug: deps
	$(SWIFT) build

# Unit tests and integration tests (real binaries against intrapush-devserver on loopback).
test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

demo: deps
	./scripts/demo.sh

install: release
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/sbin
	install -m 0755 .build/release/intrapush $(DESTDIR)$(PREFIX)/bin/intrapush
	install -m 0755 .build/release/intrapush-devserver $(DESTDIR)$(PREFIX)/bin/intrapush-devserver
	install -m 0755 .build/release/intrapushd $(DESTDIR)$(PREFIX)/sbin/intrapushd

clean:
	rm -rf .build
