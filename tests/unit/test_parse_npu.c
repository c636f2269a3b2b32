/* NPU parsers on fixtures written from the documented formats (tests/fixtures/npu/README.md), plus ANSI-coloured
 * and interleaved variants built here. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "slurp.h"
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "parse_internal.h"

#define FIX PM_SOURCE_DIR "/tests/fixtures/npu/"

static int has_metric(const pm_report *r, const char *name, double *v)
{
    for (size_t i = 0; i < r->n_metrics; i++)
        if (!strcmp(r->metrics[i].name, name)) {
            if (v)
                *v = r->metrics[i].value;
            return 1;
        }
    return 0;
}

static double metric(const pm_report *r, const char *name)
{
    double v = 0;
    if (!has_metric(r, name, &v))
        fail_msg("metric %s absent", name);
    return v;
}

static void assert_log_rc(int rc, const pm_err *e)
{
    if (rc != PM_OK)
        fail_msg("rc %d: %s", rc, e->msg);
}

static const pm_pass *find_pass(const pm_report *r, const char *name, int report_index)
{
    for (size_t i = 0; i < r->n_passes; i++)
        if (!strcmp(r->passes[i].name, name) && r->passes[i].report_index == report_index)
            return &r->passes[i];
    fail_msg("pass %s (report %d) absent", name, report_index);
    return NULL;
}

/* Timing rows, as pm_parse_mlir_text reads each block, with report_index and parents per block. */
static void assert_log_passes(const pm_report *r)
{
    assert_int_equal(r->n_passes, 14 + 7); /* Rest and Total rows included (PM_PASS_SUMMARY) */
    assert_true(fabs(r->total_wall_s - (41.2345 + 10.0)) < 1e-9);
    const pm_pass *mc0 = find_pass(r, "MultiClusterStrategyAssignment", 0);
    const pm_pass *mc1 = find_pass(r, "MultiClusterStrategyAssignment", 1);
    assert_true(mc0->wall_s == 15.0 && mc0->user_s == 20.0);
    assert_true(mc1->wall_s == 5.0 && mc1->user_s == 6.0);
    assert_int_equal(mc0->depth, 3);
    assert_string_equal(r->passes[mc0->parent].name, "'func.func' Pipeline");
    assert_true(r->passes[mc0->parent].flags & PM_PASS_GROUP);
    assert_string_equal(r->passes[mc1->parent].name, "IE to VPUIP pipeline");
    assert_int_equal(r->passes[mc1->parent].report_index, 1);
    assert_true(find_pass(r, "FeasibleAllocation", 0)->wall_s == 9.0);
    assert_true(find_pass(r, "MergeVfSubgraphs", 0)->wall_s == 4.0);
    assert_true(find_pass(r, "ConvertVPUIP2VPUMI40XX", 0)->wall_s == 2.5);
    /* a module pass, not an "(A)" analysis (npu_compiler) */
    assert_false(find_pass(r, "QueryArgsAllocationAnalysis", 0)->flags & PM_PASS_ANALYSIS);
    assert_true(find_pass(r, "Compile network", 0)->flags & PM_PASS_GROUP);
    for (size_t i = 0; i < r->n_passes; i++) /* a parent is always in the same block */
        if (r->passes[i].parent >= 0)
            assert_int_equal(r->passes[r->passes[i].parent].report_index, r->passes[i].report_index);
    assert_true(fabs(pm_report_pass_wall(r) - 39.2) < 1e-9);
}

