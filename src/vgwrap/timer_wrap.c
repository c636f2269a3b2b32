/* passmap's Valgrind function wrapper for per-pass instruction counts (docs/meters.md). Preloaded into a compile
 * run under callgrind (LD_PRELOAD=passmap-vgwrap.so valgrind --tool=callgrind --combine-dumps=yes ...), it wraps
 * the timers a compiler's pass timing report is made of and has callgrind dump its counts at each start and stop,
 * the dump's trigger naming the timer: "start ADDR NAME" / "stop ADDR NAME" (lib/parse/passcount.h reads them).
 * Valgrind redirects by symbol address, so calls inside the library itself are wrapped too; the compiler is not
 * modified, and outside Valgrind the wrappers are never called.
 *
 *   llvm::Timer::startTimer / stopTimer / yieldTo (libLLVM.so.*): -time-passes, -ftime-report. NAME is the
 *     timer's description, the report's row name. Layout: TimeRecord Time, StartTime (5 x 8 bytes each), then
 *     std::string Name, Description (checked on LLVM 22).
 *   mlir::DefaultTimingManager::startTimer / stopTimer (libMLIR.so.*): --mlir-timing. NAME is the timer's name
 *     (TimerImpl: start time, wall, user, thread id, then std::string name). Counts are only attributable with
 *     --mlir-disable-threading (threads interleave the dumps).
 * A name that does not look like a std::string (a layout this wrapper does not know) is written as "?". */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <valgrind/callgrind.h>
#include <valgrind/valgrind.h>

#include "pmcount.h"

#define LLVM_TIMER_DESCRIPTION 112
#define MLIR_TIMER_NAME 32
#define NAME_MAX_SHOWN 400

struct cxx_string {
    const char *p;
    size_t n;
};

/* The timers whose start was seen. A stop of any other (its start inlined where no wrapper sees it: llc's
 * per-block DAG timers) changes no running set, so it needs no dump: skipping them saves most dumps of a
 * selection-DAG-heavy compile. Past OPEN_MAX running timers every stop dumps (never a wrong skip). Valgrind runs
 * one thread at a time and the counting run disables MLIR's threads, so no lock. */
#define OPEN_MAX 256
static const void *open_timers[OPEN_MAX];
static size_t n_open;
static int open_overflow;

static void note_start(const void *timer)
{
    if (n_open < OPEN_MAX)
        open_timers[n_open++] = timer;
    else
        open_overflow = 1;
}

/* 1 when timer was running as far as the wrapper saw (and forgets it), or when it cannot tell */
static int note_stop(const void *timer)
{
    for (size_t i = n_open; i-- > 0;)
        if (open_timers[i] == timer) {
            open_timers[i] = open_timers[--n_open];
            return 1;
        }
    return open_overflow;
}

/* Under passmap's own counting tool (count_tool.c) its requests, whose dumps cost nothing; else callgrind's.
 * Asked once: a tool that does not know a request leaves its default, 0. */
static int under_pmcount(void)
{
    static int known = -1;
    if (known < 0)
        known = VALGRIND_DO_CLIENT_REQUEST_EXPR(0, PMCOUNT_PING, 0, 0, 0, 0, 0) == 1;
    return known;
}

static void toggle_collect(void)
{
    if (under_pmcount())
        VALGRIND_DO_CLIENT_REQUEST_STMT(PMCOUNT_TOGGLE_COLLECT, 0, 0, 0, 0, 0);
    else
        CALLGRIND_TOGGLE_COLLECT;
}

/* Collection off while any wrapper runs: they nest (printing the report stops and restarts timers), and a
 * toggle is a flip, so only the outermost toggles. Per thread, as pmcount's pause is. */
static _Thread_local int off_depth;

static void collect_off(void)
{
    if (off_depth++ == 0)
        toggle_collect();
}

static void collect_on(void)
{
    if (off_depth > 0 && --off_depth == 0)
        toggle_collect();
}

