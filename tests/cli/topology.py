"""test_cli.py's cases of machines: the distance table `list` prints and
meta.json and the report carry, and the synthetic machines of
tests/topologies/ that `list --topology` shows and `matrix --estimate
--topology` plans the default matrix for (their bad inputs are golden
files: list-topology-*, matrix-*topology*, matrix-estimate-*)."""

import json
import os
import re
import shutil
import tempfile

# fixture: CPUs, nodes, packages, one node's CPUs, one package's CPUs,
# node 0's distances, the default matrix's mutex thread list
FIXTURES = [
    ("2cpu-1node", 2, 1, 1, 2, 2, [10], "1,2,4"),
    ("64cpu-4node", 64, 4, 2, 16, 32, [10, 12, 32, 32],
     "1,2,4,8,16,32,64,128"),
    ("112cpu-2node", 112, 2, 2, 56, 56, [10, 32],
     "1,2,4,8,16,32,64,128,224,56,112"),
    ("256cpu-8node", 256, 8, 2, 32, 128, [10, 12, 12, 12, 32, 32, 32, 32],
     "1,2,4,8,16,32,64,128,256,512"),
]


def fixture(name):
    return os.path.join("tests", "topologies", name + ".xml")


def list_topology(futexlab, run, check):
    for name, cpus, nodes, packages, ncpus, pcpus, row0, _ in FIXTURES:
        problems = []
        r = run([futexlab, "list", "--topology", fixture(name)])
        want = ["  cpus           %d, %d NUMA node(s), %d package(s)"
                % (cpus, nodes, packages),
                "  thread words   cpus = %d, node-cpus = %d, package-cpus "
                "= %d" % (cpus, ncpus, pcpus),
                "       0" + "".join(" %3d" % d for d in row0)]
        if r is None or r.returncode != 0 or r.stderr:
            problems.append("list --topology: %r" % (r and r.stderr))
        else:
            for line in want:
                if line not in r.stdout.splitlines():
                    problems.append("no line %r in:\n%s" % (line, r.stdout))
        r = run([futexlab, "list", "--json", "--topology", fixture(name)])
        try:
            topo = json.loads(r.stdout)["topology"]
            if topo["cpus"] != cpus or len(topo["node_cpus"]) != nodes or \
                    topo["numa_distances"][0] != row0 or \
                    len(topo["numa_distances"]) != nodes:
                problems.append("list --json --topology: %r" % topo)
        except (AttributeError, ValueError, KeyError, TypeError) as e:
            problems.append("list --json --topology: %s" % e)
        check("list --topology " + name, problems)


def estimate_topology(futexlab, run, check):
    results = tempfile.mkdtemp(prefix="fl-cli-")
    try:
        for name, cpus, nodes, packages, *_, threads in FIXTURES:
            problems = []
            r = run([futexlab, "matrix", "matrix/default.ini", "--estimate",
                     "--topology", fixture(name), "--results", results])
            if r is None or r.returncode != 0 or r.stderr:
                problems.append("exit %s: %r" % (r and r.returncode,
                                                 r and r.stderr))
            else:
                out = r.stdout
                if not re.search(r"^  \[experiment mutex\] threads %s: \d+ "
                                 r"cells x 6 repetitions$" % threads, out,
                                 re.M):
                    problems.append("mutex's threads are not %s:\n%s"
                                    % (threads, out))
                if "%d CPUs, %d NUMA node(s), %d package(s)" % (
                        cpus, nodes, packages) not in out:
                    problems.append("the machine is not named:\n" + out)
                if not re.search(r"^\d+ cells in 7 experiment\(s\), \d+ "
                                 r"repetitions at least: about \d+:\d\d:\d\d "
                                 r"\(estimated\)$", out, re.M) or \
                        not re.search(r"^time budget 140 s: ", out, re.M):
                    problems.append("no estimate or budget line:\n" + out)
            if os.listdir(results):
                problems.append("it ran something: %s"
                                % os.listdir(results))
            check("matrix --estimate --topology " + name, problems)
    finally:
        shutil.rmtree(results, ignore_errors=True)


def estimate_here(futexlab, run, check):
    """Without --topology the plan is this machine's, the same thread list
    as the cells `matrix --list` shows."""
    problems = []
    r = run([futexlab, "matrix", "matrix/default.ini", "--estimate"])
    listed = run([futexlab, "matrix", "matrix/default.ini", "--list"])
    if r is None or listed is None or r.returncode or listed.returncode:
        check("matrix --estimate here", ["failed: %r" % (r and r.stderr)])
        return
    m = re.search(r"^  \[experiment mutex\] threads ([\d,]+): ", r.stdout,
                  re.M)
    threads = []
    for line in listed.stdout.splitlines():
        f = line.split()
        if len(f) > 4 and f[1] == "mutex" and int(f[4]) not in threads:
            threads.append(int(f[4]))
    if not m or [int(t) for t in m.group(1).split(",")] != threads:
        problems.append("estimate %r, --list %r" % (m and m.group(1),
                                                    threads))
    check("matrix --estimate here", problems)


def distances_here(futexlab, run, check):
    """list shows this machine's table; a run records it in meta.json and
    the report shows it, or says it is unknown when meta.json has none."""
    problems = []
    r = run([futexlab, "list"])
    if r is None or "  numa distances" not in r.stdout:
        problems.append("list prints no distance table")
    results = tempfile.mkdtemp(prefix="fl-cli-")
    try:
        r = run([futexlab, "run", "mutex", "--threads", "1", "--duration",
                 "0.05", "--reps", "1", "--warmup", "0", "--results",
                 results])
        run_dir = r.stdout.strip().splitlines()[-1] if r and r.stdout else ""
        meta_path = os.path.join(run_dir, "meta.json")
        with open(meta_path) as f:
            meta = json.load(f)
        topo = meta["machine"]["topology"]
        table = topo.get("numa_distances")
        if topo["numa_available"] and (
                not table or len(table) != topo["numa_nodes"] or
                any(len(row) != len(table) or row[i] != 10
                    for i, row in enumerate(table))):
            problems.append("meta.json's table %r for %d nodes"
                            % (table, topo["numa_nodes"]))
        report = os.path.join(run_dir, "report.md")
        r = run([futexlab, "report", run_dir])
        with open(report) as f:
            text = f.read()
        if table and "| NUMA distances | node 0: %d" % table[0][0] \
                not in text:
            problems.append("the report shows no distance table")
        del topo["numa_distances"]
        with open(meta_path, "w") as f:
            json.dump(meta, f)
        r = run([futexlab, "report", run_dir])
        with open(report) as f:
            if r.returncode or "| NUMA distances | unknown" not in f.read():
                problems.append("a run without the table: exit %d, no "
                                "'unknown' row" % r.returncode)
    except (OSError, ValueError, KeyError, IndexError, AttributeError) as e:
        problems.append("%s: %s" % (type(e).__name__, e))
    finally:
        shutil.rmtree(results, ignore_errors=True)
    check("distance table in list, meta.json and the report", problems)


def topology_cases(futexlab, run, check):
    distances_here(futexlab, run, check)
    list_topology(futexlab, run, check)
    estimate_topology(futexlab, run, check)
    estimate_here(futexlab, run, check)