static void assert_log_metrics(const pm_report *r)
{
    assert_int_equal(r->n_reports, 2);
    /* the 2025+ line is a VmPeak delta, the 2024 line VmPeak itself: kept apart, named as such */
    assert_true(metric(r, "npu.vmpeak_delta_kb") == 2345678);
    assert_true(metric(r, "npu.vmpeak_kb") == 1000000);
    assert_false(has_metric(r, "npu.peak_kb", NULL));
    /* [VCL] 41534 + 10200; [vpux-compiler] printed 41534 for the same first compile: not added */
    assert_true(metric(r, "npu.compile_net_ms") == 51734);
    assert_true(fabs(metric(r, "npu.elf_export_ms") - (51734 - 51234.5)) < 1e-6); /* net - report Totals */
    assert_true(metric(r, "npu.vcl.get_compiled_network_ms") == 120);
    assert_true(metric(r, "npu.vcl.export_ms") == 80);
    assert_true(metric(r, "npu.estimated_latency_us") == 1234); /* [inference-execution-analysis] prefix */
    assert_true(metric(r, "npu.estimated_latency_us.1") == 310);
    assert_false(has_metric(r, "npu.estimated_latency_us.2", NULL));
    assert_true(metric(r, "npu.logger_time_ms.feasible-allocation") == 1250);
    assert_false(has_metric(r, "npu.logger_time_ms.NPUPlugin", NULL)); /* no plugin line upstream prints */
    assert_true(metric(r, "npu.log.lines.NPUW") == 2);
    assert_true(metric(r, "npu.log.lines.feasible-allocation") == 3);
    assert_true(metric(r, "npu.log.lines.VCL") == 4);
    assert_true(metric(r, "npu.log.lines.vpux-compiler") == 1);
    /* hierarchical IE statistics: only IE. rows (not "IE", the groups or the f16 -> f32 child) */
    assert_true(metric(r, "npu.ie_ops.MatMul") == 48);
    assert_true(metric(r, "npu.ie_ops.SoftMax") == 8);
    assert_true(metric(r, "npu.ie_ops.Convert") == 8);
    assert_true(metric(r, "npu.ie_ops.total") == 88);
    assert_false(has_metric(r, "npu.ie_ops.Computational", NULL));
    assert_true(metric(r, "npu.vpuip.VPUIP.NNDMA") == 120);
    assert_true(metric(r, "npu.vpuip.NCETask_Operations") == 50);
    assert_true(metric(r, "npu.vpuip.VPUIP.NCEClusterTask") == 50);
    assert_true(metric(r, "npu.vpuip.total") == 180); /* the root row's count */
    assert_true(metric(r, "npu.vpuip.DDR2CMX") == 100); /* "N ops : Size - X KB" rows */
    assert_false(has_metric(r, "npu.vpuip.Total_weights", NULL)); /* weights statistics are not tasks */
    assert_false(has_metric(r, "npu.vpuip.Swizzled_constants", NULL));
    /* each block attributed to the submodel NPUW's own line named before it ("[ NPUW:INFO ] ..._prefill",
     * "..._kv1152"); the compiler's "generated 120 barriers" inside the prefill compile names nothing */
    assert_true(metric(r, "npu.submodel.prefill.blocks") == 1);
    assert_true(fabs(metric(r, "npu.submodel.prefill.total_s") - 41.2345) < 1e-9);
    assert_true(metric(r, "npu.submodel.generate.blocks") == 1);
    assert_true(fabs(metric(r, "npu.submodel.generate.total_s") - 10.0) < 1e-9);
    assert_false(has_metric(r, "npu.submodel.unattributed.blocks", NULL));
}

static void log_fixture(void **state)
{
    size_t len;
    char *buf = slurp(FIX "npu-log.txt", &len);
    pm_report r;
    pm_err e;
    pm_report_init(&r);
    assert_log_rc(pm_parse_npu_log(buf, len, &r, &e), &e);
    assert_log_metrics(&r);
    assert_log_passes(&r);
    free(buf);
    pm_report_free(&r);
}

