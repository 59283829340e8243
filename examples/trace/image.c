/*
 * image.c - rp_trace's output: a binary PPM, or a PNG through libpng when
 * the build found it (RPT_HAVE_PNG).  The format comes from the file name
 * (.png, .ppm or .pnm).  No partial file is ever left at the path: the
 * image goes to a temporary file created beside it (PATH.XXXXXX, so the
 * same directory and file system) before the render starts - an unwritable
 * path fails at once - and is renamed over PATH only once it is completely
 * written and closed; any failure, SIGINT or SIGTERM removes it.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef RPT_HAVE_PNG
#include <png.h>
#include <setjmp.h>
#endif

#include "trace.h"

int rt_have_png(void) {
#ifdef RPT_HAVE_PNG
    return 1;
#else
    return 0;
#endif
}

/* the temporary file the signal handler removes */
static char sig_tmp[4096];
static volatile sig_atomic_t sig_armed;

static void on_signal(int sig) {
    if (sig_armed)
        unlink(sig_tmp);
    signal(sig, SIG_DFL);
    raise(sig);
}

static int ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), m = strlen(suffix);
    return n > m && strcasecmp(s + n - m, suffix) == 0;
}

int rt_output_open(rt_output *o, const char *path, rt_err *e) {
    memset(o, 0, sizeof *o);
    o->fd = -1;
    if (ends_with(path, ".png")) {
        if (!rt_have_png())
            return rt_fail(e, "cannot write '%s': rp_trace was built without libpng "
                              "(install libpng-dev and rebuild), write a .ppm instead", path);
        o->format = RT_PNG;
    } else if (ends_with(path, ".ppm") || ends_with(path, ".pnm")) {
        o->format = RT_PPM;
    } else {
        return rt_fail(e, "cannot write '%s': unknown image format (the name must end in .png or .ppm)",
                       path);
    }
    size_t n = strlen(path);
    if (n + 8 > sizeof sig_tmp)
        return rt_fail(e, "cannot write '%s': path too long", path);
    o->path = malloc(n + 1);
    o->tmp_path = malloc(n + 8);
    if (!o->path || !o->tmp_path) {
        rt_output_abort(o);
        return rt_fail(e, "out of memory");
    }
    memcpy(o->path, path, n + 1);
    snprintf(o->tmp_path, n + 8, "%s.XXXXXX", path);
    o->fd = mkstemp(o->tmp_path);
    if (o->fd < 0) {
        int err = errno;
        rt_output_abort(o);
        return rt_fail(e, "cannot write '%s': %s", path, strerror(err));
    }
    /* mkstemp makes it 0600; give the image the usual 0666 & ~umask */
    mode_t mask = umask(0);
    umask(mask);
    if (fchmod(o->fd, 0666 & ~mask) != 0) {
        int err = errno;
        rt_output_abort(o);
        return rt_fail(e, "cannot write '%s': %s", path, strerror(err));
    }
    memcpy(sig_tmp, o->tmp_path, strlen(o->tmp_path) + 1);
    sig_armed = 1;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    return 0;
}

void rt_output_abort(rt_output *o) {
    sig_armed = 0;
    if (o->fd >= 0)
        close(o->fd);
    if (o->tmp_path && o->fd >= 0)
        unlink(o->tmp_path);
    free(o->path);
    free(o->tmp_path);
    memset(o, 0, sizeof *o);
    o->fd = -1;
}

static int write_ppm(FILE *f, const uint8_t *rgb, int w, int h) {
    size_t npix = (size_t)w * (size_t)h;
    if (fprintf(f, "P6\n%d %d\n255\n", w, h) < 0)
        return -1;
    return fwrite(rgb, 3, npix, f) == npix ? 0 : -1;
}

#ifdef RPT_HAVE_PNG
typedef struct png_err {
    jmp_buf jmp;
    char msg[200];
} png_err;

static void png_on_error(png_structp png, png_const_charp msg) {
    png_err *pe = png_get_error_ptr(png);
    snprintf(pe->msg, sizeof pe->msg, "%s", msg);
    longjmp(pe->jmp, 1);
}

static void png_on_warning(png_structp png, png_const_charp msg) {
    (void)png;
    (void)msg;
}

static int write_png(FILE *f, const uint8_t *rgb, int w, int h, rt_err *e, const char *path) {
    png_err pe;
    pe.msg[0] = '\0';
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &pe, png_on_error, png_on_warning);
    if (!png)
        return rt_fail(e, "cannot write '%s': png_create_write_struct failed", path);
    png_infop info = png_create_info_struct(png);
    if (!info) {
        png_destroy_write_struct(&png, NULL);
        return rt_fail(e, "cannot write '%s': png_create_info_struct failed", path);
    }
    if (setjmp(pe.jmp)) {
        png_destroy_write_struct(&png, &info);
        return rt_fail(e, "cannot write '%s': libpng: %s", path, pe.msg);
    }
    png_init_io(png, f);
    png_set_IHDR(png, info, (png_uint_32)w, (png_uint_32)h, 8, PNG_COLOR_TYPE_RGB,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (int y = 0; y < h; y++)
        png_write_row(png, rgb + 3 * (size_t)w * (size_t)y);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    return 0;
}
#endif

int rt_output_commit(rt_output *o, const uint8_t *rgb, int w, int h, rt_err *e) {
    FILE *f = fdopen(o->fd, "wb");
    if (!f) {
        int err = errno;
        rt_output_abort(o);
        return rt_fail(e, "cannot write '%s': %s", o->path ? o->path : "?", strerror(err));
    }
    int rc;
    errno = 0;
#ifdef RPT_HAVE_PNG
    if (o->format == RT_PNG) {
        rc = write_png(f, rgb, w, h, e, o->path);
        if (rc == 0 && ferror(f))
            rc = rt_fail(e, "cannot write '%s': %s", o->path, strerror(errno ? errno : EIO));
    } else
#endif
    {
        rc = write_ppm(f, rgb, w, h);
        if (rc)
            rt_fail(e, "cannot write '%s': %s", o->path, strerror(errno ? errno : EIO));
    }
    if (fclose(f) != 0 && rc == 0)
        rc = rt_fail(e, "cannot write '%s': %s", o->path, strerror(errno));
    o->fd = -1; /* closed by fclose */
    if (rc == 0 && rename(o->tmp_path, o->path) != 0)
        rc = rt_fail(e, "cannot write '%s': %s", o->path, strerror(errno));
    sig_armed = 0;
    if (rc != 0)
        unlink(o->tmp_path);
    free(o->path);
    free(o->tmp_path);
    o->path = o->tmp_path = NULL;
    return rc;
}
