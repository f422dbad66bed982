/*
 * table.c - the rows of `jobtree report` printed with sacct's habits (see
 * table.h): -o FIELD[%WIDTH] parsed against a table's fields, a table
 * whose identifiers widen to their longest value unless a width is given,
 * -p/-P pipes, -n without the header, --json.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <json-c/json.h>

#include "cli.h"
#include "table.h"

int table_parse_format (const struct table *t, const char *spec, struct col *cols,
                        size_t *ncols)
{
    char *s = strdup (spec), *save = NULL;
    *ncols = 0;
    if (!s) {
        fprintf (stderr, "jobtree report: out of memory\n");
        return -1;
    }
    for (char *tok = strtok_r (s, ",", &save); tok; tok = strtok_r (NULL, ",", &save)) {
        char *pct = strchr (tok, '%');
        int width = -1;
        if (pct) {
            *pct = '\0';
            char *end;
            long w = strtol (pct + 1, &end, 10);
            if (*end || w < 1 || w > 1000) {
                fprintf (stderr, "jobtree report: bad width in '%s%%%s'\n", tok,
                         pct + 1);
                free (s);
                return -1;
            }
            width = (int) w;
        }
        size_t f;
        for (f = 0; f < t->nfields; f++)
            if (!strcasecmp (t->fields[f].name, tok))
                break;
        if (f == t->nfields) {
            fprintf (stderr, "jobtree report: unknown field '%s'; fields:", tok);
            for (f = 0; f < t->nfields; f++)
                fprintf (stderr, " %s", t->fields[f].name);
            fprintf (stderr, "\n");
            free (s);
            return -1;
        }
        cols[*ncols].field = (int) f;
        cols[*ncols].width = width > 0 ? width : t->fields[f].width;
        cols[*ncols].given = width > 0;
        (*ncols)++;
    }
    free (s);
    return *ncols ? 0 : -1;
}


static void print_cell (const char *s, int width, bool right)
{
    int len = (int) strlen (s);
    if (len > width)
        printf ("%.*s+", width - 1, s); /* sacct marks truncation with '+' */
    else
        printf (right ? "%*s" : "%-*s", width, s);
}

/* A K_ID column without a given width widens to its longest value. */
static void fit_ids (const struct table *t, struct col *cols, size_t ncols,
                     const void *const *rows, size_t nrows)
{
    char buf[4096];
    for (size_t c = 0; c < ncols; c++) {
        if (cols[c].given || t->fields[cols[c].field].kind != K_ID)
            continue;
        for (size_t r = 0; r < nrows; r++) {
            t->get (rows[r], cols[c].field, buf, sizeof (buf));
            size_t len = strlen (buf);
            if (len > (size_t) cols[c].width)
                cols[c].width = (int) len;
        }
    }
}

/* Print the rows; -1 on ENOMEM (JSON only). */
int table_print_rows (const struct table *t, struct col *cols, size_t ncols,
                       const void *const *rows, size_t nrows, enum mode m, bool header)
{
    char buf[4096];
    if (m == M_TABLE)
        fit_ids (t, cols, ncols, rows, nrows);
    if (m == M_JSON) {
        json_object *a = json_object_new_array ();
        if (!a)
            return -1;
        for (size_t r = 0; r < nrows; r++) {
            json_object *o = json_object_new_object ();
            if (!o || json_object_array_add (a, o) < 0) {
                json_object_put (o);
                json_object_put (a);
                return -1;
            }
            for (size_t c = 0; c < ncols; c++) {
                const struct field *f = &t->fields[cols[c].field];
                t->get (rows[r], cols[c].field, buf, sizeof (buf));
                json_object *v = f->kind == K_NUM
                                     ? (strchr (buf, '.')
                                            ? json_object_new_double_s (atof (buf), buf)
                                            : json_object_new_int64 (atoll (buf)))
                                     : json_object_new_string (buf);
                if (!v || json_object_object_add (o, f->name, v) < 0) {
                    json_object_put (v);
                    json_object_put (a);
                    return -1;
                }
            }
        }
        printf ("%s\n", json_object_to_json_string_ext (
                            a, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED
                                   | JSON_C_TO_STRING_NOSLASHESCAPE));
        json_object_put (a);
        return 0;
    }
    if (header) {
        for (size_t c = 0; c < ncols; c++) {
            const struct field *f = &t->fields[cols[c].field];
            if (m == M_TABLE) {
                print_cell (f->name, cols[c].width, f->kind == K_NUM);
                printf (c + 1 < ncols ? " " : "\n");
            } else
                printf ("%s%s", f->name, c + 1 < ncols || m == M_PIPE ? "|" : "");
        }
        if (m != M_TABLE)
            printf ("\n");
        else
            for (size_t c = 0; c < ncols; c++) {
                for (int i = 0; i < cols[c].width; i++)
                    putchar ('-');
                printf (c + 1 < ncols ? " " : "\n");
            }
    }
    for (size_t r = 0; r < nrows; r++) {
        for (size_t c = 0; c < ncols; c++) {
            const struct field *f = &t->fields[cols[c].field];
            t->get (rows[r], cols[c].field, buf, sizeof (buf));
            if (m == M_TABLE) {
                print_cell (buf, cols[c].width, f->kind == K_NUM);
                printf (c + 1 < ncols ? " " : "\n");
            } else
                printf ("%s%s", buf, c + 1 < ncols || m == M_PIPE ? "|" : "");
        }
        if (m != M_TABLE)
            printf ("\n");
    }
    return 0;
}