/* Builds a variant of the fixture: colour codes around levels, logger names and one timing row. */
static char *colourize(const char *in)
{
    size_t cap = strlen(in) * 3 + 64, o = 0;
    char *out = malloc(cap);
    for (const char *p = in; *p;) {
        if (!strncmp(p, "[INFO]", 6)) {
            o += (size_t)sprintf(out + o, "\033[1;32m[INFO]\033[0m");
            p += 6;
        } else if (!strncmp(p, "[VCL]", 5)) {
            o += (size_t)sprintf(out + o, "\033[36m[VCL]\033[m");
            p += 5;
        } else if (!strncmp(p, "Rest\n", 5)) {
            o += (size_t)sprintf(out + o, "\033[33mRest\033[0m\r\n");
            p += 5;
        } else {
            out[o++] = *p++;
        }
    }
    out[o] = '\0';
    return out;
}

static void log_ansi_coloured(void **state)
{
    size_t len;
    char *buf = slurp(FIX "npu-log.txt", &len), *col = colourize(buf);
    assert_non_null(strstr(col, "\033[1;32m[INFO]\033[0m 10:15:01.000 [feasible-allocation]"));
    pm_report r;
    pm_err e;
    pm_report_init(&r);
    assert_log_rc(pm_parse_npu_log(col, strlen(col), &r, &e), &e);
    assert_log_metrics(&r);
    assert_log_passes(&r);
    free(buf);
    free(col);
    pm_report_free(&r);
}

/* The plugin's std::cout and the compiler's llvm::outs() are buffered apart: plugin lines land inside a
 * report block. They must still be seen as log lines, and the block must still close at its Total. */
static void log_interleaved(void **state)
{
    size_t len;
    char *buf = slurp(FIX "npu-log.txt", &len);
    const char *anchor = "MultiClusterStrategyAssignment\n";
    char *at = strstr(buf, anchor);
    assert_non_null(at);
    at += strlen(anchor);
    const char *inject = "\033[32m[INFO]\033[0m 10:15:20.000 [NPUPlugin] still compiling\n"
                         "[INFO] 10:15:20.500 [VCL] exportNetwork time: 20 ms\n"
                         "Estimated inference latency: 99us\n";
    size_t head = (size_t)(at - buf);
    char *mixed = malloc(len + strlen(inject) + 1);
    memcpy(mixed, buf, head);
    strcpy(mixed + head, inject);
    strcat(mixed, buf + head);
    pm_report r;
    pm_err e;
    pm_report_init(&r);
    assert_log_rc(pm_parse_npu_log(mixed, strlen(mixed), &r, &e), &e);
    assert_int_equal(r.n_reports, 2);
    assert_log_passes(&r); /* the injected lines did not become (or break) timing rows */
    assert_true(metric(&r, "npu.vcl.export_ms") == 100); /* 20 inside the block + 80 after it */
    assert_true(metric(&r, "npu.estimated_latency_us") == 99);
    assert_true(metric(&r, "npu.estimated_latency_us.1") == 1234);
    assert_true(metric(&r, "npu.estimated_latency_us.2") == 310);
    assert_true(metric(&r, "npu.log.lines.NPUPlugin") == 1);
    free(buf);
    free(mixed);
    pm_report_free(&r);
}

/* The plugin's logger does not zero-pad milliseconds: 10:15:00.5 is 5 ms and 10:15:43.40 is 40 ms. */
static void log_plugin_unpadded_ms(void **state)
{
    const char *s = "\033[36m[INFO] 10:15:00.5 [NPUPlugin] a\033[0m\n"
                    "\033[36m[INFO] 10:15:43.40 [NPUPlugin] b\033[0m\n";
    pm_report r;
    pm_err e;
    pm_report_init(&r);
    assert_int_equal(pm_parse_npu_log(s, strlen(s), &r, &e), PM_OK);
    assert_true(metric(&r, "npu.logger_time_ms.NPUPlugin") == 43035);
    pm_report_free(&r);
}

/* Only NPUW's own lines and names attribute a block: not "generated"/"prefill" in another logger's line, not
 * a "_kvcache" or "_kv" without a size. */
