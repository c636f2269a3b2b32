#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include "stagemap.h"

static void first_match_wins_and_globs(void **state)
{
    pm_stagemap *m = pm_stagemap_new();
    pm_err e = {0};
    assert_int_equal(pm_stagemap_load_text(m, "# comment\n\nllc\t*Instruction Selection*\tisel # trailing\n"
                                              "llc\t*\tcodegen\nmlir-*\tCSE\tcleanup\n", "t", &e), PM_OK);
    assert_int_equal(pm_stagemap_rules(m), 3);
    assert_string_equal(pm_stagemap_match(m, "llc", "X86 DAG->DAG Instruction Selection"), "isel");
    assert_string_equal(pm_stagemap_match(m, "llc", "Machine Instruction Scheduler"), "codegen");
    assert_string_equal(pm_stagemap_match(m, "mlir-opt", "CSE"), "cleanup");
    assert_string_equal(pm_stagemap_match(m, "mlir-opt", "Canonicalizer"), PM_STAGE_OTHER);
    assert_int_equal(pm_stagemap_n_stages(m), 3);
    assert_string_equal(pm_stagemap_stage(m, 1), "codegen");
    pm_stagemap_free(m);
}

static void bad_line_names_file_and_line(void **state)
{
    pm_stagemap *m = pm_stagemap_new();
    pm_err e = {0};
    assert_int_equal(pm_stagemap_load_text(m, "llc\t*\tisel\n\nllc only-two\tfields\n", "map.tsv", &e), PM_ERR_PARSE);
    assert_non_null(strstr(e.msg, "map.tsv:3"));
    pm_stagemap_free(m);
}

/* The fourth column: each stage's phase, one per stage; a (self) row matched as its pass (issue 33). */
static void phases_and_self_rows(void **state)
{
    pm_stagemap *m = pm_stagemap_new();
    pm_err e = {0};
    assert_int_equal(pm_stagemap_load_text(m, "clang\tFrontend*\tfrontend\tfrontend\nclang\t*Pass\tscalar-opt\toptimizer\n"
                                              "clang\tRunPass*\tisel\nclang\tX*\tisel\tcodegen\n", "t", &e), PM_OK);
    assert_string_equal(pm_stagemap_phase(m, "scalar-opt"), "optimizer");
    assert_string_equal(pm_stagemap_phase(m, "isel"), "codegen");   /* declared on a later rule of the stage */
    assert_string_equal(pm_stagemap_phase(m, PM_STAGE_OVERHEAD), "process");
    assert_string_equal(pm_stagemap_phase(m, "nowhere"), "other");
    assert_string_equal(pm_stagemap_phase(NULL, "isel"), "other");
    assert_string_equal(pm_stagemap_match(m, "clang", "SimplifyCFGPass (self)"), "scalar-opt");
    assert_string_equal(pm_stagemap_match(m, "clang", "Frontend (self)"), "frontend");
    /* a stage in two phases, an unknown phase: errors naming the line */
    assert_int_equal(pm_stagemap_load_text(m, "\nopt\t*\tisel\toptimizer\n", "b.tsv", &e), PM_ERR_PARSE);
    assert_non_null(strstr(e.msg, "b.tsv:2"));
    assert_non_null(strstr(e.msg, "one phase per stage"));
    assert_int_equal(pm_stagemap_load_text(m, "opt\t*\tnew\tbackend\n", "c.tsv", &e), PM_ERR_PARSE);
    assert_non_null(strstr(e.msg, "unknown phase 'backend'"));
    assert_int_equal(pm_stagemap_load_text(m, "opt\t*\tnew\tcodegen\tfifth\n", "d.tsv", &e), PM_ERR_PARSE);
    pm_stagemap_free(m);
}

