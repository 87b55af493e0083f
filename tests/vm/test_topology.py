#!/usr/bin/env python3
"""vm/run's guest topology: --nodes N --cpus M split the CPUs and memory
evenly over the nodes and the nodes over two sockets, with a node
distance table handed to QEMU as -numa dist.

The QEMU command line is read, never run: the default guest (4 vCPUs, 2
nodes) is what it always was, with no -numa dist (QEMU's own 10/20); 8
nodes get the two-level default (10, 12 within a socket, 32 across); a
--distances file (a real machine's /sys/devices/system/node/node*/distance
rows) reaches QEMU entry for entry. A table or topology vm/run cannot
use (asymmetric, not 10 on the diagonal, out of range, the wrong size,
not a regular file; an odd node count, CPUs that do not divide, too
little memory) is refused before anything is fetched or booted: exit 2
and one line on stderr naming what is wrong.

  tests/vm/test_topology.py --builddir build
"""

import os
import sys
import tempfile

from vmtest import Cases, refusal_case, run_cases

cases = Cases()
check = cases.check


def flag_values(cmd, flag):
    return [cmd[i + 1] for i, a in enumerate(cmd[:-1]) if a == flag]


def dist_table(cmd):
    """{(src, dst): val} from the command's -numa dist entries."""
    table = {}
    for v in flag_values(cmd, "-numa"):
        if v.startswith("dist,"):
            kv = dict(p.split("=") for p in v.split(",")[1:])
            table[(int(kv["src"]), int(kv["dst"]))] = int(kv["val"])
    return table


def command(vm, nodes, cpus, mem=2048, distances="default"):
    if distances == "default":
        distances = vm.default_distances(nodes)
    return vm.qemu_command("vmlinuz", "initrd", "serial2", mem, nodes, cpus,
                           "", distances=distances)


def topology_cases(vm):
    cmd = command(vm, 2, 4, mem=1024)
    problems = []
    if flag_values(cmd, "-smp") != ["4,sockets=2,cores=2,threads=1"]:
        problems.append("-smp %r" % flag_values(cmd, "-smp"))
    if dist_table(cmd):
        problems.append("-numa dist given: %r" % dist_table(cmd))
    nodes = [v for v in flag_values(cmd, "-numa") if v.startswith("node,")]
    if nodes != ["node,nodeid=0,cpus=0-1,memdev=m0",
                 "node,nodeid=1,cpus=2-3,memdev=m1"]:
        problems.append("nodes %r" % nodes)
    check("the default guest: 4 vCPUs, 2 sockets, 2 nodes, QEMU's "
          "distances", problems)

    cmd = command(vm, 8, 32)
    problems = []
    if flag_values(cmd, "-smp") != ["32,sockets=2,cores=16,threads=1"]:
        problems.append("-smp %r" % flag_values(cmd, "-smp"))
    nodes = [v for v in flag_values(cmd, "-numa") if v.startswith("node,")]
    want = ["node,nodeid=%d,cpus=%d-%d,memdev=m%d" % (i, 4 * i, 4 * i + 3, i)
            for i in range(8)]
    if nodes != want:
        problems.append("nodes %r" % nodes)
    sizes = [v for v in flag_values(cmd, "-object") if "size=256M" in v]
    if len(sizes) != 8:
        problems.append("memory not 256M on each of 8 nodes: %r"
                        % flag_values(cmd, "-object"))
    table = dist_table(cmd)
    for a in range(8):
        for b in range(8):
            want = None if a == b else 12 if a // 4 == b // 4 else 32
            if table.get((a, b)) != want:
                problems.append("dist %d->%d is %r, want %r"
                                % (a, b, table.get((a, b)), want))
    check("8 nodes, 32 vCPUs: two sockets of four nodes at 12, 32 across",
          problems)

    cmd = command(vm, 1, 4, mem=1024)
    check("one node: one socket, no distances",
          [] if flag_values(cmd, "-smp") == ["4,sockets=1,cores=4,threads=1"]
          and not dist_table(cmd) else ["%r" % cmd])


def distances_file_case(vm):
    rows = ["10 16 16 22", "16 10 22 16", "16 22 10 16", "22 16 16 10"]
    with tempfile.TemporaryDirectory() as top:
        path = os.path.join(top, "slit")
        with open(path, "w") as f:
            f.write("# a four-socket square\n" + "\n".join(rows) + "\n")
        table = dist_table(command(vm, 4, 4, distances=vm.read_distances(
            path, 4)))
    problems = []
    for a in range(4):
        for b in range(4):
            want = None if a == b else int(rows[a].split()[b])
            if table.get((a, b)) != want:
                problems.append("dist %d->%d is %r, want %r"
                                % (a, b, table.get((a, b)), want))
    check("--distances FILE reaches QEMU entry for entry", problems)


def refused(name, args, want, builddir, table=None, make=None):
    """vm/run with args exits 2 with one stderr line containing want."""
    with tempfile.TemporaryDirectory() as top:
        path = os.path.join(top, "table")
        if table is not None:
            with open(path, "w") as f:
                f.write(table)
        if make:
            make(path)
        problems = refusal_case([a.replace("TABLE", path) for a in args],
                                builddir, [want])
    check(name, problems)


def refusal_cases(builddir):
    two = ["--nodes", "2", "--cpus", "2", "--distances", "TABLE"]
    refused("an asymmetric table", two, "not symmetric: node 0 to 1 is 21",
            builddir, "10 21\n20 10\n")
    refused("a node 11 from itself", two, "node 1 to itself is 11",
            builddir, "10 21\n21 11\n")
    refused("another node at 10", two, "node 0 to 1 is 10, must be 11-255",
            builddir, "10 10\n10 10\n")
    refused("a distance past 255", two, "node 0 to 1 is 256", builddir,
            "10 256\n256 10\n")
    refused("words in the table", two, "table:2: not a row", builddir,
            "10 21\n21 ten\n")
    refused("a negative distance", two, "not a row", builddir,
            "10 -21\n-21 10\n")
    refused("a short row", two, "1 distances, want one per node (2)",
            builddir, "10 21\n21\n")
    refused("a missing row", two, "1 rows, want one per node (2)",
            builddir, "10 21\n")
    refused("an empty table", two, "0 rows", builddir, "")
    refused("a table that is no file", two, "not a regular file", builddir,
            make=os.mkfifo)
    refused("a table that is a directory", two, "not a regular file",
            builddir, make=os.mkdir)
    refused("a table that is not there", two, "not a regular file",
            builddir)
    refused("an odd node count", ["--nodes", "3", "--cpus", "6"],
            "want an even number", builddir)
    refused("no nodes", ["--nodes", "0"], "--nodes 0: want 1 to 64",
            builddir)
    refused("65 nodes", ["--nodes", "66", "--cpus", "66"],
            "--nodes 66: want 1 to 64", builddir)
    refused("CPUs that do not divide", ["--nodes", "4", "--cpus", "6"],
            "--cpus 6: want a positive multiple of --nodes (4)", builddir)
    refused("too little memory a node", ["--nodes", "8", "--cpus", "8",
                                         "--memory", "256"],
            "32 MiB a node", builddir)


def host_cases(vm):
    topology_cases(vm)
    distances_file_case(vm)


def main():
    return run_cases(cases, "vm-topology", host_cases, refusal_cases)


if __name__ == "__main__":
    sys.exit(main())