static void log_submodel_names_npuw_only(void **state)
{
    const char *block = "===-------------------------------------------------------------------------===\n"
                        "                         ... Execution time report ...\n"
                        "===-------------------------------------------------------------------------===\n"
                        "  Total Execution Time: 1.0000 seconds\n\n"
                        "  ----Wall Time----  ----Name----\n"
                        "    1.0000 (100.0%)  Compile network\n"
                        "    1.0000 (100.0%)  Total\n";
    char *s = NULL;
    assert_true(asprintf(&s,
                         "[INFO] 10:00:00.000 [assign-virtual-barriers] generated 12 barriers for the prefill\n%s"
                         "[ NPUW:INFO ] Compiling Subgraph[1]: m_kvcache...\n%s"
                         "[ NPUW:INFO ] Compiling Subgraph[0]: m_kv2048...\n%s"
                         "[ NPUW:INFO ]   Compiling Subgraph[0]: m_lm_head...\n%s"
                         "[ NPUW:INFO ] Compiling Subgraph[0]: m_prefill...\n%s",
                         block, block, block, block, block) > 0);
    pm_report r;
    pm_err e;
    pm_report_init(&r);
    assert_int_equal(pm_parse_npu_log(s, strlen(s), &r, &e), PM_OK);
    assert_int_equal(r.n_reports, 5);
    assert_true(metric(&r, "npu.submodel.unattributed.blocks") == 2);
    assert_true(metric(&r, "npu.submodel.generate.blocks") == 1);
    assert_true(metric(&r, "npu.submodel.lm_head.blocks") == 1);
    assert_true(metric(&r, "npu.submodel.prefill.blocks") == 1);
    assert_true(metric(&r, "npu.log.lines.NPUW") == 4);
    pm_format f;
    assert_true(pm_sniff_npu("[ NPUW:INFO ] x\n", 16, &f) && f == PM_FMT_NPU_LOG);
    free(s);
    pm_report_free(&r);
}

static void log_without_reports(void **state)
{
    const char *s = "[INFO] 23:59:59.900 [NPUPlugin] cache hit: importing blob\n"
                    "[INFO] 00:00:00.100 [NPUPlugin] done\n";
    pm_report r;
    pm_err e;
    pm_report_init(&r);
    assert_int_equal(pm_parse_npu_log(s, strlen(s), &r, &e), PM_OK);
    assert_int_equal(r.n_reports, 0);
    assert_true(metric(&r, "npu.logger_time_ms.NPUPlugin") == 200); /* across midnight */
    assert_false(has_metric(&r, "npu.vmpeak_delta_kb", NULL));
    assert_false(has_metric(&r, "npu.compile_net_ms", NULL));
    pm_report_free(&r);
}

/* Blocks with no submodel named before them are not guessed at. */
static void log_blocks_unattributed(void **state)
{
    const char *s = "===-------------------------------------------------------------------------===\n"
                    "                         ... Execution time report ...\n"
                    "===-------------------------------------------------------------------------===\n"
                    "  Total Execution Time: 2.0000 seconds\n\n"
                    "  ----Wall Time----  ----Name----\n"
                    "    2.0000 (100.0%)  Compile network\n"
                    "    2.0000 (100.0%)  Total\n"
                    "[INFO] 10:00:00.000 [vpux-compiler] Compile net time: 1500 ms\n";
    pm_report r;
    pm_err e;
    pm_report_init(&r);
    assert_log_rc(pm_parse_npu_log(s, strlen(s), &r, &e), &e);
    assert_true(metric(&r, "npu.submodel.unattributed.blocks") == 1);
    assert_true(metric(&r, "npu.compile_net_ms") == 1500);
    assert_false(has_metric(&r, "npu.elf_export_ms", NULL)); /* 1500 ms - 2 s < 0: never a negative time */
    pm_report_free(&r);
}

