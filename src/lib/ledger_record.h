/*
 * ledger_record.h - internal helpers shared by the ledger reader, writer and
 * tests (not public API).
 */
#ifndef JT_LEDGER_RECORD_H
#define JT_LEDGER_RECORD_H

#include <stddef.h>

/* True iff name is a segment file name ("ledger-<20 digits>.jtl"); its
 * number goes to *first. */
int jt_ledger_segment_name (const char *name, unsigned long long *first);

#endif /* JT_LEDGER_RECORD_H */