static void loads_fixture_file_and_default_dir(void **state)
{
    pm_stagemap *m = pm_stagemap_new();
    pm_err e = {0};
    assert_int_equal(pm_stagemap_load(m, PM_SOURCE_DIR "/tests/fixtures/stagemap/stages-embedded.tsv", &e), PM_OK);
    assert_string_equal(pm_stagemap_match(m, "mlir-opt", "AffineLoopUnroll"), "tiling");
    assert_string_equal(pm_stagemap_match(m, "mlir-opt", "FinalizeMemRefToLLVMConversionPass"), "llvm-lowering");
    assert_string_equal(pm_stagemap_match(m, "mlir-translate", "anything"), "translate");
    assert_int_equal(pm_stagemap_load(m, "/nonexistent/x.tsv", &e), PM_ERR_IO);
    pm_stagemap_free(m);
    setenv("PASSMAP_DATA_DIR", PM_SOURCE_DIR "/tests/fixtures/stagemap", 1);
    m = pm_stagemap_new();
    assert_int_equal(pm_stagemap_load_default(m, &e), PM_OK);
    assert_string_equal(pm_stagemap_match(m, "ov-compile", "FeasibleAllocation"), "memory-scheduling");
    assert_string_equal(pm_stagemap_match(m, "llc", "Greedy Register Allocator"), "regalloc");
    pm_stagemap_free(m);
    unsetenv("PASSMAP_DATA_DIR");
}

/* Every stages-*.tsv of the data folder is read: the 65th and later were dropped without a word. */
static void every_map_file_is_read(void **state)
{
    char dir[] = "/tmp/pm-test-stagemap-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[128];
    for (int i = 0; i < 70; i++) {
        snprintf(path, sizeof path, "%s/stages-tool%02d.tsv", dir, i);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fprintf(f, "tool%02d\t*\tstage%02d\n", i, i);
        fclose(f);
    }
    setenv("PASSMAP_DATA_DIR", dir, 1);
    pm_stagemap *m = pm_stagemap_new();
    pm_err e = {0};
    assert_int_equal(pm_stagemap_load_default(m, &e), PM_OK);
    assert_int_equal(pm_stagemap_rules(m), 70);
    assert_string_equal(pm_stagemap_match(m, "tool69", "x"), "stage69");
    pm_stagemap_free(m);
    unsetenv("PASSMAP_DATA_DIR");
    for (int i = 0; i < 70; i++) {
        snprintf(path, sizeof path, "%s/stages-tool%02d.tsv", dir, i);
        unlink(path);
    }
    rmdir(dir);
}

/* A data folder that is missing, or holds no stages-*.tsv, is an error naming the folder: it used to map
 * every pass to "other" and the report then said "other dominates" with exit 0. */
static void missing_maps_name_the_folder(void **state)
{
    pm_err e = {0};
    setenv("PASSMAP_DATA_DIR", "/nonexistent-pm-data", 1);
    pm_stagemap *m = pm_stagemap_new();
    assert_int_equal(pm_stagemap_load_default(m, &e), PM_ERR_NOTFOUND);
    assert_non_null(strstr(e.msg, "/nonexistent-pm-data (from $PASSMAP_DATA_DIR)"));
    assert_non_null(strstr(e.msg, "--stage-map FILE"));
    pm_stagemap_free(m);
    char dir[] = "/tmp/pm-test-stagemap-empty-XXXXXX";
    assert_non_null(mkdtemp(dir));
    setenv("PASSMAP_DATA_DIR", dir, 1);
    m = pm_stagemap_new();
    assert_int_equal(pm_stagemap_load_default(m, &e), PM_ERR_NOTFOUND);
    assert_non_null(strstr(e.msg, dir));
    assert_non_null(strstr(e.msg, "stages-*.tsv"));
    assert_int_equal(pm_stagemap_rules(m), 0);
    pm_stagemap_free(m);
    unsetenv("PASSMAP_DATA_DIR");
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(first_match_wins_and_globs),
        cmocka_unit_test(bad_line_names_file_and_line),
        cmocka_unit_test(phases_and_self_rows),
        cmocka_unit_test(loads_fixture_file_and_default_dir),
        cmocka_unit_test(every_map_file_is_read),
        cmocka_unit_test(missing_maps_name_the_folder),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
