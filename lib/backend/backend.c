#include "backend.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void pm_argv_free(char **argv)
{
    if (!argv)
        return;
    for (char **a = argv; *a; a++)
        free(*a);
    free(argv);
}

int pm_argv_push(char ***argv, const char *arg)
{
    size_t n = 0;
    if (*argv)
        while ((*argv)[n])
            n++;
    char **nv = realloc(*argv, (n + 2) * sizeof *nv);
    if (!nv)
        return PM_ERR_NOMEM;
    *argv = nv;
    nv[n] = strdup(arg);
    nv[n + 1] = NULL;
    return nv[n] ? PM_OK : PM_ERR_NOMEM;
}

char **pm_argv_new(const char *first, ...)
{
    char **argv = calloc(1, sizeof *argv);
    if (!argv)
        return NULL;
    va_list ap;
    va_start(ap, first);
    for (const char *a = first; a; a = va_arg(ap, const char *)) {
        if (pm_argv_push(&argv, a) != PM_OK) {
            va_end(ap);
            pm_argv_free(argv);
            return NULL;
        }
    }
    va_end(ap);
    return argv;
}

static int needs_quote(const char *s)
{
    if (!*s)
        return 1;
    for (; *s; s++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+%@", *s))
            return 1;
    return 0;
}

char *pm_argv_join(char *const argv[])
{
    size_t cap = 1;
    for (char *const *a = argv; *a; a++)
        cap += strlen(*a) * 4 + 3;
    char *out = malloc(cap), *p = out;
    if (!out)
        return NULL;
    for (char *const *a = argv; *a; a++) {
        if (a != argv)
            *p++ = ' ';
        if (!needs_quote(*a)) {
            p = stpcpy(p, *a);
            continue;
        }
        *p++ = '\'';
        for (const char *c = *a; *c; c++) {
            if (*c == '\'')
                p = stpcpy(p, "'\\''");
            else
                *p++ = *c;
        }
        *p++ = '\'';
    }
    *p = '\0';
    return out;
}

void pm_steps_free(pm_steps *s)
{
    if (!s)
        return;
    for (int i = 0; i < s->n; i++) {
        pm_step *st = &s->items[i];
        free(st->tool);
        pm_argv_free(st->argv);
        free(st->cwd);
        free(st->output);
        free(st->input);
        for (int k = 0; k < st->n_artifacts; k++)
            free(st->artifacts[k]);
    }
    free(s->items);
    s->items = NULL;
    s->n = 0;
}
