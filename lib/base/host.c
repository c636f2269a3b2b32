#include "host.h"

#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <xxhash.h>

/* "model name\t: Intel(R) ..." -> the value; other architectures name the CPU differently. */
static void cpu_model(char *out, size_t cap)
{
    static const char *const keys[] = {"model name", "Model", "cpu model", "Processor", "uarch", NULL};
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[1024];
    out[0] = '\0';
    if (!f)
        return;
    for (int k = 0; keys[k] && !out[0]; k++) {
        rewind(f);
        while (fgets(line, sizeof line, f)) {
            size_t n = strlen(keys[k]);
            if (strncmp(line, keys[k], n) || (line[n] != '\t' && line[n] != ' ' && line[n] != ':'))
                continue;
            char *v = strchr(line, ':');
            if (!v)
                continue;
            for (v++; *v == ' ' || *v == '\t'; v++)
                ;
            v[strcspn(v, "\r\n")] = '\0';
            snprintf(out, cap, "%s", v);
            break;
        }
    }
    fclose(f);
}

void pm_host_fingerprint(pm_host *h)
{
    char buf[1024];
    int n = snprintf(buf, sizeof buf, "%s\n%d\n%s\n%s\n%s", h->cpu_model, h->cores, h->kernel, h->machine,
                     h->compiler);
    if (n < 0)
        n = 0;
    if ((size_t)n >= sizeof buf)
        n = sizeof buf - 1;
    snprintf(h->fingerprint, sizeof h->fingerprint, "%016llx", (unsigned long long)XXH3_64bits(buf, (size_t)n));
}

void pm_host_machine_id(const pm_host *h, char out[17])
{
    char buf[1024];
    int n = snprintf(buf, sizeof buf, "%s\n%d\n%s", h->cpu_model, h->cores, h->machine);
    if (n < 0)
        n = 0;
    if ((size_t)n >= sizeof buf)
        n = sizeof buf - 1;
    snprintf(out, 17, "%016llx", (unsigned long long)XXH3_64bits(buf, (size_t)n));
}

int pm_host_probe(pm_host *h, pm_err *err)
{
    memset(h, 0, sizeof *h);
    if (gethostname(h->name, sizeof h->name - 1) != 0)
        return pm_err_errno(err, PM_ERR_IO, "gethostname");
    struct utsname u;
    if (uname(&u) != 0)
        return pm_err_errno(err, PM_ERR_IO, "uname");
    /* utsname fields are at most 65 bytes: they fit. */
    memcpy(h->kernel, u.release, strnlen(u.release, sizeof u.release));
    memcpy(h->machine, u.machine, strnlen(u.machine, sizeof h->machine - 1));
    h->cores = (int)sysconf(_SC_NPROCESSORS_ONLN);
    cpu_model(h->cpu_model, sizeof h->cpu_model);
    if (!h->cpu_model[0])
        memcpy(h->cpu_model, h->machine, sizeof h->machine);
    pm_host_fingerprint(h);
    return PM_OK;
}

void pm_host_set_compiler(pm_host *h, const char *compiler)
{
    snprintf(h->compiler, sizeof h->compiler, "%s", compiler ? compiler : "");
    pm_host_fingerprint(h);
}
