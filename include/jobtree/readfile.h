/*
 * readfile.h - read a whole file into memory: the one reader of budget,
 * run and snapshot files, jobtree.conf and the CLI's inputs.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JOBTREE_READFILE_H
#define JOBTREE_READFILE_H

#include <stddef.h>

#include "jobtree/error.h"

/* The contents of path as a NUL-terminated malloc'd buffer (caller frees);
 * *len (if len is not NULL) gets its length without the NUL. NULL on
 * failure with errno set (ENOENT, EISDIR, ENOMEM, ...) and the reason in
 * err: "cannot open: ...", "cannot read: ..." or "out of memory". */
char *jt_read_file (const char *path, size_t *len, jt_error_t *err);

#endif /* JOBTREE_READFILE_H */
