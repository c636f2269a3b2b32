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
