/* The runner's option values: durations ("90s", "2m") and sizes ("4G"), and the memory limit's clamp. */
#include "run_internal.h"

/* Number then optional unit; rejects signs, blanks, nan/inf and trailing junk. */
static int parse_number(const char *text, double *value, const char **unit)
{
    if (!text || !isdigit((unsigned char)text[0]))
        return -1;
    for (const char *p = text; *p && *p != '.' && !isalpha((unsigned char)*p); p++)
        if (!isdigit((unsigned char)*p))
            return -1;
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (errno || end == text || !isfinite(v) || v < 0)
        return -1;
    /* strtod would take "1e3" or "0x10": only plain decimals are accepted. */
    for (const char *p = text; p < end; p++)
        if (!isdigit((unsigned char)*p) && *p != '.')
            return -1;
    *value = v;
    *unit = end;
    return 0;
}

int pm_run_parse_duration(const char *text, double *seconds, pm_err *err)
{
    double v;
    const char *unit;
    if (parse_number(text, &v, &unit) < 0)
        return pm_err_set(err, PM_ERR_USAGE, "invalid duration '%s' (expected e.g. 30, 2.5s, 500ms, 5m, 1h)",
                          text ? text : "");
    double scale;
    if (!*unit || !strcmp(unit, "s"))
        scale = 1;
    else if (!strcmp(unit, "ms"))
        scale = 1e-3;
    else if (!strcmp(unit, "m"))
        scale = 60;
    else if (!strcmp(unit, "h"))
        scale = 3600;
    else
        return pm_err_set(err, PM_ERR_USAGE, "invalid duration '%s': unknown unit '%s' (use ms, s, m or h)", text,
                          unit);
    *seconds = v * scale;
    return PM_OK;
}

int pm_run_parse_size(const char *text, uint64_t *bytes, pm_err *err)
{
    double v;
    const char *unit;
    if (parse_number(text, &v, &unit) < 0)
        return pm_err_set(err, PM_ERR_USAGE, "invalid size '%s' (expected e.g. 1073741824, 512M, 8G)",
                          text ? text : "");
    /* Binary multiples: K=1024. "512M", "512MB", "512MiB" and "512m" mean the same. */
    int shift = -1;
    switch (toupper((unsigned char)unit[0])) {
    case '\0': shift = 0; break;
    case 'B': shift = unit[1] ? -1 : 0; break;
    case 'K': shift = 10; break;
    case 'M': shift = 20; break;
    case 'G': shift = 30; break;
    case 'T': shift = 40; break;
    }
    if (shift > 0) {
        const char *rest = unit + 1;
        if (!*rest || !strcmp(rest, "B") || !strcmp(rest, "iB"))
            ;
        else
            shift = -1;
    }
    if (shift < 0)
        return pm_err_set(err, PM_ERR_USAGE, "invalid size '%s': unknown unit '%s' (use K, M, G or T)", text, unit);
    if (!strchr(text, '.') && shift == 0) {
        /* Exact for large plain byte counts, where a double would round. */
        errno = 0;
        unsigned long long n = strtoull(text, NULL, 10);
        if (errno)
            return pm_err_set(err, PM_ERR_USAGE, "invalid size '%s': too large", text);
        *bytes = n;
        return PM_OK;
    }
    double b = ldexp(v, shift);
    if (b >= 18446744073709551615.0)
        return pm_err_set(err, PM_ERR_USAGE, "invalid size '%s': too large", text);
    /* 0.5 bytes would truncate to 0, which means "no limit": a limit that silently lifts itself */
    if (b != floor(b))
        return pm_err_set(err, PM_ERR_USAGE, "invalid size '%s': not a whole number of bytes", text);
    *bytes = (uint64_t)b;
    return PM_OK;
}

uint64_t pm_run_mem_limit_clamp(uint64_t want)
{
    struct rlimit cur;
    if (want && getrlimit(RLIMIT_AS, &cur) == 0 && cur.rlim_max != RLIM_INFINITY && want > (uint64_t)cur.rlim_max)
        return (uint64_t)cur.rlim_max;
    return want;
}
