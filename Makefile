# passmap build. Every lib/LAYER/*.c goes into libpassmap.a, every src/cli/*.c into the CLI,
# every tests/unit/test_*.c becomes its own cmocka binary: adding a module needs no edit here.
# LAYERS is the dependency order: a layer may include headers of its own and earlier layers only
# (scripts/check-layers.sh enforces it in make test). The report half comes first (STUDY_LAYERS: read a store,
# analyse, write the report), so none of it can include a header of the measuring half (back ends, cache, sweep,
# passmap fix): make libstudy archives it alone, as zstd builds a decompressor-only library.
CC      ?= cc
BUILD   ?= build
SAN     ?= 0
PKGS    := sqlite3 jansson gsl libzstd libxxhash
CSTD    := -std=c11 -D_GNU_SOURCE
WARN    := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wno-unused-parameter \
           -Wformat=2 -Wwrite-strings -Wcast-qual -Wmissing-prototypes -Wvla
OPT     ?= -O2 -g
ifeq ($(SAN),1)
  OPT   := -O1 -g -fno-omit-frame-pointer
  SANF  := -fsanitize=address,undefined -fno-sanitize-recover=undefined
  BUILD := $(BUILD)/san
endif
DATA_DIR := $(abspath data)
STUDY_LAYERS := base run parse workload store study output
LAYERS  := $(STUDY_LAYERS) backend cache sweep fix
# A layer may hold one folder per row of its table (lib/backend/openvino/): its files are the layer's, its
# headers on the include path like the layer's own.
LAYER_DIRS = $(foreach l,$(1),lib/$(l) $(patsubst %/,%,$(sort $(wildcard lib/$(l)/*/))))
LAYER_INC := $(addprefix -I,$(call LAYER_DIRS,$(LAYERS)))
CFLAGS  += $(CSTD) $(WARN) $(OPT) $(SANF) $(LAYER_INC) $(shell pkg-config --cflags $(PKGS)) \
           -DPM_DATA_DIR='"$(DATA_DIR)"' -DPM_SOURCE_DIR='"$(abspath .)"' -MMD -MP
# The libraries are linked from their static archives (Debian's -dev packages ship them); libc and libm stay
# shared. A cache hit is mostly process start, and loading six shared libraries (~2,000 symbol bindings at every
# start: sqlite3 and zstd are linked -z now) was a third of it. STATIC_LIBS=0 links them shared.
STATIC_LIBS ?= 1
ifeq ($(STATIC_LIBS),1)
  LDLIBS += -Wl,-Bstatic $(filter-out -lm,$(shell pkg-config --libs $(PKGS))) -Wl,-Bdynamic
else
  LDLIBS += $(shell pkg-config --libs $(PKGS))
endif
LDLIBS  += -ldl -lm -lpthread
LDFLAGS += $(SANF)

LIB_SRC  := $(sort $(foreach d,$(call LAYER_DIRS,$(LAYERS)),$(wildcard $(d)/*.c)))
CLI_SRC  := $(sort $(wildcard src/cli/*.c))
TEST_SRC := $(sort $(wildcard tests/unit/test_*.c))
TESTLIB_SRC := $(sort $(wildcard tests/support/*.c))
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o)
CLI_OBJ  := $(CLI_SRC:%.c=$(BUILD)/%.o)
TEST_BIN := $(TEST_SRC:tests/unit/%.c=$(BUILD)/tests/%)
LIBA     := $(BUILD)/libpassmap.a
STUDY_OBJ := $(sort $(foreach d,$(call LAYER_DIRS,$(STUDY_LAYERS)),$(wildcard $(d)/*.c)))
STUDY_OBJ := $(STUDY_OBJ:%.c=$(BUILD)/%.o)
LIBSTUDY := $(BUILD)/libstudy.a
BIN      := $(BUILD)/passmap

.PHONY: man all libstudy deps deps-demo deps-test deps-bench demo test check unit bench clean test-support install fuzz fuzz-build deb
# make install [PREFIX=/usr/local] [DESTDIR=staging]: bin/passmap, share/passmap/ (data/: stage maps, fix
# rules; studies/: sweep presets), share/man/man1/ and man5/, share/doc/passmap/ (README, docs/). The binary
# finds share/passmap relative to itself.
PREFIX  ?= /usr/local
INSTALL_BIN ?= $(BIN)
all: $(BIN)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(LIBA): $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

# The report half alone (STUDY_LAYERS): links with sqlite3, jansson, gsl and xxhash, without the back ends, the
# cache (zstd), the sweep or passmap fix (tests/e2e/test_libstudy.sh links a report writer against it).
libstudy: $(LIBSTUDY)

$(LIBSTUDY): $(STUDY_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BIN): $(CLI_OBJ) $(LIBA)
	$(CC) $(LDFLAGS) -o $@ $(CLI_OBJ) $(LIBA) $(LDLIBS)

# The Valgrind wrapper behind per-pass instruction counts (src/vgwrap/timer_wrap.c, docs/meters.md), preloaded
# into a compile run under callgrind: built where Valgrind's headers are, never with the sanitizers (it runs
# inside the compiler under Valgrind).
VGWRAP := $(BUILD)/passmap-vgwrap.so
VGWRAP_HAVE := $(shell echo '\#include <valgrind/callgrind.h>' | $(CC) -E -x c - >/dev/null 2>&1 && echo yes)
ifeq ($(VGWRAP_HAVE),yes)
all: $(VGWRAP)
endif
$(VGWRAP): src/vgwrap/timer_wrap.c src/vgwrap/pmcount.h
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) -Wno-missing-prototypes -O1 -g -fPIC -shared -o $@ $<

# passmap's counting tool (src/vgwrap/count_tool.c): the callgrind meter runs it instead of callgrind where it
# was built, for dumps that cost nothing (docs/meters.md). A Valgrind tool is a static program linked against
# Valgrind's core (pkg-config valgrind: Debian's valgrind package ships the headers and archives), at Valgrind's
# load address, built as Valgrind builds its own (Makefile.tool.am). Valgrind finds tools in $VALGRIND_LIB: the
# folder also links Valgrind's core preload, found where the launcher finds its tools (valgrind -d says).
VGTOOL_DIR := $(BUILD)/vgtool
VG_PKG := $(shell pkg-config --exists valgrind 2>/dev/null && echo yes)
ifeq ($(VG_PKG),yes)
  VG_ARCH := $(shell pkg-config --variable=arch valgrind)
  VG_OS := $(shell pkg-config --variable=os valgrind)
  VG_PLATFORM := $(shell pkg-config --variable=platform valgrind)
  VG_CORE_LIBS := $(shell pkg-config --variable=libdir valgrind)/valgrind
  VGTOOL := $(VGTOOL_DIR)/pmcount-$(VG_PLATFORM)
  ifneq ($(wildcard $(VG_CORE_LIBS)/libcoregrind-$(VG_PLATFORM).a),)
all: $(VGTOOL)
  endif
endif
VGTOOL_CFLAGS = -std=gnu99 -O2 -g -Wall -Wextra -Werror -Wno-unused-parameter -fno-strict-aliasing -fno-builtin \
    -fno-stack-protector -fno-pie -fomit-frame-pointer $(shell pkg-config --cflags valgrind) -DVGA_$(VG_ARCH)=1 \
    -DVGO_$(VG_OS)=1 -DVGP_$(VG_ARCH)_$(VG_OS)=1 -DVGPV_$(VG_ARCH)_$(VG_OS)_vanilla=1
VGTOOL_LDFLAGS = -static -nodefaultlibs -nostartfiles -no-pie -u _start -Wl,--build-id=none \
    -Wl,-Ttext-segment=$(shell pkg-config --variable=valt_load_address valgrind)
$(VGTOOL): src/vgwrap/count_tool.c src/vgwrap/pmcount.h
	@mkdir -p $(dir $@)
	core=$$(valgrind -d --tool=none true 2>&1 | sed -n 's|.*launcher launching \(.*\)/none-[^/]*$$|\1|p' | head -1); \
	    test -f "$$core/vgpreload_core-$(VG_PLATFORM).so" || { echo "valgrind's core preload not found"; exit 1; }; \
	    ln -sf "$$core/vgpreload_core-$(VG_PLATFORM).so" $(VGTOOL_DIR)/
	$(CC) $(VGTOOL_CFLAGS) $(VGTOOL_LDFLAGS) -o $@ $< -L$(VG_CORE_LIBS) -lcoregrind-$(VG_PLATFORM) \
	    -lvex-$(VG_PLATFORM) -lgcc-sup-$(VG_PLATFORM) -lgcc

# Unit tests build argv arrays and fixtures from string literals: they keep every warning but the two that
# would make each literal a cast (the library and the CLI keep both).
TEST_CFLAGS = $(CFLAGS) -Wno-write-strings -Wno-cast-qual
$(BUILD)/tests/%: tests/unit/%.c $(LIBA)
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -o $@ $< $(LIBA) $(LDFLAGS) $(LDLIBS) -lcmocka

# Helper shared objects the tests build (e.g. the stand-in libopenvino_c): they define a foreign C API whose
# header is not ours (no prototypes to see) and hand its const strings back as its char pointers.
$(BUILD)/tests/lib%.so: tests/support/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) -Wno-missing-prototypes -Wno-cast-qual -Wno-write-strings -O1 -g -fPIC -shared $(LAYER_INC) -o $@ $< $(shell pkg-config --cflags --libs jansson)

# libFuzzer harnesses (tests/fuzz/): every parser (one binary per format, fuzz_parse_auto lets the sniffer
# pick), the spec parser, the cache entry reader and the callgrind reader, built with clang (Debian clang-22)
# under ASan+UBSan.
# make check (and so make test) runs each for a short fixed number of inputs through tests/e2e/test_fuzz.sh;
# make fuzz runs them for FUZZ_RUNS inputs each (a longer campaign; FUZZ_RUNS=-1: until a crash), or with
# FUZZ_TIME=SECONDS for that long each (equal time per harness), printing inputs and coverage per harness.
FUZZ_CC    ?= clang-22
FUZZ_HAVE  := $(shell command -v $(FUZZ_CC) 2>/dev/null)
FUZZ_DIR   := $(BUILD)/fuzz
FUZZ_RUNS  ?= 1000000
FUZZ_FLAGS := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_CFLAGS = $(CSTD) $(WARN) $(FUZZ_FLAGS) $(LAYER_INC) $(shell pkg-config --cflags $(PKGS)) \
              -DPM_DATA_DIR='"$(DATA_DIR)"' -DPM_SOURCE_DIR='"$(abspath .)"' -MMD -MP
FUZZ_PARSE := auto mlir_text mlir_json llvm_text chrome_trace npu_log npu_schedule npu_strategy npu_task_stats \
              gcc_text
FUZZ_BIN   := $(FUZZ_PARSE:%=$(FUZZ_DIR)/fuzz_parse_%) $(FUZZ_DIR)/fuzz_spec $(FUZZ_DIR)/fuzz_cache_entry \
              $(FUZZ_DIR)/fuzz_callgrind
FUZZ_LIB_OBJ := $(LIB_SRC:%.c=$(FUZZ_DIR)/%.o)

$(FUZZ_DIR)/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(FUZZ_DIR)/libpassmap.a: $(FUZZ_LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(FUZZ_DIR)/fuzz_parse_%: tests/fuzz/fuzz_parse.c $(FUZZ_DIR)/libpassmap.a
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -DFUZZ_FORMAT=PM_FMT_$(shell echo $* | tr a-z A-Z) -o $@ $< \
	    $(FUZZ_DIR)/libpassmap.a $(LDLIBS)

$(FUZZ_DIR)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_DIR)/libpassmap.a
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_DIR)/libpassmap.a $(LDLIBS)

fuzz-build: $(FUZZ_BIN)

fuzz: deps-test all fuzz-build
	FUZZ_TIME=$(FUZZ_TIME) tests/fuzz/run.sh $(FUZZ_DIR) $(abspath $(BIN)) $(FUZZ_RUNS)

# Installs Debian packages when something is missing (needs root or sudo). Each target installs only its own
# profile (scripts/install-deps.sh: demo, test, bench); make deps installs all of them.
deps:
	@scripts/install-deps.sh all

deps-demo deps-test deps-bench: deps-%:
	@scripts/install-deps.sh $*

# An earlier demo-out/ is resumed; make demo DEMO_FRESH=1 replaces it (and says so).
DEMO_FRESH ?= 0
# the build uses every core unless make was given its own -j
demo: deps-demo
	$(MAKE) $(if $(filter -j%,$(MAKEFLAGS))$(findstring j,$(filter-out -%,$(firstword $(MAKEFLAGS)))),,-j$(shell nproc 2>/dev/null || echo 2)) all
	DEMO_FRESH=$(DEMO_FRESH) scripts/demo.sh $(BIN)

# The contract: sanitizer build, then every unit binary and e2e script through one runner. The -O2 build of
# the binary and the unit tests comes first: GCC warns at -O2 about things -O1 does not see (-Werror).
test: deps-test
	@$(MAKE) --no-print-directory all $(TEST_BIN)
	@$(MAKE) --no-print-directory SAN=1 check

check: all libstudy $(TEST_BIN) test-support $(if $(FUZZ_HAVE),fuzz-build)
	tests/run-tests.sh $(BUILD)

test-support: $(patsubst tests/support/%.c,$(BUILD)/tests/lib%.so,$(TESTLIB_SRC))

unit: all $(TEST_BIN) test-support
	tests/run-tests.sh --unit-only $(BUILD)

bench: deps-bench all
	bench/run.sh $(BIN)

install: $(INSTALL_BIN)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/passmap/studies $(DESTDIR)$(PREFIX)/share/man/man1 \
	    $(DESTDIR)$(PREFIX)/share/man/man5 $(DESTDIR)$(PREFIX)/share/doc/passmap
	install -m 755 $(INSTALL_BIN) $(DESTDIR)$(PREFIX)/bin/passmap
	for f in $$(cd data && find . -type f); do install -D -m 644 "data/$$f" "$(DESTDIR)$(PREFIX)/share/passmap/$$f" || exit 1; done
	install -m 644 studies/*.ini studies/*.c $(DESTDIR)$(PREFIX)/share/passmap/studies/
	install -m 644 man/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 man/*.5 $(DESTDIR)$(PREFIX)/share/man/man5/
	install -m 644 README.md docs/*.md $(DESTDIR)$(PREFIX)/share/doc/passmap/
# the Valgrind meters' timer wrapper and counting tool, where built (lib/run/meter_vgfind.c finds them there)
	if [ -f $(VGWRAP) ]; then install -D -m 644 $(VGWRAP) $(DESTDIR)$(PREFIX)/lib/passmap/passmap-vgwrap.so; fi
	if [ -d $(VGTOOL_DIR) ]; then install -d $(DESTDIR)$(PREFIX)/lib/passmap/vgtool && \
	    cp -P $(VGTOOL_DIR)/* $(DESTDIR)$(PREFIX)/lib/passmap/vgtool/; fi

# make deb: $(BUILD)/deb/passmap_VERSION_ARCH.deb from a shared-library build of its own (Debian uses the system's
# libraries), lintian-checked (scripts/make-deb.sh).
deb:
	$(MAKE) BUILD=$(BUILD)/deb STATIC_LIBS=0 all
	scripts/make-deb.sh $(BUILD)/deb/passmap $(BUILD)/deb

# man/passmap-CMD.1 of the subcommands without a hand-written page, from their --help (test_help.sh checks).
man: $(BIN)
	scripts/help2man.py $(BIN) man

clean:
	rm -rf $(BUILD)

-include $(FUZZ_LIB_OBJ:.o=.d)
-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(TEST_BIN:=.d)
