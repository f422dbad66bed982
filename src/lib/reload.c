/*
 * reload.c - the jobtree.conf and budget set in force, and reloading it
 * (see jobtree/reload.h): owns "keep the last good set when the new one is
 * bad" and the lines that say so, in memory and (jt_reload_keep_file) on
 * disk, so a new process starts from it. Parsing is config.c and budget*.c.
 *
 * DESIGN: the kept copy is the text of every file of the good set, as
 * read (jobtree.conf, each budget file with its path), in one JSON file
 * replaced atomically (temporary file, fsync, rename, fsync of the
 * directory) after each reload that replaced a part. Read back only by a
 * holder with nothing in force for a part that failed to load (Slurm
 * 24.11's `scontrol reconfigure` execs a new slurmctld), through the same
 * parsers as the files themselves, so it is checked as they are; the
 * budget files also against the SHA-256 recorded beside them.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "jobtree/readfile.h"
#include "jobtree/reload.h"
#include "util/sha256.h"

#define KEEP_FORMAT "jobtree-last-good/1"

/* One file of the good set, as it was read. */
struct kept_file {
    char *path;
    char *text;                 /* NULL: jobtree.conf was missing (defaults) */
    size_t len;
};

struct jt_reload {
    jt_config_t *conf;
    jt_budgets_t *budgets;
    char budget_error[JT_ERRMSG_MAX];
    uint64_t gen;
    char *keep_path;            /* NULL: memory only */
    bool conf_good;             /* conf came from a good load, conf_file holds it */
    bool budgets_kept;          /* budget_files hold the budgets in force */
    struct kept_file conf_file;
    struct kept_file *budget_files;     /* the budgets in force, as read */
    size_t nbudget_files;
};

static void kept_files_free (struct kept_file *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free (v[i].path);
        free (v[i].text);
    }
    free (v);
}

jt_reload_t *jt_reload_create (void)
{
    jt_reload_t *rl = calloc (1, sizeof (*rl));

    if (rl)
        snprintf (rl->budget_error, sizeof (rl->budget_error),
                  "budgets not loaded yet");
    return rl;
}

void jt_reload_destroy (jt_reload_t *rl)
{
    int saved = errno;

    if (!rl)
        return;
    jt_config_destroy (rl->conf);
    jt_budgets_destroy (rl->budgets);
    free (rl->keep_path);
    free (rl->conf_file.path);
    free (rl->conf_file.text);
    kept_files_free (rl->budget_files, rl->nbudget_files);
    free (rl);
    errno = saved;
}

const jt_config_t *jt_reload_conf (const jt_reload_t *rl)
{
    return rl ? rl->conf : NULL;
}

const jt_budgets_t *jt_reload_budgets (const jt_reload_t *rl)
{
    return rl ? rl->budgets : NULL;
}

const char *jt_reload_budget_error (const jt_reload_t *rl)
{
    return rl ? rl->budget_error : "no configuration holder";
}

uint64_t jt_reload_gen (const jt_reload_t *rl)
{
    return rl ? rl->gen : 0;
}

void jt_reload_result_free (jt_reload_result_t *res)
{
    if (!res)
        return;
    for (size_t i = 0; i < res->nlines; i++)
        free (res->lines[i].text);
    free (res->lines);
    res->lines = NULL;
    res->nlines = 0;
}

/* Append a line (dropped silently on ENOMEM: losing a log line must not
 * lose the reload). */
static void say (jt_reload_result_t *res, jt_reload_level_t level,
                 const char *fmt, ...) __attribute__ ((format (printf, 3, 4)));
static void say (jt_reload_result_t *res, jt_reload_level_t level,
                 const char *fmt, ...)
{
    jt_reload_line_t *v;
    va_list ap;
    char *text = NULL;
    int n;

    va_start (ap, fmt);
    n = vsnprintf (NULL, 0, fmt, ap);
    va_end (ap);
    if (n < 0 || !(text = malloc ((size_t) n + 1)))
        return;
    va_start (ap, fmt);
    vsnprintf (text, (size_t) n + 1, fmt, ap);
    va_end (ap);
    if (!(v = realloc (res->lines, (res->nlines + 1) * sizeof (*v)))) {
        free (text);
        return;
    }
    res->lines = v;
    res->lines[res->nlines].level = level;
    res->lines[res->nlines++].text = text;
}

