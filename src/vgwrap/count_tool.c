/* pmcount: passmap's Valgrind tool for per-pass instruction counts (docs/meters.md). It counts the guest
 * instructions the program executes (one add per block exit, no call graph: cachegrind's Ir without its
 * per-instruction bookkeeping) and answers the two client requests the timer wrapper (timer_wrap.c) needs:
 * "toggle collect" and "dump at LABEL". A dump ends a part in O(1); callgrind's walks every block it has seen, so
 * a compile with 20,000 dumps (the new pass manager runs loop passes per loop) spends its time in dumps.
 *
 * Output: one file per process (--pmcount-out-file, %p the pid), written at exit in the subset of callgrind's
 * format passmap reads (lib/parse/callgrind.h): a header, then per part "desc: Trigger: LABEL" and "totals: N".
 * A forked child starts from zero; the counts of an exec'ed program are its own process's (--trace-children).
 *
 * Built against Valgrind's tool headers and static core (Makefile: VGTOOL), run with VALGRIND_LIB pointing at a
 * folder holding it beside Valgrind's own vgpreload_core (lib/run/meter_callgrind.c). */
#include "pub_tool_basics.h"
#include "pub_tool_clientstate.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_vki.h"
#include "pub_tool_xarray.h"

#include "pmcount.h"

#if defined(VG_BIGENDIAN)
#define END Iend_BE
#else
#define END Iend_LE
#endif

static ULong n_instrs; /* every guest instruction executed, paused or not */
static ULong n_paused; /* of those, the ones run while collection was off, up to the running thread's last switch */
static ULong paused_at; /* where the running thread's pause began, or where it was switched in paused */

/* Collection is off per thread: a thread switched out inside the wrapper (its timer waits on a lock) must not
 * take the instructions of the thread that runs meanwhile out of the count. */
static Bool *paused_of; /* by ThreadId */
static SizeT n_paused_of;
static ThreadId running;

static Bool is_paused(ThreadId tid)
{
    return tid < n_paused_of && paused_of[tid];
}

static void set_paused(ThreadId tid, Bool on)
{
    if (tid >= n_paused_of) {
        SizeT n = n_paused_of ? n_paused_of : 16;
        while (n <= tid)
            n *= 2;
        paused_of = VG_(realloc)("pmcount.paused", paused_of, n * sizeof *paused_of);
        for (SizeT i = n_paused_of; i < n; i++)
            paused_of[i] = False;
        n_paused_of = n;
    }
    paused_of[tid] = on;
}
static ULong dumped; /* the counted instructions already written in parts */
static ULong n_parts;
static const HChar *clo_out_file = "pmcount.out.%p";

/* The parts, kept in memory until exit: a fork's child then writes its own file only. */
static HChar *out;
static SizeT out_len, out_cap;

static void out_add(const HChar *s, SizeT n)
{
    if (out_len + n > out_cap) {
        SizeT cap = out_cap ? out_cap : 65536;
        while (cap < out_len + n)
            cap *= 2;
        out = VG_(realloc)("pmcount.out", out, cap);
        out_cap = cap;
    }
    VG_(memcpy)(out + out_len, s, n);
    out_len += n;
}

static ULong counted_now(void)
{
    return n_instrs - n_paused - (is_paused(running) ? n_instrs - paused_at : 0);
}

/* Every time a thread is given the CPU: the running thread's paused stretch ends at its switch. */
static void pc_start_client_code(ThreadId tid, ULong blocks_done)
{
    (void)blocks_done;
    if (tid == running)
        return;
    if (is_paused(running))
        n_paused += n_instrs - paused_at;
    running = tid;
    paused_at = n_instrs;
}

/* One part: what was counted since the last, its trigger as callgrind writes it ("Client Request: LABEL",
 * "Program termination"; a newline would end the format's line: made a space) */
static void dump_part(const HChar *what, const HChar *label)
{
    HChar buf[1200];
    ULong now = counted_now();
    Int n = VG_(snprintf)(buf, sizeof buf, "part: %llu\ndesc: Trigger: %s", ++n_parts, what);
    out_add(buf, (SizeT)n);
    SizeT len = 0;
    while (label[len] && len < 1000)
        len++;
    for (SizeT i = 0; i < len; i++)
        buf[i] = label[i] == '\n' || label[i] == '\r' ? ' ' : label[i];
    out_add(buf, len);
    n = VG_(snprintf)(buf, sizeof buf, "\ntotals: %llu\n\n", now - dumped);
    out_add(buf, (SizeT)n);
    dumped = now;
}

static void add_count(IRSB *sb, ULong n)
{
    IRTemp old = newIRTemp(sb->tyenv, Ity_I64), sum = newIRTemp(sb->tyenv, Ity_I64);
    IRExpr *addr = mkIRExpr_HWord((HWord)&n_instrs);
    addStmtToIRSB(sb, IRStmt_WrTmp(old, IRExpr_Load(END, Ity_I64, addr)));
    addStmtToIRSB(sb, IRStmt_WrTmp(sum, IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(old), IRExpr_Const(IRConst_U64(n)))));
    addStmtToIRSB(sb, IRStmt_Store(END, addr, IRExpr_RdTmp(sum)));
}