static void log_truncated_block_counts(void **state)
{
    const char *s = "===-------------------------------------------------------------------------===\n"
                    "                         ... Execution time report ...\n"
                    "===-------------------------------------------------------------------------===\n"
                    "  Total Execution Time: 3.0000 seconds\n\n"
                    "  ----User Time----  ----Wall Time----  ----Name----\n"
                    "    1.0000 ( 33.3%)    1.0000 ( 33.3%)  Compile network\n";
    pm_report r;
    pm_err e;
    pm_report_init(&r);
    assert_log_rc(pm_parse_npu_log(s, strlen(s), &r, &e), &e);
    assert_int_equal(r.n_reports, 1);
    assert_true(find_pass(&r, "Compile network", 0)->wall_s == 1.0);
    pm_report_free(&r);
}

static void schedule_fixture(void **state)
{
    pm_report r;
    pm_err e;
    pm_report_init(&r);
    assert_int_equal(pm_parse_file(FIX "compileTimeScheduleTrace.json", PM_FMT_AUTO, &r, &e), PM_OK);
    assert_int_equal(r.format, PM_FMT_NPU_SCHEDULE);
    assert_true(metric(&r, "npu.tasks") == 7); /* the three per-variant DPU copies are not tasks */
    assert_true(metric(&r, "npu.tasks.dpu_variants") == 3);
    assert_true(metric(&r, "npu.tasks.DMA") == 3);
    assert_true(metric(&r, "npu.tasks.DPU") == 2);
    assert_true(metric(&r, "npu.tasks.SW") == 1);
    assert_true(metric(&r, "npu.tasks.M2I") == 1);
    assert_true(metric(&r, "npu.task_dur_us") == 25);
    assert_true(metric(&r, "npu.schedule_span_us") == 25);
    assert_true(metric(&r, "npu.task_stats.total_duration") == 25);
    assert_true(metric(&r, "npu.task_stats.DPU_duration") == 16);
    assert_true(metric(&r, "npu.task_stats.all_tasks_union") == 25);
    assert_true(metric(&r, "npu.workpoint_freq_mhz") == 1850);
    pm_report_free(&r);
}

static void schedule_empty_has_zero_categories(void **state)
{
    const char *s = "{\"traceEvents\":[], \"taskStatistics\":{}}";
    pm_report r;
    pm_err e;
    pm_report_init(&r);
    assert_int_equal(pm_parse_npu_schedule(s, strlen(s), &r, &e), PM_OK);
    assert_true(metric(&r, "npu.tasks") == 0);
    assert_true(metric(&r, "npu.tasks.M2I") == 0);
    assert_false(has_metric(&r, "npu.schedule_span_us", NULL));
    pm_report_free(&r);
}

static void strategy_fixture(void **state)
{
    pm_report r;
    pm_err e;
    pm_report_init(&r);
    assert_int_equal(pm_parse_file(FIX "strategy_out.json", PM_FMT_AUTO, &r, &e), PM_OK);
    assert_int_equal(r.format, PM_FMT_NPU_STRATEGY);
    assert_true(metric(&r, "npu.strategy.ops") == 5);
    /* region 0x1111's two ops carry its tiling (8): once; 0x2222: 6; NONE: 1; a plain op: 2 */
    assert_true(metric(&r, "npu.tiles") == 17);
    assert_true(metric(&r, "npu.strategy.tiled_ops") == 4);
    assert_true(metric(&r, "npu.strategy.mc.SplitOverHeight") == 2);
    assert_true(metric(&r, "npu.strategy.mc.SplitOverKernel") == 1);
    assert_true(metric(&r, "npu.strategy.mc.Clustering") == 1);
    assert_true(metric(&r, "npu.strategy.mc.NONE") == 1);
    assert_true(metric(&r, "npu.vf.ops") == 3);
    assert_true(metric(&r, "npu.vf.subgraphs") == 2);
    pm_report_free(&r);
}

