/* The tiny OpenVINO IR passmap doctor compiles: one matmul block (MatMul with a constant weight, bias Add, ReLU),
 * IR version 11, f32, weights in the .bin beside it. Small enough to compile in seconds on any device or
 * offline, real enough to run the NPU compiler's whole pipeline and print its timing report. */
#include "ov.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 64 /* input features = output features */

static const char *const ir_template =
    "<?xml version=\"1.0\"?>\n"
    "<net name=\"passmap_doctor_matmul\" version=\"11\">\n"
    "\t<layers>\n"
    "\t\t<layer id=\"0\" name=\"input\" type=\"Parameter\" version=\"opset1\">\n"
    "\t\t\t<data shape=\"1,%d\" element_type=\"f32\" />\n"
    "\t\t\t<output>\n"
    "\t\t\t\t<port id=\"0\" precision=\"FP32\" names=\"input\"><dim>1</dim><dim>%d</dim></port>\n"
    "\t\t\t</output>\n"
    "\t\t</layer>\n"
    "\t\t<layer id=\"1\" name=\"weights\" type=\"Const\" version=\"opset1\">\n"
    "\t\t\t<data element_type=\"f32\" shape=\"%d,%d\" offset=\"0\" size=\"%d\" />\n"
    "\t\t\t<output>\n"
    "\t\t\t\t<port id=\"0\" precision=\"FP32\"><dim>%d</dim><dim>%d</dim></port>\n"
    "\t\t\t</output>\n"
    "\t\t</layer>\n"
    "\t\t<layer id=\"2\" name=\"matmul\" type=\"MatMul\" version=\"opset1\">\n"
    "\t\t\t<data transpose_a=\"false\" transpose_b=\"true\" />\n"
    "\t\t\t<input>\n"
    "\t\t\t\t<port id=\"0\" precision=\"FP32\"><dim>1</dim><dim>%d</dim></port>\n"
    "\t\t\t\t<port id=\"1\" precision=\"FP32\"><dim>%d</dim><dim>%d</dim></port>\n"
    "\t\t\t</input>\n"
    "\t\t\t<output>\n"
    "\t\t\t\t<port id=\"2\" precision=\"FP32\"><dim>1</dim><dim>%d</dim></port>\n"
    "\t\t\t</output>\n"
    "\t\t</layer>\n"
    "\t\t<layer id=\"3\" name=\"bias\" type=\"Const\" version=\"opset1\">\n"
    "\t\t\t<data element_type=\"f32\" shape=\"1,%d\" offset=\"%d\" size=\"%d\" />\n"
    "\t\t\t<output>\n"
    "\t\t\t\t<port id=\"0\" precision=\"FP32\"><dim>1</dim><dim>%d</dim></port>\n"
    "\t\t\t</output>\n"
    "\t\t</layer>\n"
    "\t\t<layer id=\"4\" name=\"add\" type=\"Add\" version=\"opset1\">\n"
    "\t\t\t<data auto_broadcast=\"numpy\" />\n"
    "\t\t\t<input>\n"
    "\t\t\t\t<port id=\"0\" precision=\"FP32\"><dim>1</dim><dim>%d</dim></port>\n"
    "\t\t\t\t<port id=\"1\" precision=\"FP32\"><dim>1</dim><dim>%d</dim></port>\n"
    "\t\t\t</input>\n"
    "\t\t\t<output>\n"
    "\t\t\t\t<port id=\"2\" precision=\"FP32\"><dim>1</dim><dim>%d</dim></port>\n"
    "\t\t\t</output>\n"
    "\t\t</layer>\n"
    "\t\t<layer id=\"5\" name=\"relu\" type=\"Relu\" version=\"opset1\">\n"
    "\t\t\t<input>\n"
    "\t\t\t\t<port id=\"0\" precision=\"FP32\"><dim>1</dim><dim>%d</dim></port>\n"
    "\t\t\t</input>\n"
    "\t\t\t<output>\n"
    "\t\t\t\t<port id=\"1\" precision=\"FP32\" names=\"output\"><dim>1</dim><dim>%d</dim></port>\n"
    "\t\t\t</output>\n"
    "\t\t</layer>\n"
    "\t\t<layer id=\"6\" name=\"output\" type=\"Result\" version=\"opset1\">\n"
    "\t\t\t<input>\n"
    "\t\t\t\t<port id=\"0\" precision=\"FP32\"><dim>1</dim><dim>%d</dim></port>\n"
    "\t\t\t</input>\n"
    "\t\t</layer>\n"
    "\t</layers>\n"
    "\t<edges>\n"
    "\t\t<edge from-layer=\"0\" from-port=\"0\" to-layer=\"2\" to-port=\"0\" />\n"
    "\t\t<edge from-layer=\"1\" from-port=\"0\" to-layer=\"2\" to-port=\"1\" />\n"
    "\t\t<edge from-layer=\"2\" from-port=\"2\" to-layer=\"4\" to-port=\"0\" />\n"
    "\t\t<edge from-layer=\"3\" from-port=\"0\" to-layer=\"4\" to-port=\"1\" />\n"
    "\t\t<edge from-layer=\"4\" from-port=\"2\" to-layer=\"5\" to-port=\"0\" />\n"
    "\t\t<edge from-layer=\"5\" from-port=\"1\" to-layer=\"6\" to-port=\"0\" />\n"
    "\t</edges>\n"
    "\t<rt_info />\n"
    "</net>\n";

