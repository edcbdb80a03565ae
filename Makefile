# scorch: one non-recursive Makefile.
#   make                      build ./scorch
#   make install              ./scorch and its manual pages into PREFIX
#                             (/usr/local); DESTDIR=DIR stages them under DIR
#   make check                run every test suite (tests/run)
#   make SANITIZE=address,undefined O=build-san   sanitizer build
#   make fuzz CC=clang        libFuzzer targets in $(O)/fuzz/
#   make bench                speed comparisons (bench/run)
# Optional dependencies are detected with pkg-config; force with HAVE_X=y or
# disable with HAVE_X= on the command line.

O          ?= build
CC         ?= cc
PKG_CONFIG ?= pkg-config
CFLAGS     ?= -O2 -g
# The release (raised by hand when one is cut) and, in a git checkout, the
# commit built (git describe): `scorch --version` prints both. safe.directory:
# `sudo make install` in a user's checkout must not lose the describe (and
# rebuild main.o); running make there already trusts the checkout.
RELEASE    := 0.2.0
GIT_DESCRIBE := $(if $(wildcard .git),$(shell git -c safe.directory='*' describe --always --dirty --tags 2>/dev/null))
VERSION    := $(RELEASE)$(if $(GIT_DESCRIBE), (git $(GIT_DESCRIBE)))
PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
MANDIR     ?= $(PREFIX)/share/man
DOCDIR     ?= $(PREFIX)/share/doc/scorch
STD        := -std=c11 -D_GNU_SOURCE
WARN       := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
              -Wformat=2 -Wvla -Wimplicit-fallthrough -Wno-format-nonliteral
ALL_CFLAGS  = $(STD) $(WARN) $(CFLAGS) $(EXTRA_CFLAGS) -Isrc -I$(O) -MMD -MP \
              $(DEFS-y) -pthread
ALL_LDFLAGS = $(LDFLAGS) -pthread

have = $(shell $(PKG_CONFIG) --exists $(1) 2>/dev/null && echo y)
HAVE_ZLIB     ?= $(call have,zlib)
HAVE_LZMA     ?= $(call have,liblzma)
HAVE_ZSTD     ?= $(call have,libzstd)
HAVE_ELFUTILS ?= $(and $(call have,libelf),$(call have,libdw),y)
HAVE_CURL     ?= $(call have,libcurl)
HAVE_CAIRO    ?= $(and $(call have,cairo),$(call have,pangocairo),y)
# bpftool lives in /usr/sbin on Debian, which is not on every user's PATH.
BPFTOOL       ?= $(or $(shell command -v bpftool 2>/dev/null),$(wildcard /usr/sbin/bpftool /sbin/bpftool))
BPF_CLANG     ?= clang
HAVE_LIBBPF   ?= $(and $(call have,libbpf),$(BPFTOOL),$(shell command -v $(BPF_CLANG)),y)

# Sources: every .c under src/, minus the files that need an optional
# library (added back below when it is present) and BPF kernel programs.
ELF_SRCS   := $(wildcard src/symbolize/elf*.c src/symbolize/inline*.c src/symbolize/srcline*.c \
                        src/addrspace/unwind*.c)
NOELF_SRCS := src/addrspace/no_unwind.c
BPF_SRCS   := $(wildcard src/record/bpf*.c)
PNG_SRCS   := src/render/png.c
HTTP_SRCS  := $(filter-out src/store/clickhouse_reply.c,$(wildcard src/store/clickhouse*.c src/store/pyroscope*.c \
                        src/store/http*.c src/store/spool*.c))
NOHTTP_SRCS := src/store/no_http.c
ALL_SRCS   := $(filter-out %.bpf.c,$(wildcard src/*.c src/*/*.c src/*/*/*.c))
SRCS-y     := $(filter-out $(ELF_SRCS) $(NOELF_SRCS) $(BPF_SRCS) $(PNG_SRCS) $(HTTP_SRCS) $(NOHTTP_SRCS),$(ALL_SRCS))
SRCS-$(if $(HAVE_ELFUTILS),,y) += $(NOELF_SRCS)
SRCS-$(if $(HAVE_CURL),,y) += $(NOHTTP_SRCS)