static void dump_at(const char *what, const void *timer, size_t name_offset)
{
    const struct cxx_string *s = (const struct cxx_string *)((const char *)timer + name_offset);
    char label[512];
    int ok = s->p && s->n > 0 && s->n <= NAME_MAX_SHOWN;
    snprintf(label, sizeof label, "%s %p %.*s", what, timer, ok ? (int)s->n : 1, ok ? s->p : "?");
    if (under_pmcount())
        VALGRIND_DO_CLIENT_REQUEST_STMT(PMCOUNT_DUMP_AT, label, 0, 0, 0, 0);
    else
        CALLGRIND_DUMP_STATS_AT(label);
}

/* The wrapper's own work (formatting, the timer's clock reads) is not the pass's: collection is off meanwhile. */
#define WRAP_START(lib, sym, off)                                                                                      \
    void I_WRAP_SONAME_FNNAME_ZU(lib, sym)(void *self, void *arg);                                                     \
    void I_WRAP_SONAME_FNNAME_ZU(lib, sym)(void *self, void *arg)                                                      \
    {                                                                                                                  \
        OrigFn fn;                                                                                                     \
        VALGRIND_GET_ORIG_FN(fn);                                                                                      \
        collect_off();                                                                                                 \
        note_start(off == MLIR_TIMER_NAME ? arg : self);                                                               \
        dump_at("start", off == MLIR_TIMER_NAME ? arg : self, off);                                                    \
        CALL_FN_v_WW(fn, self, arg);                                                                                   \
        collect_on();                                                                                                  \
    }
#define WRAP_STOP(lib, sym, off)                                                                                       \
    void I_WRAP_SONAME_FNNAME_ZU(lib, sym)(void *self, void *arg);                                                     \
    void I_WRAP_SONAME_FNNAME_ZU(lib, sym)(void *self, void *arg)                                                      \
    {                                                                                                                  \
        OrigFn fn;                                                                                                     \
        VALGRIND_GET_ORIG_FN(fn);                                                                                      \
        collect_off();                                                                                                 \
        CALL_FN_v_WW(fn, self, arg);                                                                                   \
        if (note_stop(off == MLIR_TIMER_NAME ? arg : self))                                                            \
            dump_at("stop", off == MLIR_TIMER_NAME ? arg : self, off);                                                 \
        collect_on();                                                                                                  \
    }

/* libLLVM.so.* (Z-encoded soname: Zd '.', Za '*') */
WRAP_START(libLLVMZdsoZa, _ZN4llvm5Timer10startTimerEv, LLVM_TIMER_DESCRIPTION)
WRAP_STOP(libLLVMZdsoZa, _ZN4llvm5Timer9stopTimerEv, LLVM_TIMER_DESCRIPTION)

/* Timer::yieldTo(Timer &other): stops this one and starts other (the new pass manager hands over with it) */
void I_WRAP_SONAME_FNNAME_ZU(libLLVMZdsoZa, _ZN4llvm5Timer7yieldToERS0_)(void *self, void *other);
void I_WRAP_SONAME_FNNAME_ZU(libLLVMZdsoZa, _ZN4llvm5Timer7yieldToERS0_)(void *self, void *other)
{
    OrigFn fn;
    VALGRIND_GET_ORIG_FN(fn);
    collect_off();
    if (note_stop(self))
        dump_at("stop", self, LLVM_TIMER_DESCRIPTION);
    note_start(other);
    dump_at("start", other, LLVM_TIMER_DESCRIPTION);
    CALL_FN_v_WW(fn, self, other);
    collect_on();
}

/* libMLIR.so.*: DefaultTimingManager::startTimer(void *handle) / stopTimer(void *handle) */
WRAP_START(libMLIRZdsoZa, _ZN4mlir20DefaultTimingManager10startTimerEPv, MLIR_TIMER_NAME)
WRAP_STOP(libMLIRZdsoZa, _ZN4mlir20DefaultTimingManager9stopTimerEPv, MLIR_TIMER_NAME)

