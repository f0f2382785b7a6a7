#!/usr/bin/env python3
"""Give the guest kernel's mac80211 the mesh link-failure average of Linux 3.12 (paper 002's
kernel) instead of 6.1's.

Why: Linux 6.1 keeps, per mesh peer, an exponentially weighted failure average (weight 1/8)
that decays to exactly 0 after a long run of acknowledged frames; its EWMA helper treats 0 as
"no sample yet", so the next frame dropped at the retry limit sets the average to 100 and the
peer link is declared broken (every path through it torn down). Linux 3.12 instead counted
data frames only and moved the average a fifth of the way per frame,
avg <- (80 avg + 5) / 100 + 20 failed in integers, breaking the link above 95: from 0,
17 failures in a row.
This script rewrites the one statement that feeds the average and adds a small helper of our
own; the link-failure threshold (95), what a broken link does and the airtime metric, which
reads the same field, are left as 6.1 has them. It also adds a read-only module parameter,
``harness_variant``, so the harness can tell this module from the stock one in
/sys/module/mac80211/parameters.

Usage: edit.py <dir holding mac80211's sources>; fails (exit 1) when the 6.1 code it expects
is not there, so a kernel update cannot silently build an unedited module.
"""
from __future__ import annotations

import sys
from pathlib import Path

VARIANT = "fail-avg-3.12"

#: the statement of 6.1 that feeds a frame's outcome into the average, and the test after it
FEED = ("ewma_mesh_fail_avg_add(&sta->mesh->fail_avg, failed * 100);\n"
        "\tif (ewma_mesh_fail_avg_read(&sta->mesh->fail_avg) >")
FEED_312 = ("if (harness_fail_avg_312(sta, st, failed) &&\n"
            "\t    ewma_mesh_fail_avg_read(&sta->mesh->fail_avg) >")

#: the function whose body holds FEED; the helper goes right before it
ANCHOR = "void ieee80211s_update_metric("

HELPER = f"""/* Added by wifi-tcp-harness (vm/kmod/mac80211-fail-avg-3.12/edit.py). */
#include <linux/moduleparam.h>

static char *harness_variant = "{VARIANT}";
module_param(harness_variant, charp, 0444);
MODULE_PARM_DESC(harness_variant, "which harness edit of mac80211 this is");

/*
 * Linux 3.12's link-failure average: data frames only, a fifth of the way per frame.
 * The value (0..100) is kept in the EWMA's own field, scaled as the EWMA scales it, so every
 * reader of the average (the link-failure test, the airtime metric) sees it unchanged.
 * Returns whether the frame counted.
 */
static bool harness_fail_avg_312(struct sta_info *sta, struct ieee80211_tx_status *st,
\t\t\t\t int failed)
{{
\tconst struct ieee80211_hdr *hdr;
\tunsigned long avg;

\tif (st->skb) {{
\t\thdr = (const struct ieee80211_hdr *)st->skb->data;
\t\tif (!ieee80211_is_data(hdr->frame_control))
\t\t\treturn false;
\t}}
\tavg = ewma_mesh_fail_avg_read(&sta->mesh->fail_avg);
\tavg = (80 * avg + 5) / 100 + (failed ? 20 : 0);
\tsta->mesh->fail_avg.internal = avg << 20;  /* DECLARE_EWMA(mesh_fail_avg, 20, 8) */
\treturn true;
}}

"""

#: the EWMA's precision the helper's scaling assumes (sta_info.h)
PRECISION = "DECLARE_EWMA(mesh_fail_avg, 20, 8)"


def edit(tree: Path) -> None:
    hwmp = tree / "mesh_hwmp.c"
    sta_h = tree / "sta_info.h"
    text = hwmp.read_text()
    if PRECISION not in sta_h.read_text():
        raise SystemExit(f"edit.py: {sta_h} does not declare {PRECISION!r}: not the 6.1 code "
                         "this edit was written for")
    for needle in (FEED, ANCHOR):
        if text.count(needle) != 1:
            raise SystemExit(f"edit.py: {hwmp} holds {needle.splitlines()[0]!r} "
                             f"{text.count(needle)} times, expected once: not the 6.1 code "
                             "this edit was written for")
    text = text.replace(FEED, FEED_312).replace(ANCHOR, HELPER + ANCHOR)
    hwmp.write_text(text)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: edit.py <dir holding mac80211's sources>")
    edit(Path(sys.argv[1]))