SRCS-$(HAVE_ELFUTILS) += $(ELF_SRCS)
DEFS-$(HAVE_ELFUTILS) += -DHAVE_ELFUTILS
LIBS-$(HAVE_ELFUTILS) += $(shell $(PKG_CONFIG) --libs libelf libdw 2>/dev/null)
DEFS-$(HAVE_ZLIB)     += -DHAVE_ZLIB
LIBS-$(HAVE_ZLIB)     += $(shell $(PKG_CONFIG) --libs zlib 2>/dev/null)
DEFS-$(HAVE_LZMA)     += -DHAVE_LZMA
LIBS-$(HAVE_LZMA)     += $(shell $(PKG_CONFIG) --libs liblzma 2>/dev/null)
DEFS-$(HAVE_ZSTD)     += -DHAVE_ZSTD
LIBS-$(HAVE_ZSTD)     += $(shell $(PKG_CONFIG) --libs libzstd 2>/dev/null)
SRCS-$(HAVE_CURL)     += $(HTTP_SRCS)
DEFS-$(HAVE_CURL)     += -DHAVE_CURL
# Server stores load libcurl when used (src/store/http.c): not linked.
LIBS-$(HAVE_CURL)     += -ldl
SRCS-$(HAVE_CAIRO)    += $(PNG_SRCS)
DEFS-$(HAVE_CAIRO)    += -DHAVE_CAIRO $(shell $(PKG_CONFIG) --cflags cairo pangocairo 2>/dev/null)
# PNG output loads cairo and pango when used (src/render/png.c): not linked.
LIBS-$(HAVE_CAIRO)    += -ldl
SRCS-$(HAVE_LIBBPF)   += $(BPF_SRCS)
DEFS-$(HAVE_LIBBPF)   += -DHAVE_LIBBPF
LIBS-$(HAVE_LIBBPF)   += $(shell $(PKG_CONFIG) --libs libbpf 2>/dev/null)
LIBS := $(LIBS-y) -lm

ifdef SANITIZE
ALL_CFLAGS  += -fsanitize=$(SANITIZE) -fno-sanitize-recover=all -fno-omit-frame-pointer
ALL_LDFLAGS += -fsanitize=$(SANITIZE)
endif
ifdef DEVELOPER
ALL_CFLAGS += -Werror
endif

ifndef V
QUIET_CC   = @echo '  CC     ' $@;
QUIET_LINK = @echo '  LINK   ' $@;
QUIET_GEN  = @echo '  GEN    ' $@;
endif

OBJS      := $(patsubst src/%.c,$(O)/obj/%.o,$(SRCS-y))
LIB_OBJS  := $(filter-out $(O)/obj/main.o,$(OBJS))
# The top-level ./scorch is the default build; other O= builds stay in $(O).
BIN       := $(if $(filter build,$(O)),scorch,$(O)/scorch)

UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_OBJS := $(patsubst tests/unit/%.c,$(O)/unit/%.o,$(UNIT_SRCS) tests/unit/harness.c)
FUZZ_SRCS := $(wildcard tests/fuzz/fuzz_*.c)
REPLAYS   := $(patsubst tests/fuzz/%.c,$(O)/replay/%,$(FUZZ_SRCS))

