/* The client requests of passmap's counting tool (count_tool.c), issued by the timer wrapper (timer_wrap.c).
 * Under another tool (callgrind) PING returns its default, 0, and the wrapper uses callgrind's own requests. */
#ifndef PM_VGWRAP_PMCOUNT_H
#define PM_VGWRAP_PMCOUNT_H

#include <valgrind/valgrind.h>

enum {
    PMCOUNT_PING = VG_USERREQ_TOOL_BASE('P', 'M'), /* returns 1 under pmcount */
    PMCOUNT_TOGGLE_COLLECT,                           /* as CALLGRIND_TOGGLE_COLLECT: pause or resume counting */
    PMCOUNT_DUMP_AT                                   /* as CALLGRIND_DUMP_STATS_AT(label): end a part */
};

#endif