/* The instructions of a block are added before each side exit (they ran whether it is taken or not) and at its
 * end, so a client request, which ends a block, sees an exact count. */
static IRSB *pc_instrument(VgCallbackClosure *closure, IRSB *in, const VexGuestLayout *layout,
                           const VexGuestExtents *vge, const VexArchInfo *archinfo_host, IRType gWordTy, IRType hWordTy)
{
    (void)closure;
    (void)layout;
    (void)vge;
    (void)archinfo_host;
    if (gWordTy != hWordTy)
        VG_(tool_panic)("pmcount: host and guest word sizes differ");
    IRSB *sb = deepCopyIRSBExceptStmts(in);
    ULong pending = 0;
    for (Int i = 0; i < in->stmts_used; i++) {
        IRStmt *st = in->stmts[i];
        if (!st || st->tag == Ist_NoOp)
            continue;
        if (st->tag == Ist_IMark)
            pending++;
        else if (st->tag == Ist_Exit && pending) {
            add_count(sb, pending);
            pending = 0;
        }
        addStmtToIRSB(sb, st);
    }
    if (pending)
        add_count(sb, pending);
    return sb;
}

static Bool pc_client_request(ThreadId tid, UWord *args, UWord *ret)
{
    if (!VG_IS_TOOL_USERREQ('P', 'M', args[0]))
        return False;
    switch (args[0]) {
    case PMCOUNT_PING: *ret = 1; return True;
    case PMCOUNT_TOGGLE_COLLECT:
        pc_start_client_code(tid, 0); /* the requesting thread is the running one */
        if (is_paused(tid))
            n_paused += n_instrs - paused_at;
        else
            paused_at = n_instrs;
        set_paused(tid, !is_paused(tid));
        *ret = 0;
        return True;
    case PMCOUNT_DUMP_AT:
        dump_part("Client Request: ", args[1] ? (const HChar *)args[1] : "");
        *ret = 0;
        return True;
    default: return False;
    }
}

static void pc_fork_child(ThreadId tid)
{
    (void)tid;
    n_instrs = n_paused = paused_at = dumped = n_parts = 0;
    for (SizeT i = 0; i < n_paused_of; i++)
        paused_of[i] = False;
    out_len = 0;
}

static void pc_fini(Int exitcode)
{
    (void)exitcode;
    dump_part("Program termination", "");
    HChar *name = VG_(expand_file_name)("--pmcount-out-file", clo_out_file);
    Int fd = VG_(fd_open)(name, VKI_O_CREAT | VKI_O_TRUNC | VKI_O_WRONLY, VKI_S_IRUSR | VKI_S_IWUSR);
    if (fd < 0) {
        VG_(umsg)("pmcount: cannot write %s\n", name);
        VG_(free)(name);
        return;
    }
    HChar head[4096];
    Int n = VG_(snprintf)(head, sizeof head, "# callgrind format\nversion: 1\ncreator: pmcount\npid: %d\ncmd: %s",
                          VG_(getpid)(), VG_(args_the_exename) ? VG_(args_the_exename) : "?");
    for (Word i = 0; i < VG_(sizeXA)(VG_(args_for_client)) && n < (Int)sizeof head - 200; i++)
        n += VG_(snprintf)(head + n, sizeof head - (SizeT)n, " %s", *(HChar **)VG_(indexXA)(VG_(args_for_client), i));
    n += VG_(snprintf)(head + n, sizeof head - (SizeT)n, "\nevents: Ir\n\n");
    Bool ok = VG_(write)(fd, head, n) == n;
    for (SizeT at = 0; ok && at < out_len;) {
        Int chunk = out_len - at > (1 << 20) ? 1 << 20 : (Int)(out_len - at);
        ok = VG_(write)(fd, out + at, chunk) == chunk;
        at += (SizeT)chunk;
    }
    VG_(close)(fd);
    if (!ok)
        VG_(umsg)("pmcount: short write to %s\n", name);
    VG_(free)(name);
}

static Bool pc_option(const HChar *arg)
{
    if VG_STR_CLO (arg, "--pmcount-out-file", clo_out_file) {
    } else
        return False;
    return True;
}

static void pc_usage(void)
{
    VG_(printf)("    --pmcount-out-file=<file>  output file name [pmcount.out.%%p]\n");
}

static void pc_debug_usage(void)
{
    VG_(printf)("    (none)\n");
}

static void pc_post_clo_init(void)
{
    VG_(atfork)(NULL, NULL, pc_fork_child);
    VG_(track_start_client_code)(pc_start_client_code);
}

static void pc_pre_clo_init(void)
{
    VG_(details_name)("pmcount");
    VG_(details_version)(NULL);
    VG_(details_description)("passmap's instruction counter");
    VG_(details_copyright_author)("passmap");
    VG_(details_bug_reports_to)("passmap's issue tracker");
    VG_(details_avg_translation_sizeB)(200);
    VG_(basic_tool_funcs)(pc_post_clo_init, pc_instrument, pc_fini);
    VG_(needs_command_line_options)(pc_option, pc_usage, pc_debug_usage);
    VG_(needs_client_requests)(pc_client_request);
}

VG_DETERMINE_INTERFACE_VERSION(pc_pre_clo_init)
