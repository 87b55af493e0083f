#!/usr/bin/env python3
"""Does one side stay ahead of the other, block after block? (docs/
statistics.md, "Where a build's pages fall".)

  python3 docs/notebook/block_signs.py CAMPAIGN_DIR [CAMPAIGN_DIR...]

Reads each visit campaign's manifest (campaign.json: every block's
figure of side A and side B, as the campaign judged them) and prints
a line a campaign: the median of the blocks' ratios B/A, how many
blocks had B above and below A (ties left out), and the two-sided
exact sign test's p for "above as often as below". On identical sides
whose visits are in random order within each block, the signs are
fair coins whatever the machine does between blocks: a small p says
something that stays with one side.
"""

import json
import math
import os
import statistics
import sys


def sign_p(above, below):
    n, k = above + below, min(above, below)
    return min(1.0, 2 * sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n)


def main(dirs):
    for d in dirs:
        with open(os.path.join(d, "campaign.json")) as f:
            blocks = json.load(f)["blocks"]
        x = [math.log(b["values"]["B"] / b["values"]["A"]) for b in blocks]
        above = sum(v > 0 for v in x)
        below = sum(v < 0 for v in x)
        print("%s: %d blocks of %s, median ratio B/A %.3f, B above %d, "
              "below %d, sign p %.2g" % (d, len(x), blocks[0]["figure"],
                                         math.exp(statistics.median(x)),
                                         above, below,
                                         sign_p(above, below)))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
