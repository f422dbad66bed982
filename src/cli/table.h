/*
 * table.h - sacct-style tables for `jobtree report` (table.c): each report
 * is a list of rows with named fields, printed by one formatter.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JT_CLI_TABLE_H
#define JT_CLI_TABLE_H

#include <stdbool.h>
#include <stddef.h>

enum kind { K_STR, K_NUM, K_ID }; /* K_ID: a string never cut by default */
struct field {
    const char *name;
    int width; /* the least width; a K_ID column widens to its values */
    enum kind kind;
};

typedef void (*getter_f) (const void *row, int field, char *buf, size_t len);

struct table {
    const struct field *fields;
    size_t nfields;
    const char *deflt;
    getter_f get;
};

struct col {
    int field;
    int width;
    bool given; /* -o FIELD%WIDTH: cut to it, as sacct does */
};

enum mode { M_TABLE, M_PIPE, M_PIPE_NOEND, M_JSON };

/* Parse -o's spec (FIELD[%WIDTH],...) against t into cols (*ncols of
 * them). 0, or -1 with the message printed. */
int table_parse_format (const struct table *t, const char *spec, struct col *cols,
                        size_t *ncols);

/* Print the rows; -1 on ENOMEM (JSON only). */
int table_print_rows (const struct table *t, struct col *cols, size_t ncols,
                      const void *const *rows, size_t nrows, enum mode m, bool header);

#endif /* JT_CLI_TABLE_H */