int pm_ov_write_tiny_ir(const char *dir, char *xml_path, size_t xml_path_size, pm_err *err)
{
    char bin_path[4096];
    int rc = PM_OK;
    int wbytes = N * N * 4, bbytes = N * 4;
    if (snprintf(xml_path, xml_path_size, "%s/passmap-doctor.xml", dir) >= (int)xml_path_size ||
        snprintf(bin_path, sizeof bin_path, "%s/passmap-doctor.bin", dir) >= (int)sizeof bin_path)
        return pm_err_set(err, PM_ERR_USAGE, "folder name too long: %s", dir);
    FILE *x = fopen(xml_path, "w");
    if (!x)
        return pm_err_errno(err, PM_ERR_IO, "cannot create %s", xml_path);
    fprintf(x, ir_template, N, N, N, N, wbytes, N, N, N, N, N, N, N, wbytes, bbytes, N, N, N, N, N, N, N);
    if (fclose(x) != 0)
        return pm_err_errno(err, PM_ERR_IO, "cannot write %s", xml_path);
    FILE *b = fopen(bin_path, "wb");
    if (!b)
        return pm_err_errno(err, PM_ERR_IO, "cannot create %s", bin_path);
    /* Small deterministic values: an identity-like weight and a zero bias keep the math trivially finite. */
    for (int i = 0; i < N * N && !rc; i++) {
        float v = (i / N == i % N) ? 1.0f : 0.001f * (float)((i * 7) % 13 - 6);
        if (fwrite(&v, sizeof v, 1, b) != 1)
            rc = pm_err_errno(err, PM_ERR_IO, "cannot write %s", bin_path);
    }
    for (int i = 0; i < N && !rc; i++) {
        float v = 0.0f;
        if (fwrite(&v, sizeof v, 1, b) != 1)
            rc = pm_err_errno(err, PM_ERR_IO, "cannot write %s", bin_path);
    }
    if (fclose(b) != 0 && !rc)
        rc = pm_err_errno(err, PM_ERR_IO, "cannot write %s", bin_path);
    return rc;
}

/* ---- the tiny LLM-shaped model (doctor's NPUW check) ----------------------------------------------------------
 * What NPUW_LLM expects of an optimum export, at toy size: a stateful model with inputs input_ids, attention_mask,
 * position_ids (i64, [batch, seq]) and beam_idx (i32, [batch]); one attention layer whose key and value caches are
 * ReadValue/Assign pairs (zeros [batch, 1, 0, 16] to start, reordered by beam_idx, concatenated on axis 2 =
 * NPUW_LLM_SEQ_LEN_DIM) and a "logits" output over a 32-token vocabulary. Inferred from the optimum layout and
 * NPUW's stateful-to-stateless pass, not checked against a real NPUW here: a FAILED line carries OpenVINO's
 * reason, and --llm-model runs the same check on a real export. */