static void task_stats_fixture(void **state)
{
    pm_report r;
    pm_err e;
    pm_report_init(&r);
    assert_int_equal(pm_parse_file(FIX "task-stats.txt", PM_FMT_AUTO, &r, &e), PM_OK);
    assert_int_equal(r.format, PM_FMT_NPU_TASK_STATS);
    assert_true(metric(&r, "npu.ie_ops.Convolution") == 3);
    assert_true(metric(&r, "npu.ie_ops.Add") == 1);
    assert_true(metric(&r, "npu.ie_ops.Reshape") == 2);
    assert_true(metric(&r, "npu.ie_ops.Convert") == 1);
    assert_true(metric(&r, "npu.ie_ops.total") == 7); /* IE. rows only: not 7 + 3 + 4 + 1 */
    assert_true(metric(&r, "npu.vpuip.VPUIP.NNDMA") == 12);
    assert_true(metric(&r, "npu.vpuip.total") == 19);
    assert_false(has_metric(&r, "npu.vpuip.Compressed_weights", NULL)); /* after "Weights statistics": not tasks */
    pm_report_free(&r);
}

static void malformed_json_is_parse_error(void **state)
{
    const char *s = "{\"traceEvents\":[\n{\"ph\":\"X\",\"cat\":\"DPU\"\n";
    pm_report r;
    pm_err e;
    pm_report_init(&r);
    assert_int_equal(pm_parse_npu_schedule(s, strlen(s), &r, &e), PM_ERR_PARSE);
    assert_non_null(strstr(e.msg, "line"));
    assert_int_equal(pm_parse_npu_strategy("[1]", 3, &r, &e), PM_ERR_PARSE);
    pm_report_free(&r);
}

/* Real mlir-opt output (mlir-opt-22 --mlir-timing --mlir-timing-display=tree --canonicalize --cse): no NPU
 * markers, so not an NPU log. */
static const char *const mlir_opt_report =
    "===-------------------------------------------------------------------------===\n"
    "                         ... Execution time report ...\n"
    "===-------------------------------------------------------------------------===\n"
    "  Total Execution Time: 0.0009 seconds\n\n"
    "  ----Wall Time----  ----Name----\n"
    "    0.0004 ( 50.5%)  Parser\n"
    "    0.0001 ( 12.2%)  Canonicalizer\n"
    "    0.0000 (  2.7%)  CSE\n"
    "    0.0000 (  0.2%)    (A) DominanceInfo\n"
    "    0.0001 (  9.8%)  Output\n"
    "    0.0002 ( 24.7%)  Rest\n"
    "    0.0009 (100.0%)  Total\n";

static void sniffing(void **state)
{
    static const struct { const char *file; pm_format f; } cases[] = {
        {"npu-log.txt", PM_FMT_NPU_LOG},
        {"compileTimeScheduleTrace.json", PM_FMT_NPU_SCHEDULE},
        {"strategy_out.json", PM_FMT_NPU_STRATEGY},
        {"task-stats.txt", PM_FMT_NPU_TASK_STATS},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char path[512];
        size_t len;
        snprintf(path, sizeof path, FIX "%s", cases[i].file);
        char *buf = slurp(path, &len);
        pm_format f = PM_FMT_AUTO;
        assert_int_equal(pm_sniff_npu(buf, len, &f), 1);
        assert_int_equal(f, cases[i].f);
        assert_int_equal(pm_parse_sniff(buf, len), cases[i].f);
        free(buf);
    }
    pm_format f = PM_FMT_AUTO;
    assert_int_equal(pm_sniff_npu(mlir_opt_report, strlen(mlir_opt_report), &f), 0);
    assert_int_equal(pm_parse_sniff(mlir_opt_report, strlen(mlir_opt_report)), PM_FMT_MLIR_TEXT);
    const char *chrome = "{\"traceEvents\":[{\"name\":\"Parse\",\"cat\":\"function\",\"ph\":\"X\",\"ts\":1,\"dur\":2}]}";
    assert_int_equal(pm_sniff_npu(chrome, strlen(chrome), &f), 0);
}

