#!/usr/bin/env python3
"""A side's build runs from a copy of its own, new for every visit.

  tests/cli/test_campaign_fresh_binary.py --builddir build [-k NAME] [-v]

  fresh_copy  a visit campaign whose side B is this futexlab behind a
              wrapper script that records the file it runs from (the
              kernel hands a script's interpreter /dev/fd/N, $0): every
              run of side B (each visit, then the run's finish) ran
              from an unnamed file (no link to it), not from
              builds/B/futexlab itself, and the campaign left nothing
              beside builds/B/futexlab; before, every visit ran
              builds/B/futexlab, whose pages stay where they are for
              the whole campaign (campaign/fresh_binary.c says why
              that matters)
No timing is asserted. Ends with `campaign_fresh_binary: N passed, N
failed`.
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "matrix"))
sys.dont_write_bytecode = True  # runs.py leaves no __pycache__
import runs  # noqa: E402
from runs import check  # noqa: E402
from test_campaign_idle_visit import wrapped_campaign  # noqa: E402
from test_campaign_visits import TINY  # noqa: E402

# the inode and link count of the file this script runs from, then
# futexlab as it would have run
WRAPPER = """#!/bin/sh
stat -L -c '%%i %%h' "$0" >> "%s"
exec "%s" "$@"
"""


def test_fresh_copy(tmp):
    log = os.path.join(tmp, "ran-from")
    cdir, _ = wrapped_campaign(tmp, WRAPPER % (log, os.path.abspath(runs.FL)),
                               TINY)
    with open(os.path.join(cdir, "campaign.json")) as f:
        blocks = len(json.load(f)["blocks"])
    with open(log) as f:
        ran = [line.split() for line in f.read().splitlines()]
    build = os.stat(os.path.join(cdir, "builds", "B", "futexlab"))
    # a run of B for every block, and one to finish its run
    check(blocks == 4 and len(ran) == blocks + 1,
          "%d blocks, side B ran %d times" % (blocks, len(ran)))
    for i, (ino, links) in enumerate(ran):
        check(int(ino) != build.st_ino and links == "0",
              "side B's run %d ran from inode %s with %s links; "
              "builds/B/futexlab is inode %d" % (i, ino, links,
                                                 build.st_ino))
    left = sorted(os.listdir(os.path.join(cdir, "builds", "B")))
    check(left == ["futexlab"], "builds/B holds %r" % left)


TESTS = [test_fresh_copy]

if __name__ == "__main__":
    sys.exit(runs.main(TESTS, "campaign_fresh_binary"))