typedef struct ir_layer {
    const char *name, *type, *version, *data;
    const char *in[3];   /* "PREC:d,d,..", NULL-terminated */
    const char *out;     /* "PREC:d,d,..", NULL: none (Result, Assign) */
} ir_layer;

static void ir_port(FILE *x, int id, const char *spec, const char *names)
{
    const char *colon = strchr(spec, ':');
    fprintf(x, "\t\t\t\t<port id=\"%d\" precision=\"%.*s\"%s%s%s>", id, (int)(colon - spec), spec,
            names ? " names=\"" : "", names ? names : "", names ? "\"" : "");
    for (const char *d = colon + 1; *d;) {
        size_t n = strcspn(d, ",");
        fprintf(x, "<dim>%.*s</dim>", (int)n, d);
        d += n + (d[n] == ',');
    }
    fprintf(x, "</port>\n");
}

/* clang-format off */
#define KV_K "past_key_values.0.keypresent.0.key"
#define KV_V "past_key_values.0.valuepresent.0.value"
static const ir_layer llm_layers[] = {
    /* 0 */ {"input_ids", "Parameter", "opset1", "shape=\"?,?\" element_type=\"i64\"", {NULL}, "I64:-1,-1"},
    /* 1 */ {"attention_mask", "Parameter", "opset1", "shape=\"?,?\" element_type=\"i64\"", {NULL}, "I64:-1,-1"},
    /* 2 */ {"position_ids", "Parameter", "opset1", "shape=\"?,?\" element_type=\"i64\"", {NULL}, "I64:-1,-1"},
    /* 3 */ {"beam_idx", "Parameter", "opset1", "shape=\"?\" element_type=\"i32\"", {NULL}, "I32:-1"},
    /* 4 */ {"embed_tokens", "Const", "opset1", "element_type=\"f32\" shape=\"32,16\" offset=\"0\" size=\"2048\"", {NULL}, "FP32:32,16"},
    /* 5 */ {"axis0", "Const", "opset1", "element_type=\"i64\" shape=\"\" offset=\"2048\" size=\"8\"", {NULL}, "I64:"},
    /* 6 */ {"embed", "Gather", "opset8", "batch_dims=\"0\"", {"FP32:32,16", "I64:-1,-1", "I64:"}, "FP32:-1,-1,16"},
    /* 7 */ {"q_proj.weight", "Const", "opset1", "element_type=\"f32\" shape=\"16,16\" offset=\"2056\" size=\"1024\"", {NULL}, "FP32:16,16"},
    /* 8 */ {"q_proj", "MatMul", "opset1", "transpose_a=\"false\" transpose_b=\"true\"", {"FP32:-1,-1,16", "FP32:16,16"}, "FP32:-1,-1,16"},
    /* 9 */ {"k_proj.weight", "Const", "opset1", "element_type=\"f32\" shape=\"16,16\" offset=\"3080\" size=\"1024\"", {NULL}, "FP32:16,16"},
    /* 10 */ {"k_proj", "MatMul", "opset1", "transpose_a=\"false\" transpose_b=\"true\"", {"FP32:-1,-1,16", "FP32:16,16"}, "FP32:-1,-1,16"},
    /* 11 */ {"v_proj.weight", "Const", "opset1", "element_type=\"f32\" shape=\"16,16\" offset=\"4104\" size=\"1024\"", {NULL}, "FP32:16,16"},
    /* 12 */ {"v_proj", "MatMul", "opset1", "transpose_a=\"false\" transpose_b=\"true\"", {"FP32:-1,-1,16", "FP32:16,16"}, "FP32:-1,-1,16"},
    /* 13 */ {"heads_shape", "Const", "opset1", "element_type=\"i64\" shape=\"4\" offset=\"5128\" size=\"32\"", {NULL}, "I64:4"},
    /* 14 */ {"q_heads", "Reshape", "opset1", "special_zero=\"true\"", {"FP32:-1,-1,16", "I64:4"}, "FP32:-1,-1,1,16"},
    /* 15 */ {"k_heads", "Reshape", "opset1", "special_zero=\"true\"", {"FP32:-1,-1,16", "I64:4"}, "FP32:-1,-1,1,16"},
    /* 16 */ {"v_heads", "Reshape", "opset1", "special_zero=\"true\"", {"FP32:-1,-1,16", "I64:4"}, "FP32:-1,-1,1,16"},
    /* 17 */ {"perm", "Const", "opset1", "element_type=\"i64\" shape=\"4\" offset=\"5160\" size=\"32\"", {NULL}, "I64:4"},
    /* 18 */ {"q_t", "Transpose", "opset1", NULL, {"FP32:-1,-1,1,16", "I64:4"}, "FP32:-1,1,-1,16"},
    /* 19 */ {"k_t", "Transpose", "opset1", NULL, {"FP32:-1,-1,1,16", "I64:4"}, "FP32:-1,1,-1,16"},
    /* 20 */ {"v_t", "Transpose", "opset1", NULL, {"FP32:-1,-1,1,16", "I64:4"}, "FP32:-1,1,-1,16"},
    /* 21 */ {"ids_shape", "ShapeOf", "opset3", "output_type=\"i64\"", {"I64:-1,-1"}, "I64:2"},
    /* 22 */ {"idx0", "Const", "opset1", "element_type=\"i64\" shape=\"1\" offset=\"5192\" size=\"8\"", {NULL}, "I64:1"},
    /* 23 */ {"batch", "Gather", "opset8", "batch_dims=\"0\"", {"I64:2", "I64:1", "I64:"}, "I64:1"},
    /* 24 */ {"cache_tail", "Const", "opset1", "element_type=\"i64\" shape=\"3\" offset=\"5200\" size=\"24\"", {NULL}, "I64:3"},
    /* 25 */ {"cache_shape", "Concat", "opset1", "axis=\"0\"", {"I64:1", "I64:3"}, "I64:4"},
    /* 26 */ {"zero", "Const", "opset1", "element_type=\"f32\" shape=\"\" offset=\"5224\" size=\"4\"", {NULL}, "FP32:"},
    /* 27 */ {"cache_init", "Broadcast", "opset3", "mode=\"numpy\"", {"FP32:", "I64:4"}, "FP32:-1,1,0,16"},
    /* 28 */ {"past_key", "ReadValue", "opset6", "variable_id=\"" KV_K "\" variable_type=\"f32\" variable_shape=\"?,1,?,16\"", {"FP32:-1,1,0,16"}, "FP32:-1,1,-1,16"},
    /* 29 */ {"past_key_beam", "Gather", "opset8", "batch_dims=\"0\"", {"FP32:-1,1,-1,16", "I32:-1", "I64:"}, "FP32:-1,1,-1,16"},
    /* 30 */ {"present_key", "Concat", "opset1", "axis=\"2\"", {"FP32:-1,1,-1,16", "FP32:-1,1,-1,16"}, "FP32:-1,1,-1,16"},
    /* 31 */ {"assign_key", "Assign", "opset6", "variable_id=\"" KV_K "\"", {"FP32:-1,1,-1,16"}, NULL},
    /* 32 */ {"past_value", "ReadValue", "opset6", "variable_id=\"" KV_V "\" variable_type=\"f32\" variable_shape=\"?,1,?,16\"", {"FP32:-1,1,0,16"}, "FP32:-1,1,-1,16"},
    /* 33 */ {"past_value_beam", "Gather", "opset8", "batch_dims=\"0\"", {"FP32:-1,1,-1,16", "I32:-1", "I64:"}, "FP32:-1,1,-1,16"},
    /* 34 */ {"present_value", "Concat", "opset1", "axis=\"2\"", {"FP32:-1,1,-1,16", "FP32:-1,1,-1,16"}, "FP32:-1,1,-1,16"},
    /* 35 */ {"assign_value", "Assign", "opset6", "variable_id=\"" KV_V "\"", {"FP32:-1,1,-1,16"}, NULL},
    /* 36 */ {"scores", "MatMul", "opset1", "transpose_a=\"false\" transpose_b=\"true\"", {"FP32:-1,1,-1,16", "FP32:-1,1,-1,16"}, "FP32:-1,1,-1,-1"},
    /* 37 */ {"probs", "Softmax", "opset8", "axis=\"-1\"", {"FP32:-1,1,-1,-1"}, "FP32:-1,1,-1,-1"},
    /* 38 */ {"context", "MatMul", "opset1", "transpose_a=\"false\" transpose_b=\"false\"", {"FP32:-1,1,-1,-1", "FP32:-1,1,-1,16"}, "FP32:-1,1,-1,16"},
    /* 39 */ {"context_t", "Transpose", "opset1", NULL, {"FP32:-1,1,-1,16", "I64:4"}, "FP32:-1,-1,1,16"},
    /* 40 */ {"hidden_shape", "Const", "opset1", "element_type=\"i64\" shape=\"3\" offset=\"5228\" size=\"24\"", {NULL}, "I64:3"},
    /* 41 */ {"hidden", "Reshape", "opset1", "special_zero=\"true\"", {"FP32:-1,-1,1,16", "I64:3"}, "FP32:-1,-1,16"},
    /* 42 */ {"lm_head.weight", "Const", "opset1", "element_type=\"f32\" shape=\"32,16\" offset=\"5252\" size=\"2048\"", {NULL}, "FP32:32,16"},
    /* 43 */ {"lm_head", "MatMul", "opset1", "transpose_a=\"false\" transpose_b=\"true\"", {"FP32:-1,-1,16", "FP32:32,16"}, "FP32:-1,-1,32"},
    /* 44 */ {"logits/sink", "Result", "opset1", NULL, {"FP32:-1,-1,32"}, NULL},
};
/* from-layer, to-layer, to-port (the from-port is the producer's only output) */
static const int llm_edges[][3] = {
    {4, 6, 0}, {0, 6, 1}, {5, 6, 2}, {6, 8, 0}, {7, 8, 1}, {6, 10, 0}, {9, 10, 1}, {6, 12, 0}, {11, 12, 1},
    {8, 14, 0}, {13, 14, 1}, {10, 15, 0}, {13, 15, 1}, {12, 16, 0}, {13, 16, 1}, {14, 18, 0}, {17, 18, 1},
    {15, 19, 0}, {17, 19, 1}, {16, 20, 0}, {17, 20, 1}, {0, 21, 0}, {21, 23, 0}, {22, 23, 1}, {5, 23, 2},
    {23, 25, 0}, {24, 25, 1}, {26, 27, 0}, {25, 27, 1}, {27, 28, 0}, {28, 29, 0}, {3, 29, 1}, {5, 29, 2},
    {29, 30, 0}, {19, 30, 1}, {30, 31, 0}, {27, 32, 0}, {32, 33, 0}, {3, 33, 1}, {5, 33, 2}, {33, 34, 0},
    {20, 34, 1}, {34, 35, 0}, {18, 36, 0}, {30, 36, 1}, {36, 37, 0}, {37, 38, 0}, {34, 38, 1}, {38, 39, 0},
    {17, 39, 1}, {39, 41, 0}, {40, 41, 1}, {41, 43, 0}, {42, 43, 1}, {43, 44, 0}};