/* data/stages-npu.tsv: first fnmatch match wins, tool ov-compile. */
static const char *stage_of(const char *pass)
{
    static char stage[64];
    FILE *f = fopen(PM_DATA_DIR "/stages-npu.tsv", "r");
    assert_non_null(f);
    char line[512];
    const char *found = NULL;
    while (!found && fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        line[strcspn(line, "\n")] = '\0';
        char *tool = strtok(line, "\t"), *pat = strtok(NULL, "\t"), *st = strtok(NULL, "\t");
        assert_non_null(st);
        assert_string_equal(tool, "ov-compile");
        if (fnmatch(pat, pass, 0) == 0) {
            snprintf(stage, sizeof stage, "%s", st);
            found = stage;
        }
    }
    fclose(f);
    return found ? found : "(none)";
}

static void stage_map(void **state)
{
    assert_string_equal(stage_of("MultiClusterStrategyAssignment"), "tiling-search");
    assert_string_equal(stage_of("OutputPipelineTiling"), "tiling-search");
    assert_string_equal(stage_of("MergeVfSubgraphs"), "vertical-fusion");
    assert_string_equal(stage_of("VfTiling"), "vertical-fusion");
    assert_string_equal(stage_of("FeasibleAllocation"), "memory-scheduling");
    assert_string_equal(stage_of("BarrierSimulation"), "memory-scheduling");
    assert_string_equal(stage_of("ConvertVPUIP2VPUMI40XX"), "serialization");
    assert_string_equal(stage_of("ConvertVPUASM2NPUReg40XXPass"), "serialization");
    assert_string_equal(stage_of("'func.func' Pipeline"), "pipeline");
    assert_string_equal(stage_of("IE to VPUIP pipeline"), "pipeline");
    assert_string_equal(stage_of("Total"), "total");
    assert_string_equal(stage_of("ConvertShapeTo4D"), "other");
    /* the heavy passes a first map missed, so they do not land in "other" */
    assert_string_equal(stage_of("Outliner"), "outlining");
    assert_string_equal(stage_of("VerticalFusionOutlining"), "outlining");
    assert_string_equal(stage_of("SplitNCEOpsOntoWorkloads"), "workloads");
    assert_string_equal(stage_of("UnrollClusterTiling"), "workloads");
    assert_string_equal(stage_of("InferenceExecutionAnalysis"), "cost-model");
    assert_string_equal(stage_of("WorkloadManagement"), "workload-management");
    assert_string_equal(stage_of("UnrollFetchTaskOps"), "workload-management");
    assert_string_equal(stage_of("ResolveWLMTaskLocation"), "workload-management");
    assert_string_equal(stage_of("OptimizeCopies"), "memory-scheduling");
    assert_string_equal(stage_of("OptimizeParallelCopies"), "memory-scheduling");
    assert_string_equal(stage_of("Canonicalizer"), "canonicalize");
    assert_string_equal(stage_of("ConvertVPUIPDPU2NPUReg40XX"), "serialization");
    assert_string_equal(stage_of("Import nGraph function"), "import");
    assert_string_equal(stage_of("Common nGraph passes"), "import");
    assert_string_equal(stage_of("IE to VPUIP pipeline for Init"), "pipeline");
    assert_string_equal(stage_of("VPUIP pipeline for Main"), "pipeline");
    assert_string_equal(stage_of("QueryArgsAllocationAnalysis"), "memory-scheduling");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(log_fixture),
        cmocka_unit_test(log_ansi_coloured),
        cmocka_unit_test(log_interleaved),
        cmocka_unit_test(log_plugin_unpadded_ms),
        cmocka_unit_test(log_submodel_names_npuw_only),
        cmocka_unit_test(log_without_reports),
        cmocka_unit_test(log_truncated_block_counts),
        cmocka_unit_test(log_blocks_unattributed),
        cmocka_unit_test(schedule_fixture),
        cmocka_unit_test(schedule_empty_has_zero_categories),
        cmocka_unit_test(strategy_fixture),
        cmocka_unit_test(task_stats_fixture),
        cmocka_unit_test(malformed_json_is_parse_error),
        cmocka_unit_test(sniffing),
        cmocka_unit_test(stage_map),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
