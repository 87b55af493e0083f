"""The closing part the layout tests share: each case's line, then its
problems, then the counts line tests/run.py reads."""


def report(label, cases):
    """cases: [(name, [problem, ...])], a case passing with none.
    Prints them and `LABEL: N passed, N failed`; returns the exit status."""
    failed = sum(1 for _, problems in cases if problems)
    for name, problems in cases:
        print("%-7s %s" % ("not ok" if problems else "ok", name))
        print("".join("        %s\n" % p for p in problems), end="")
    print("%s: %d passed, %d failed" % (label, len(cases) - failed, failed))
    return 1 if failed else 0
