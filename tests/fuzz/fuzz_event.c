/* fuzz_event.c - one ledger event line as jobtree-ledgerd receives it,
 * and its canonical form read back. */
#include "config.h"

#include "jobtree/error.h"
#include "jobtree/ledger.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    jt_error_t err;
    jt_event_t *ev = jt_event_from_json ((const char *) data, size, &err);
    if (ev) {
        char *js = jt_event_to_json (ev, &err);
        if (js) {
            jt_event_t *back = jt_event_from_json (js, strlen (js), &err);
            if (!back)
                abort ();       /* the canonical form must read back */
            jt_event_destroy (back);
            free (js);
        }
    }
    jt_event_destroy (ev);
    return 0;
}