# Workloads with known hot functions (record's tests, the README demo):
# frame pointers everywhere, no inlining, no tail calls.
WORKLOADS := $(patsubst tests/workloads/%.c,$(O)/workloads/%,$(wildcard tests/workloads/*.c))
# ...and workloads built like distribution binaries (-O2, no frame
# pointers): only DWARF unwinding finds their callers.
WORKLOADS += $(patsubst tests/workloads/nofp/%.c,$(O)/workloads/nofp/%,$(wildcard tests/workloads/nofp/*.c))

all: $(BIN) $(O)/features $(WORKLOADS)

$(O)/workloads/%: tests/workloads/%.c
	@mkdir -p $(dir $@)
	$(QUIET_CC)$(CC) -O1 -g -fno-omit-frame-pointer -fno-inline -fno-optimize-sibling-calls \
	  -pthread -o $@ $<

$(O)/workloads/nofp/%: tests/workloads/nofp/%.c
	@mkdir -p $(dir $@)
	$(QUIET_CC)$(CC) -O2 -g -fomit-frame-pointer -pthread -o $@ $<

$(BIN): $(OBJS)
	$(QUIET_LINK)$(CC) $(ALL_LDFLAGS) -o $@ $(OBJS) $(LIBS)

$(O)/obj/%.o: src/%.c $(O)/config.h
	@mkdir -p $(dir $@)
	$(QUIET_CC)$(CC) $(ALL_CFLAGS) -c -o $@ $<

# Persist the build settings: a changed CFLAGS or HAVE_* rebuilds everything.
CONFIG := $(CC) $(ALL_CFLAGS) $(LIBS) $(SANITIZE)
$(O)/config.h: FORCE
	@mkdir -p $(O)
	@printf '/* %s */\n' "$(CONFIG)" > $@.new
	@if cmp -s $@.new $@; then rm $@.new; else mv $@.new $@; fi

# Only main.c sees the version, and is rebuilt when it changes (a new commit
# rebuilds one file, not all of them).
$(O)/obj/main.o: ALL_CFLAGS += -DSCORCH_VERSION='"$(VERSION)"'
$(O)/obj/main.o: $(O)/version
$(O)/version: FORCE
	@mkdir -p $(O)
	@echo '$(VERSION)' > $@.new
	@if cmp -s $@.new $@; then rm $@.new; else mv $@.new $@; fi

# Manual pages, generated from the binary's own help texts (one source).
man: $(O)/man/scorch.1
$(O)/man/scorch.1: $(BIN) scripts/man-pages
	$(QUIET_GEN)scripts/man-pages ./$(BIN) $(O)/man

install: $(BIN) man
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(DOCDIR)
	install -m 755 $(BIN) $(DESTDIR)$(BINDIR)/scorch
	install -m 644 $(O)/man/*.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 644 README.md LICENSE $(DESTDIR)$(DOCDIR)/

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/scorch $(DESTDIR)$(MANDIR)/man1/scorch.1 \
	  $(DESTDIR)$(MANDIR)/man1/scorch-*.1 $(DESTDIR)$(DOCDIR)/README.md $(DESTDIR)$(DOCDIR)/LICENSE
	-rmdir $(DESTDIR)$(DOCDIR)

$(O)/features: $(O)/config.h
	@printf 'zlib=%s lzma=%s zstd=%s elfutils=%s libbpf=%s cairo=%s curl=%s\n' "$(HAVE_ZLIB)" "$(HAVE_LZMA)" \
	  "$(HAVE_ZSTD)" "$(HAVE_ELFUTILS)" "$(HAVE_LIBBPF)" "$(HAVE_CAIRO)" "$(HAVE_CURL)" > $@

# Browser code embedded into the binary (render/viewer/*.js|css -> C arrays).
$(O)/gen/%_js.h: src/render/viewer/%.js
	@mkdir -p $(dir $@)
	$(QUIET_GEN)xxd -i -n viewer_$*_js $< > $@

# The SVG writer embeds the viewer script; the HTML writer its own viewer.
$(O)/obj/render/svg.o: | $(O)/gen/flamegraph_js.h
$(O)/obj/render/html.o: | $(O)/gen/html_js.h $(O)/gen/html_css.h $(O)/gen/heatmap_js.h

$(O)/gen/%_css.h: src/render/viewer/%.css
	@mkdir -p $(dir $@)
	$(QUIET_GEN)xxd -i -n viewer_$*_css $< > $@

# eBPF programs (record's BPF backend): clang -target bpf, then a libbpf
# skeleton header that only its user side, src/record/bpf_<name>.c, includes.
BPF_ARCH    := $(patsubst x86_64,x86,$(patsubst aarch64,arm64,$(shell uname -m)))
BPF_TRIPLET := $(shell gcc -dumpmachine 2>/dev/null || $(CC) -dumpmachine)
$(O)/%.bpf.o: src/record/%.bpf.c src/record/profile_abi.h src/record/offcpu_abi.h src/record/common.bpf.h \
	  src/record/python.bpf.h src/runtime/python_abi.h
	@mkdir -p $(dir $@)
	$(QUIET_GEN)$(BPF_CLANG) -O2 -g -target bpf -D__TARGET_ARCH_$(BPF_ARCH) \
	  -I/usr/include/$(BPF_TRIPLET) -Isrc/record -Isrc -c -o $@ $<

$(O)/gen/%.skel.h: $(O)/%.bpf.o
	@mkdir -p $(dir $@)
	$(QUIET_GEN)$(BPFTOOL) gen skeleton $< name $*_bpf > $@

.SECONDARY: $(O)/profile.bpf.o $(O)/offcpu.bpf.o
$(O)/obj/record/bpf_profile.o: $(O)/gen/profile.skel.h
$(O)/obj/record/bpf_offcpu.o: $(O)/gen/offcpu.skel.h

# The test-hooks build: scorch with the off-CPU program's fault injection
# compiled in (SCORCH_TEST_HOOKS: SCORCH_TEST_UNSEEN_SWITCH_IN, for
# tests/record/t730). Two objects differ from the release's; never installed.
HOOKS := $(O)/test-hooks
ifeq ($(HAVE_LIBBPF),y)
all: $(HOOKS)/scorch
endif
$(HOOKS)/offcpu.bpf.o: src/record/offcpu.bpf.c src/record/profile_abi.h src/record/offcpu_abi.h src/record/common.bpf.h
	@mkdir -p $(dir $@)
	$(QUIET_GEN)$(BPF_CLANG) -O2 -g -target bpf -D__TARGET_ARCH_$(BPF_ARCH) -DSCORCH_TEST_HOOKS \
	  -I/usr/include/$(BPF_TRIPLET) -Isrc/record -c -o $@ $<
$(HOOKS)/gen/offcpu.skel.h: $(HOOKS)/offcpu.bpf.o
	@mkdir -p $(dir $@)
	$(QUIET_GEN)$(BPFTOOL) gen skeleton $< name offcpu_bpf > $@
$(HOOKS)/bpf_offcpu.o: src/record/bpf_offcpu.c $(HOOKS)/gen/offcpu.skel.h $(O)/config.h
	$(QUIET_CC)$(CC) -I$(HOOKS) $(ALL_CFLAGS) -DSCORCH_TEST_HOOKS -c -o $@ $<
$(HOOKS)/scorch: $(filter-out $(O)/obj/record/bpf_offcpu.o,$(OBJS)) $(HOOKS)/bpf_offcpu.o
	$(QUIET_LINK)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)
.SECONDARY: $(HOOKS)/offcpu.bpf.o
-include $(HOOKS)/bpf_offcpu.d

# C unit tests: one binary against the core objects.
$(O)/unit/%.o: tests/unit/%.c $(O)/config.h
	@mkdir -p $(dir $@)
	$(QUIET_CC)$(CC) $(ALL_CFLAGS) -Itests/unit -c -o $@ $<

$(O)/unit/unit: $(UNIT_OBJS) $(LIB_OBJS)
	$(QUIET_LINK)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)

unit: $(O)/unit/unit

# Fuzz corpus replay (no libFuzzer needed): each target linked with replay.c.
$(O)/replay/%: tests/fuzz/%.c tests/fuzz/replay.c $(LIB_OBJS)
	@mkdir -p $(dir $@)
	$(QUIET_LINK)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< tests/fuzz/replay.c $(LIB_OBJS) $(LIBS)

replay: $(REPLAYS)

# bench/record_replay: record's collector fed a perf.data (bench/record-dwarf.sh).
$(O)/bench/record_replay: bench/record_replay.c $(LIB_OBJS)
	@mkdir -p $(dir $@)
	$(QUIET_LINK)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(LIB_OBJS) $(LIBS)

# libFuzzer builds: make fuzz CC=clang (own object dir).
FUZZ_O := $(O)/fuzz
fuzz:
	$(MAKE) O=$(FUZZ_O)/lib CC=clang SANITIZE=fuzzer-no-link,address,undefined $(FUZZ_O)/lib/scorch
	@for f in $(FUZZ_SRCS); do n=$$(basename $$f .c); \
	  echo "  FUZZ    $(FUZZ_O)/$$n"; \
	  clang $(STD) -g -O1 -Isrc -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all $(DEFS-y) -o $(FUZZ_O)/$$n $$f \
	    $$(find $(FUZZ_O)/lib/obj -name "*.o" ! -path "*/obj/main.o") $(LIBS) -pthread || exit 1; done

check: all unit replay
	tests/run

bench: all
	bench/run

clean:
	rm -rf build build-* scorch

.PHONY: all unit replay fuzz check bench clean man install uninstall FORCE
.DELETE_ON_ERROR:

-include $(OBJS:.o=.d) $(UNIT_OBJS:.o=.d)
