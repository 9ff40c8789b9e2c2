#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Runs the package's pytest suite and closes with the project's line
"N passed, N failed[, N skipped]"; --tap also prints TAP (one "ok N name"
line per test) for the VM's verdict. Exit status: 0 only when no test
failed and at least one ran. Other arguments go to pytest."""

import os
import sys

import pytest


class Tally:
    def __init__(self):
        self.outcome = {}  # nodeid -> (kind, reason), the worst of its phases
        self.order = []

    def pytest_runtest_logreport(self, report):
        if report.nodeid not in self.outcome:
            self.order.append(report.nodeid)
            self.outcome[report.nodeid] = ("PASS", "")
        kind, _ = self.outcome[report.nodeid]
        if report.failed:
            self.outcome[report.nodeid] = ("FAIL", report.when)
        elif report.skipped and kind == "PASS":
            reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else ""
            self.outcome[report.nodeid] = ("SKIP", reason)

    def pytest_collectreport(self, report):
        if report.failed:  # a file that does not import is a failure, not silence
            self.order.append(report.nodeid or "collection")
            self.outcome[self.order[-1]] = ("FAIL", "collection")


def main(argv):
    tap = "--tap" in argv
    args = [a for a in argv if a != "--tap"]
    tally = Tally()
    here = os.path.dirname(os.path.abspath(__file__))
    paths = [] if any(os.path.exists(a.split("::")[0]) for a in args) else [here]
    rc = pytest.main(["-q", "-p", "no:cacheprovider", "-rfEs"] + paths + args, plugins=[tally])
    counts = {"PASS": 0, "FAIL": 0, "SKIP": 0}
    for i, nodeid in enumerate(tally.order, 1):
        kind, reason = tally.outcome[nodeid]
        counts[kind] += 1
        name = nodeid.replace(" ", "_")
        if tap:
            print("%s %d %s%s" % ("not ok" if kind == "FAIL" else "ok", i, name,
                                  " # SKIP " + reason if kind == "SKIP" else ""))
        else:
            print("%s %s%s" % (kind, name, " (%s)" % reason if reason else ""))
    if tap:
        print("1..%d" % len(tally.order))
    line = "%d passed, %d failed" % (counts["PASS"], counts["FAIL"])
    if counts["SKIP"]:
        line += ", %d skipped" % counts["SKIP"]
    print(line)
    failed = counts["FAIL"] or rc not in (0, 5) or not (counts["PASS"] + counts["SKIP"])
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