/* clang-format on */

#undef KV_K
#undef KV_V

/* The LLM model's XML: its layers with their ports, then its edges. */
static int write_llm_xml(const char *xml_path, pm_err *err)
{
    const ir_layer *L = llm_layers;
    const int nl = (int)(sizeof llm_layers / sizeof *llm_layers), ne = (int)(sizeof llm_edges / sizeof *llm_edges);
    FILE *x = fopen(xml_path, "w");
    if (!x)
        return pm_err_errno(err, PM_ERR_IO, "cannot create %s", xml_path);
    fprintf(x, "<?xml version=\"1.0\"?>\n<net name=\"passmap_doctor_llm\" version=\"11\">\n\t<layers>\n");
    for (int i = 0; i < nl; i++) {
        const ir_layer *l = &L[i];
        fprintf(x, "\t\t<layer id=\"%d\" name=\"%s\" type=\"%s\" version=\"%s\">\n", i, l->name, l->type, l->version);
        if (l->data)
            fprintf(x, "\t\t\t<data %s />\n", l->data);
        int port = 0;
        if (l->in[0]) {
            fprintf(x, "\t\t\t<input>\n");
            for (int k = 0; k < 3 && l->in[k]; k++)
                ir_port(x, port++, l->in[k], NULL);
            fprintf(x, "\t\t\t</input>\n");
        }
        if (l->out) {
            /* tensor names: the parameters', "logits", and the present caches' (as optimum names them) */
            const char *names = !strcmp(l->type, "Parameter") ? l->name
                                : !strcmp(l->name, "lm_head") ? "logits" : NULL;
            fprintf(x, "\t\t\t<output>\n");
            ir_port(x, port, l->out, names);
            fprintf(x, "\t\t\t</output>\n");
        }
        fprintf(x, "\t\t</layer>\n");
    }
    fprintf(x, "\t</layers>\n\t<edges>\n");
    for (int i = 0; i < ne; i++) {
        int from = llm_edges[i][0], from_port = 0;
        for (int k = 0; k < 3 && L[from].in[k]; k++)
            from_port++;
        fprintf(x, "\t\t<edge from-layer=\"%d\" from-port=\"%d\" to-layer=\"%d\" to-port=\"%d\" />\n", from, from_port,
                llm_edges[i][1], llm_edges[i][2]);
    }
    fprintf(x, "\t</edges>\n\t<rt_info />\n</net>\n");
    if (fclose(x) != 0)
        return pm_err_errno(err, PM_ERR_IO, "cannot write %s", xml_path);
    return PM_OK;
}