static void say_diags (jt_reload_result_t *res, const jt_diags_t *d)
{
    for (size_t i = 0; i < d->n; i++) {
        char line[1024];
        jt_diag_format (&d->v[i], line, sizeof (line));
        say (res, JT_RELOAD_ERROR, "%s", line);
    }
}

/* ---- the kept copy on disk ---- */

/* The kept copy as read back: which parts it holds. */
struct keep {
    bool read;                  /* read_keep ran (at most once per jt_reload) */
    bool have_conf;
    struct kept_file conf;
    bool have_budgets;
    struct kept_file *files;
    size_t nfiles;
};

static void keep_clear (struct keep *k)
{
    free (k->conf.path);
    free (k->conf.text);
    kept_files_free (k->files, k->nfiles);
    memset (k, 0, sizeof (*k));
}

static int dup_file (struct kept_file *dst, const char *path, const char *text,
                     size_t len)
{
    memset (dst, 0, sizeof (*dst));
    if (!(dst->path = strdup (path)))
        return -1;
    if (text) {
        if (!(dst->text = malloc (len + 1))) {
            free (dst->path);
            dst->path = NULL;
            return -1;
        }
        memcpy (dst->text, text, len);
        dst->text[len] = '\0';
        dst->len = len;
    }
    return 0;
}

/* A string member of o: 0 (NULL when null and null_ok), -1 otherwise. */
static int get_str (json_object *o, const char *key, bool null_ok,
                    const char **s, size_t *len)
{
    json_object *v;

    *s = NULL;
    if (len)
        *len = 0;
    if (!json_object_object_get_ex (o, key, &v))
        return -1;
    if (!v)
        return null_ok ? 0 : -1;
    if (!json_object_is_type (v, json_type_string))
        return -1;
    *s = json_object_get_string (v);
    if (len)
        *len = (size_t) json_object_get_string_len (v);
    return 0;
}

/* Read rl->keep_path into *k. A missing file is no copy; anything else
 * wrong is a line naming the file and the field, and no copy. */
static void read_keep (jt_reload_t *rl, struct keep *k, jt_reload_result_t *res)
{
    const char *kp = rl->keep_path;
    json_tokener *tok = NULL;
    json_object *top = NULL, *v;
    const char *s, *why = NULL;
    char *text = NULL, where[64] = "";
    size_t len = 0;
    jt_error_t err;
    struct stat st;

    k->read = true;
    if (!kp)
        return;
    if (stat (kp, &st) < 0) {
        if (errno != ENOENT)
            say (res, JT_RELOAD_ERROR, "%s: cannot read the last good set: %s", kp,
                 strerror (errno));
        return;
    }
    if (st.st_size > JT_RELOAD_KEEP_MAX) {
        say (res, JT_RELOAD_ERROR, "%s: %lld bytes, more than the %d a last good set "
             "may have: not used", kp, (long long) st.st_size, JT_RELOAD_KEEP_MAX);
        return;
    }
    if (!(text = jt_read_file (kp, &len, &err))) {
        say (res, JT_RELOAD_ERROR, "%s: %s", kp, err.text);
        return;
    }
    if (len > JT_RELOAD_KEEP_MAX)
        why = "grew past its size limit while read";
    else if (!(tok = json_tokener_new ()))
        why = "out of memory";
    else if (!(top = json_tokener_parse_ex (tok, text, (int) len))
             || json_tokener_get_error (tok) != json_tokener_success
             || json_tokener_get_parse_end (tok) != len)
        why = "not a JSON document (truncated?)";
    else if (!json_object_is_type (top, json_type_object))
        why = "not a JSON object";
    else if (get_str (top, "format", false, &s, NULL) < 0 || strcmp (s, KEEP_FORMAT) != 0)
        snprintf (where, sizeof (where), "format"), why = "not " KEEP_FORMAT;
    if (why)
        goto bad;

    /* conf: null, or {"path": "...", "text": "..." or null (missing: defaults)} */
    if (!json_object_object_get_ex (top, "conf", &v)) {
        snprintf (where, sizeof (where), "conf"), why = "missing";
        goto bad;
    }
    if (v) {
        const char *p, *t;
        size_t tl;
        if (!json_object_is_type (v, json_type_object)
            || get_str (v, "path", false, &p, NULL) < 0 || !*p
            || get_str (v, "text", true, &t, &tl) < 0) {
            snprintf (where, sizeof (where), "conf"),
                why = "expected {\"path\": string, \"text\": string or null}";
            goto bad;
        }
        if (dup_file (&k->conf, p, t, tl) < 0) {
            why = "out of memory";
            goto bad;
        }
        k->have_conf = true;
    }

    /* budgets: null, or [{"path": "...", "text": "...", "sha256": "..."}] */
    if (!json_object_object_get_ex (top, "budgets", &v)) {
        snprintf (where, sizeof (where), "budgets"), why = "missing";
        goto bad;
    }
    if (v) {
        size_t n;
        if (!json_object_is_type (v, json_type_array)) {
            snprintf (where, sizeof (where), "budgets"), why = "expected an array or null";
            goto bad;
        }
        n = json_object_array_length (v);
        if (n > JT_RELOAD_KEEP_FILES_MAX) {
            snprintf (where, sizeof (where), "budgets"), why = "too many files";
            goto bad;
        }
        if (n && !(k->files = calloc (n, sizeof (*k->files)))) {
            why = "out of memory";
            goto bad;
        }
        for (size_t i = 0; i < n; i++) {
            json_object *f = json_object_array_get_idx (v, i);
            const char *p, *t, *h;
            char sha[65];
            size_t tl;
            snprintf (where, sizeof (where), "budgets[%zu]", i);
            if (!json_object_is_type (f, json_type_object)
                || get_str (f, "path", false, &p, NULL) < 0 || !*p
                || get_str (f, "text", false, &t, &tl) < 0
                || get_str (f, "sha256", false, &h, NULL) < 0) {
                why = "expected {\"path\", \"text\", \"sha256\"} strings";
                goto bad;
            }
            if (jt_sha256_hex (t, tl, sha) < 0 || strcmp (sha, h) != 0) {
                why = "its text does not match its sha256";
                goto bad;
            }
            if (dup_file (&k->files[i], p, t, tl) < 0) {
                why = "out of memory";
                goto bad;
            }
            k->nfiles = i + 1;
        }
        k->have_budgets = true;
    }
    json_object_put (top);
    json_tokener_free (tok);
    free (text);
    return;
bad:
    say (res, JT_RELOAD_ERROR, "%s: %s%s%s: the last good set kept there is not used",
         kp, where, where[0] ? ": " : "", why);
    json_object_put (top);
    json_tokener_free (tok);
    free (text);
    keep_clear (k);
    k->read = true;
}

