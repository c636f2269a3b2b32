/* The runner's output capture: a stream's head straight to its file, its tail in a ring until the end, so
 * a chatty compiler never fills memory and never loses its last lines. */
#include "run_internal.h"

void pm_run_close_fd(int *fd)
{
    if (*fd >= 0) {
        close(*fd);
        *fd = -1;
    }
}

static int write_all(int fd, const char *buf, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, buf, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return errno;
        }
        buf += w;
        n -= (size_t)w;
    }
    return 0;
}

void pm_run_capture_init(capture *c, size_t limit)
{
    memset(c, 0, sizeof *c);
    c->fd = -1;
    c->tail_cap = limit / 4;
    c->head_cap = limit - c->tail_cap;
}

static void capture_write(capture *c, const char *buf, size_t n)
{
    if (!c->write_errno && n > 0)
        c->write_errno = write_all(c->fd, buf, n);
}

/* Appends to the ring, overwriting (and counting as dropped) its oldest bytes. */
static void ring_push(capture *c, const char *buf, size_t n)
{
    if (c->tail_cap == 0) {
        c->dropped += n;
        return;
    }
    if (!c->ring) {
        c->ring = malloc(c->tail_cap);
        if (!c->ring) {
            c->write_errno = ENOMEM;
            c->dropped += n;
            return;
        }
    }
    if (n >= c->tail_cap) {
        c->dropped += c->ring_len + (n - c->tail_cap);
        memcpy(c->ring, buf + (n - c->tail_cap), c->tail_cap);
        c->ring_start = 0;
        c->ring_len = c->tail_cap;
        return;
    }
    if (c->ring_len + n > c->tail_cap) {
        size_t over = c->ring_len + n - c->tail_cap;
        c->dropped += over;
        c->ring_start = (c->ring_start + over) % c->tail_cap;
        c->ring_len -= over;
    }
    size_t pos = (c->ring_start + c->ring_len) % c->tail_cap;
    size_t first = c->tail_cap - pos < n ? c->tail_cap - pos : n;
    memcpy(c->ring + pos, buf, first);
    memcpy(c->ring, buf + first, n - first);
    c->ring_len += n;
}

void pm_run_capture_feed(capture *c, const char *buf, size_t n)
{
    c->total += n;
    if (c->fd < 0)
        return;
    size_t room = c->head_cap - c->head_len, take = n < room ? n : room;
    capture_write(c, buf, take);
    c->head_len += take;
    if (take < n)
        ring_push(c, buf + take, n - take);
}

void pm_run_capture_finish(capture *c)
{
    if (c->fd >= 0 && c->ring_len > 0) {
        size_t first = c->tail_cap - c->ring_start;
        if (first > c->ring_len)
            first = c->ring_len;
        capture_write(c, c->ring + c->ring_start, first);
        capture_write(c, c->ring, c->ring_len - first);
    }
    free(c->ring);
    c->ring = NULL;
    pm_run_close_fd(&c->fd);
}