/* Only under pmcount, where nothing else toggles: callgrind's own --toggle-collect=FN may have collection off
 * when the report prints (outside FN), and a toggle there would turn it on. */
static void quiet_begin(void)
{
    if (under_pmcount())
        collect_off();
}

static void quiet_end(void)
{
    if (under_pmcount())
        collect_on();
}

/* Printing the report is not counted: it sorts the timers by their times and formats the numbers, so its count
 * moves with the times, by ~15k instructions run to run on llc (docs/meters.md). Without it what moves is the
 * heap the printing leaves to the exit's frees: tens of instructions. Every function that prints a report,
 * wrapped (they call each other; collect_off nests). Under callgrind the report is counted as before. One wrapper
 * for every arity (up to three words): the System V calling convention passes them in registers, a callee ignores
 * the ones it does not take, and a void callee's caller ignores the result. */
#define WRAP_QUIET(lib, sym)                                                                                           \
    unsigned long I_WRAP_SONAME_FNNAME_ZU(lib, sym)(void *a, void *b, unsigned long c);                                \
    unsigned long I_WRAP_SONAME_FNNAME_ZU(lib, sym)(void *a, void *b, unsigned long c)                                 \
    {                                                                                                                  \
        OrigFn fn;                                                                                                     \
        unsigned long r;                                                                                               \
        VALGRIND_GET_ORIG_FN(fn);                                                                                      \
        quiet_begin();                                                                                                 \
        CALL_FN_W_WWW(r, fn, a, b, c);                                                                                 \
        quiet_end();                                                                                                   \
        return r;                                                                                                      \
    }

/* llvm::TimerGroup::print(raw_ostream &, bool), PrintQueuedTimers(raw_ostream &) (a group destroyed at exit
 * prints through it), printAll(raw_ostream &), printJSONValues(raw_ostream &, const char *) -> const char *,
 * printAllJSONValues(raw_ostream &, const char *) -> const char *, TimePassesHandler::print(),
 * reportAndResetTimings(raw_ostream *) */
WRAP_QUIET(libLLVMZdsoZa, _ZN4llvm10TimerGroup5printERNS_11raw_ostreamEb)
WRAP_QUIET(libLLVMZdsoZa, _ZN4llvm10TimerGroup17PrintQueuedTimersERNS_11raw_ostreamE)
WRAP_QUIET(libLLVMZdsoZa, _ZN4llvm10TimerGroup8printAllERNS_11raw_ostreamE)
WRAP_QUIET(libLLVMZdsoZa, _ZN4llvm10TimerGroup15printJSONValuesERNS_11raw_ostreamEPKc)
WRAP_QUIET(libLLVMZdsoZa, _ZN4llvm10TimerGroup18printAllJSONValuesERNS_11raw_ostreamEPKc)
WRAP_QUIET(libLLVMZdsoZa, _ZN4llvm17TimePassesHandler5printEv)
WRAP_QUIET(libLLVMZdsoZa, _ZN4llvm21reportAndResetTimingsEPNS_11raw_ostreamE)

/* mlir::DefaultTimingManager::print(), dumpTimers / dumpAsTree / dumpAsList(raw_ostream &) */
WRAP_QUIET(libMLIRZdsoZa, _ZN4mlir20DefaultTimingManager5printEv)
WRAP_QUIET(libMLIRZdsoZa, _ZN4mlir20DefaultTimingManager10dumpTimersERN4llvm11raw_ostreamE)
WRAP_QUIET(libMLIRZdsoZa, _ZN4mlir20DefaultTimingManager10dumpAsTreeERN4llvm11raw_ostreamE)
WRAP_QUIET(libMLIRZdsoZa, _ZN4mlir20DefaultTimingManager10dumpAsListERN4llvm11raw_ostreamE)