/* Write fd fully, fsync it, close it. 0 or -1 (errno). */
static int write_sync_close (int fd, const char *buf, size_t len)
{
    int saved;

    while (len > 0) {
        ssize_t w = write (fd, buf, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            goto fail;
        buf += w;
        len -= (size_t) w;
    }
    if (fsync (fd) < 0)
        goto fail;
    return close (fd);
fail:
    saved = errno ? errno : EIO;
    close (fd);
    errno = saved;
    return -1;
}

static json_object *file_json (const struct kept_file *f, bool with_sha)
{
    json_object *o;
    char sha[65];

    if (f->len > JT_RELOAD_KEEP_MAX || !(o = json_object_new_object ()))
        return NULL;
    if (json_object_object_add (o, "path", json_object_new_string (f->path)) < 0
        || json_object_object_add (o, "text", f->text ? json_object_new_string_len (
                                       f->text, (int) f->len) : NULL) < 0
        || (with_sha && (jt_sha256_hex (f->text, f->len, sha) < 0
                         || json_object_object_add (o, "sha256",
                                                    json_object_new_string (sha)) < 0))) {
        json_object_put (o);
        return NULL;
    }
    return o;
}

/* The good parts in force, to rl->keep_path, atomically: a temporary
 * file beside it, fsync, rename, fsync of the directory. 0 or -1 with err. */
static int write_keep (jt_reload_t *rl, jt_error_t *err)
{
    const char *kp = rl->keep_path;
    json_object *top = json_object_new_object (), *a = NULL, *c = NULL;
    const char *text;
    char *tmp = NULL, *dir = NULL, *slash;
    int fd = -1, rc = -1;

    if (!top)
        goto nomem;
    if (rl->conf_good && !(c = file_json (&rl->conf_file, false)))
        goto nomem;
    if (rl->budgets_kept) {
        if (!(a = json_object_new_array ()))
            goto nomem;
        for (size_t i = 0; i < rl->nbudget_files; i++) {
            json_object *f = file_json (&rl->budget_files[i], true);
            if (!f || json_object_array_add (a, f) < 0) {
                json_object_put (f);
                goto nomem;
            }
        }
    }
    if (json_object_object_add (top, "format", json_object_new_string (KEEP_FORMAT)) < 0
        || json_object_object_add (top, "conf", c) < 0)
        goto nomem;
    c = NULL;
    if (json_object_object_add (top, "budgets", a) < 0)
        goto nomem;
    a = NULL;
    if (!(text = json_object_to_json_string_ext (top, JSON_C_TO_STRING_PLAIN
                                                 | JSON_C_TO_STRING_NOSLASHESCAPE)))
        goto nomem;
    if (strlen (text) > JT_RELOAD_KEEP_MAX) {
        jt_errprintf (err, "the good set is larger than the %d bytes a kept copy may "
                      "have", JT_RELOAD_KEEP_MAX);
        goto done;
    }
    if (!(tmp = malloc (strlen (kp) + 5)))
        goto nomem;
    sprintf (tmp, "%s.tmp", kp);
    if ((fd = open (tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) < 0
        || write_sync_close (fd, text, strlen (text)) < 0) {
        jt_errprintf (err, "%s: %s", tmp, strerror (errno));
        unlink (tmp);
        goto done;
    }
    if (rename (tmp, kp) < 0) {
        jt_errprintf (err, "rename %s to %s: %s", tmp, kp, strerror (errno));
        unlink (tmp);
        goto done;
    }
    if (!(dir = strdup (kp)))
        goto nomem;
    slash = strrchr (dir, '/');
    if (slash)
        *(slash == dir ? slash + 1 : slash) = '\0';
    if ((fd = open (slash ? dir : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0
        || fsync (fd) < 0) {
        jt_errprintf (err, "fsync of %s: %s", slash ? dir : ".", strerror (errno));
        if (fd >= 0)
            close (fd);
        goto done;
    }
    close (fd);
    rc = 0;
    goto done;
nomem:
    jt_errprintf (err, "out of memory");
done:
    json_object_put (a);
    json_object_put (c);
    json_object_put (top);
    free (tmp);
    free (dir);
    return rc;
}

int jt_reload_keep_file (jt_reload_t *rl, const char *path, jt_error_t *err)
{
    char *p = NULL;

    if (!rl)
        return jt_errprintf (err, "no configuration holder");
    if (path && (!*path || strlen (path) > JT_RELOAD_KEEP_PATH_MAX))
        return jt_errprintf (err, "last good set: path empty or longer than %d",
                             JT_RELOAD_KEEP_PATH_MAX);
    if (path && !(p = strdup (path)))
        return jt_errprintf (err, "out of memory");
    free (rl->keep_path);
    rl->keep_path = p;
    return 0;
}

const char *jt_reload_keep_path (const jt_reload_t *rl)
{
    return rl ? rl->keep_path : NULL;
}

/* ---- reloading ---- */

/* A configuration from a file's text (NULL: the file is missing, the
 * defaults). NULL on error (diags say why). */
static jt_config_t *conf_from_text (const char *path, const char *text, size_t len,
                                    jt_diags_t *d)
{
    jt_config_t *c = jt_config_create ();

    if (!c) {
        jt_diags_add (d, path, 0, 0, NULL, "out of memory");
        return NULL;
    }
    if (!text)
        return c;
    if (jt_config_parse (c, path, text, len, d) < 0)
        goto fail;
    if (!(c->file = strdup (path))) {
        jt_diags_add (d, path, 0, 0, NULL, "out of memory");
        goto fail;
    }
    return c;
fail:
    jt_config_destroy (c);
    return NULL;
}

/* Put conf (read from f) in force. */
static void set_conf (jt_reload_t *rl, jt_config_t *conf, struct kept_file *f)
{
    jt_config_destroy (rl->conf);
    rl->conf = conf;
    free (rl->conf_file.path);
    free (rl->conf_file.text);
    rl->conf_file = *f;
    memset (f, 0, sizeof (*f));
    rl->conf_good = true;
}

/* jobtree.conf: the new one, else the last good one (in memory, else kept
 * on disk), else the defaults. Returns 0 loaded, -1 kept (or no
 * configuration at all: ENOMEM). */
static int reload_conf (jt_reload_t *rl, const char *path, struct keep *k,
                        jt_reload_result_t *res)
{
    struct kept_file f = { NULL, NULL, 0 };
    jt_config_t *conf = NULL;
    jt_diags_t d;
    jt_error_t err;

    jt_diags_init (&d);
    if (!path)
        jt_diags_add (&d, NULL, 0, 0, NULL, "no path");
    else if (!(f.text = jt_read_file (path, &f.len, &err)) && errno != ENOENT)
        jt_diags_add (&d, path, 0, 0, NULL, "%s", err.text);
    else if ((conf = conf_from_text (path, f.text, f.len, &d))
             && !(f.path = strdup (path))) {
        jt_diags_add (&d, path, 0, 0, NULL, "out of memory");
        jt_config_destroy (conf);
        conf = NULL;
    }
    if (conf) {
        set_conf (rl, conf, &f);
        res->changed |= JT_RELOAD_CONFIG;
    } else {
        say_diags (res, &d);
        free (f.path);
        free (f.text);
        memset (&f, 0, sizeof (f));
        if (!rl->conf && !k->read)
            read_keep (rl, k, res);
        if (!rl->conf && k->have_conf) {
            jt_diags_t kd;
            jt_config_t *kc;
            jt_diags_init (&kd);
            kc = conf_from_text (k->conf.path, k->conf.text, k->conf.len, &kd);
            if (kc && dup_file (&f, k->conf.path, k->conf.text, k->conf.len) == 0) {
                set_conf (rl, kc, &f);
                res->changed |= JT_RELOAD_CONFIG;
                say (res, JT_RELOAD_ERROR, "%s has errors: keeping the last good "
                     "configuration (%s, kept in %s)", path ? path : "(no path)",
                     k->conf.path, rl->keep_path);
            } else {
                jt_config_destroy (kc);
                say_diags (res, &kd);
                say (res, JT_RELOAD_ERROR, "%s: its last good configuration does not "
                     "load: not used", rl->keep_path);
            }
            jt_diags_free (&kd);
        }
        if (!(res->changed & JT_RELOAD_CONFIG))
            say (res, JT_RELOAD_ERROR, "%s has errors: keeping the %s configuration",
                 path ? path : "(no path)", rl->conf ? "previous" : "default");
        res->kept |= JT_RELOAD_CONFIG;
        if (!rl->conf && (rl->conf = jt_config_create ()))
            res->changed |= JT_RELOAD_CONFIG;
    }
    free (f.path);
    free (f.text);
    jt_diags_free (&d);
    if (!rl->conf) {
        say (res, JT_RELOAD_ERROR, "out of memory: no configuration");
        snprintf (rl->budget_error, sizeof (rl->budget_error), "out of memory");
        return -1;
    }
    return conf ? 0 : -1;
}

/* The files of a budget set just loaded, as read: each file again, checked
 * against the SHA-256 the load recorded. 0, or -1 when one changed (or
 * vanished) since: then the set in force is not kept on disk this time. */
static int budget_texts (const jt_budgets_t *b, struct kept_file **out, size_t *nout)
{
    struct kept_file *v = b->n ? calloc (b->n, sizeof (*v)) : NULL;
    size_t n = 0;

    if (b->n && !v)
        return -1;
    for (size_t i = 0; i < b->n; i++) {
        const jt_budget_t *bud = &b->v[i];
        char sha[65];
        if (!bud->file || !bud->sha256[0]
            || !(v[n].text = jt_read_file (bud->file, &v[n].len, NULL))
            || jt_sha256_hex (v[n].text, v[n].len, sha) < 0
            || strcmp (sha, bud->sha256) != 0 || !(v[n].path = strdup (bud->file))) {
            free (v[n].text);
            kept_files_free (v, n);
            return -1;
        }
        n++;
    }
    *out = v;
    *nout = n;
    return 0;
}

/* A budget set from kept files, through the budget reader. */
static jt_budgets_t *budgets_from_kept (const struct keep *k, jt_diags_t *d)
{
    jt_budgets_t *b = jt_budgets_create ();
    int rc = b ? 0 : -1;

    for (size_t i = 0; i < k->nfiles && rc == 0; i++)
        rc = jt_budgets_add_json (b, k->files[i].path, k->files[i].text,
                                  k->files[i].len, d);
    if (rc == 0 && b)
        rc = jt_budgets_finalize (b, d);
    if (rc < 0) {
        jt_budgets_destroy (b);
        return NULL;
    }
    return b;
}

/* The budget directory of the configuration in force, all or nothing.
 * Returns 0 loaded, -1 kept. */
static int reload_budgets (jt_reload_t *rl, struct keep *k, jt_reload_result_t *res)
{
    const char *dir = rl->conf->budget_dir;
    jt_diags_t d;
    jt_budgets_t *b;
    int rc = 0;

    jt_diags_init (&d);
    b = jt_budgets_load_dir (dir, &d);
    if (b) {
        struct kept_file *v = NULL;
        size_t n = 0;
        jt_budgets_destroy (rl->budgets);
        rl->budgets = b;
        rl->budget_error[0] = '\0';
        res->changed |= JT_RELOAD_BUDGETS;
        say (res, JT_RELOAD_INFO, "loaded %zu budget file(s), %zu envelope(s) from %s",
             b->n, b->nenv, dir);
        if (rl->keep_path && budget_texts (b, &v, &n) == 0) {
            kept_files_free (rl->budget_files, rl->nbudget_files);
            rl->budget_files = v;
            rl->nbudget_files = n;
            rl->budgets_kept = true;
        } else if (rl->keep_path) {
            say (res, JT_RELOAD_ERROR, "a budget file in %s changed while it was "
                 "read: %s keeps the previous set until the next reload", dir,
                 rl->keep_path);
        }
    } else {
        say_diags (res, &d);
        if (!rl->budgets && !k->read)
            read_keep (rl, k, res);
        if (!rl->budgets && k->have_budgets) {
            jt_diags_t kd;
            jt_diags_init (&kd);
            if ((rl->budgets = budgets_from_kept (k, &kd))) {
                kept_files_free (rl->budget_files, rl->nbudget_files);
                rl->budget_files = k->files;
                rl->nbudget_files = k->nfiles;
                rl->budgets_kept = true;
                k->files = NULL;
                k->nfiles = 0;
                k->have_budgets = false;
                rl->budget_error[0] = '\0';
                res->changed |= JT_RELOAD_BUDGETS;
                say (res, JT_RELOAD_ERROR, "budget directory %s has errors: keeping the "
                     "last good budgets (%zu owner(s)), kept in %s", dir, rl->budgets->n,
                     rl->keep_path);
            } else {
                say_diags (res, &kd);
                say (res, JT_RELOAD_ERROR, "%s: its last good budgets do not load: not "
                     "used", rl->keep_path);
            }
            jt_diags_free (&kd);
        } else if (rl->budgets) {
            say (res, JT_RELOAD_ERROR, "budget directory %s has errors: keeping the "
                 "last good budgets (%zu owner(s))", dir, rl->budgets->n);
        }
        if (!rl->budgets) {
            char first[200] = "";
            if (d.n > 0)
                jt_diag_format (&d.v[0], first, sizeof (first));
            say (res, JT_RELOAD_ERROR, "budget directory %s has errors: no budgets "
                 "loaded", dir);
            snprintf (rl->budget_error, sizeof (rl->budget_error),
                      "no valid budgets in %s (%s)", dir, first[0] ? first : "unreadable");
        }
        res->kept |= JT_RELOAD_BUDGETS;
        rc = -1;
    }
    jt_diags_free (&d);
    return rc;
}

int jt_reload (jt_reload_t *rl, const char *conf_path, jt_reload_result_t *res)
{
    struct keep k;
    int rc;

    memset (res, 0, sizeof (*res));
    memset (&k, 0, sizeof (k));
    if (!rl) {
        res->kept = JT_RELOAD_CONFIG | JT_RELOAD_BUDGETS;
        say (res, JT_RELOAD_ERROR, "no configuration holder");
        return -1;
    }
    rc = reload_conf (rl, conf_path, &k, res);
    if (rl->conf && reload_budgets (rl, &k, res) < 0)
        rc = -1;
    else if (!rl->conf)
        res->kept |= JT_RELOAD_BUDGETS;
    keep_clear (&k);
    if (res->changed)
        rl->gen++;
    res->gen = rl->gen;
    if (res->changed && rl->keep_path && (rl->conf_good || rl->budgets_kept)) {
        jt_error_t err;
        if (write_keep (rl, &err) < 0)
            say (res, JT_RELOAD_ERROR, "cannot keep the last good set in %s: %s "
                 "(a new slurmctld would start without it)", rl->keep_path, err.text);
    }
    return rc;
}
