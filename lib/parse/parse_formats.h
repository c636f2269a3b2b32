/* No include guard: an X-macro list, included once per use with PM_FORMAT defined. */
/* The timing-report formats, one row each: PM_FORMAT(ID, row) gives the enum value PM_FMT_ID (parse_report.h)
 * and names the row pm_format_row (name, parser, sniffer and its place in the sniffing order, default tool,
 * tick; parse_internal.h), defined in the format's parser file. This order is the enum's and that of every
 * list of formats (--help, "formats tried"). A new format: its parser file with its row, plus one line here. */
PM_FORMAT(MLIR_TEXT, mlir_text)             /* -mlir-timing, list or tree display */
PM_FORMAT(MLIR_JSON, mlir_json)             /* -mlir-timing --mlir-output-format=json */
PM_FORMAT(LLVM_TEXT, llvm_text)             /* llc/opt -time-passes */
PM_FORMAT(LLVM_JSON, llvm_json)             /* -time-passes-json (where available) */
PM_FORMAT(CHROME_TRACE, chrome_trace)       /* Chrome trace / -ftime-trace JSON */
PM_FORMAT(NPU_LOG, npu_log)                 /* OpenVINO NPU plugin + compiler log (LOG_INFO) */
PM_FORMAT(NPU_SCHEDULE, npu_schedule)       /* compileTimeScheduleTrace.json */
PM_FORMAT(NPU_STRATEGY, npu_strategy)       /* strategy_out.json */
PM_FORMAT(NPU_TASK_STATS, npu_task_stats)   /* dump-task-stats / IE op statistics blocks */
PM_FORMAT(GCC_TEXT, gcc_text)               /* gcc -ftime-report ("Time variable" table) */
