/* fuzz_event.c - one ledger event line as jobtree-ledgerd receives it,
 * its canonical form read back, and an Activation replayed (what every
 * fold, slurmctld's at a restart included, does with it). */
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
        if (ev->type == JT_EV_ACTIVATION) {
            jt_activation_t a;
            char why[256];
            if (jt_event_activation_replay (ev, &a, why, sizeof (why)) >= 0)
                jt_activation_free (&a);
        }
    }
    jt_event_destroy (ev);
    return 0;
}