/* The LLM model's weights: the constants at their offsets, f32 weights (small deterministic values), then the
 * i64 shapes. */
static int write_llm_bin(const char *bin_path, pm_err *err)
{
    int rc = PM_OK;
    FILE *b = fopen(bin_path, "wb");
    if (!b)
        return pm_err_errno(err, PM_ERR_IO, "cannot create %s", bin_path);
    float f[2048 / 4];
    for (int i = 0; i < 512; i++)
        f[i] = 0.01f * (float)((i * 7) % 13 - 6);
    const long long axis0 = 0, heads[4] = {0, 0, 1, 16}, perm[4] = {0, 2, 1, 3}, idx0 = 0, tail[3] = {1, 0, 16},
                    hidden[3] = {0, 0, 16};
    const float zero = 0.0f;
    int ok = fwrite(f, 4, 512, b) == 512 && fwrite(&axis0, 8, 1, b) == 1 &&   /* 0, 2048 */
             fwrite(f, 4, 256, b) == 256 && fwrite(f, 4, 256, b) == 256 &&     /* 2056, 3080 */
             fwrite(f, 4, 256, b) == 256 && fwrite(heads, 8, 4, b) == 4 &&     /* 4104, 5128 */
             fwrite(perm, 8, 4, b) == 4 && fwrite(&idx0, 8, 1, b) == 1 &&      /* 5160, 5192 */
             fwrite(tail, 8, 3, b) == 3 && fwrite(&zero, 4, 1, b) == 1 &&      /* 5200, 5224 */
             fwrite(hidden, 8, 3, b) == 3 && fwrite(f, 4, 512, b) == 512;      /* 5228, 5252 */
    if (!ok)
        rc = pm_err_errno(err, PM_ERR_IO, "cannot write %s", bin_path);
    if (fclose(b) != 0 && !rc)
        rc = pm_err_errno(err, PM_ERR_IO, "cannot write %s", bin_path);
    return rc;
}

int pm_ov_write_tiny_llm_ir(const char *dir, char *xml_path, size_t xml_path_size, pm_err *err)
{
    char bin_path[4096];
    if (snprintf(xml_path, xml_path_size, "%s/passmap-doctor-llm.xml", dir) >= (int)xml_path_size ||
        snprintf(bin_path, sizeof bin_path, "%s/passmap-doctor-llm.bin", dir) >= (int)sizeof bin_path)
        return pm_err_set(err, PM_ERR_USAGE, "folder name too long: %s", dir);
    int rc = write_llm_xml(xml_path, err);
    return rc ? rc : write_llm_bin(bin_path, err);
}
