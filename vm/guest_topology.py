"""The guest's NUMA topology as QEMU arguments: the vCPUs and memory
split evenly over the nodes, the nodes over two sockets when there are
more than one, and the node distance table (the guest's SLIT). What
cannot be built this way is refused with a one-line reason (Refused),
which vm/run prints before it exits 2."""

import os
import re


class Refused(Exception):
    """A topology or distance table vm/run cannot build; str() says why
    in one line."""


# the default two-level table: a two-socket AMD EPYC in NPS4 (SLIT 10
# local, 12 within the socket, 32 across)
NEAR_DISTANCE = 12
FAR_DISTANCE = 32
MAX_NODES = 64      # what the numa workload can name


def sockets_of(nodes):
    """Two sockets for a NUMA guest (half the nodes each), else one."""
    return 2 if nodes > 1 else 1


def default_distances(nodes):
    """The two-level table for more than two nodes; None (QEMU's own
    10/20) for one or two, so the default guest stays as it was."""
    if nodes <= 2:
        return None
    half = nodes // sockets_of(nodes)
    return [[10 if a == b else NEAR_DISTANCE if a // half == b // half
             else FAR_DISTANCE for b in range(nodes)]
            for a in range(nodes)]


def read_distances(path, nodes):
    """The table in path (N lines of N numbers), or Refused naming the
    first thing wrong with it."""
    where = "--distances %s" % path
    if not os.path.isfile(path):
        # a FIFO or a device could block the read: regular files only
        raise Refused("%s: not a regular file" % where)
    try:
        with open(path) as f:
            text = f.read(65536)
    except (OSError, UnicodeDecodeError) as e:
        raise Refused("%s: cannot read it (%s)"
                      % (where, getattr(e, "strerror", None) or e))
    rows = []
    for n, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].split()
        if not line:
            continue
        if not all(re.fullmatch(r"[0-9]{1,3}", v) for v in line):
            raise Refused("%s:%d: not a row of distances (whole numbers)"
                          % (where, n))
        if len(line) != nodes:
            raise Refused("%s:%d: %d distances, want one per node (%d)"
                          % (where, n, len(line), nodes))
        rows.append([int(v) for v in line])
    if len(rows) != nodes:
        raise Refused("%s: %d rows, want one per node (%d)"
                      % (where, len(rows), nodes))
    for a in range(nodes):
        for b in range(nodes):
            d = rows[a][b]
            if a == b and d != 10:
                raise Refused("%s: node %d to itself is %d, must be 10"
                              % (where, a, d))
            if a != b and not 10 < d <= 255:
                raise Refused("%s: node %d to %d is %d, must be 11-255"
                              % (where, a, b, d))
            if d != rows[b][a]:
                raise Refused("%s: not symmetric: node %d to %d is %d, "
                              "%d to %d is %d"
                              % (where, a, b, d, b, a, rows[b][a]))
    return rows


def check_topology(nodes, cpus, mem_mb):
    """Refused, in one line, if the guest cannot be built this way."""
    if not 1 <= nodes <= MAX_NODES:
        raise Refused("--nodes %d: want 1 to %d" % (nodes, MAX_NODES))
    if cpus < 1 or cpus % nodes:
        raise Refused("--cpus %d: want a positive multiple of --nodes (%d)"
                      % (cpus, nodes))
    if nodes > 1 and nodes % 2:
        raise Refused("--nodes %d: the nodes split over two sockets, so "
                      "want an even number (or 1)" % nodes)
    if mem_mb // nodes < 64:
        raise Refused("--memory %d: %d MiB a node; want at least 64 MiB "
                      "for each of %d nodes"
                      % (mem_mb, mem_mb // nodes, nodes))


def machine_args(nodes, cpus, mem_mb):
    """-m and -smp: the memory whole nodes hold, the sockets and cores."""
    sockets = sockets_of(nodes)
    return ["-m", "%dM" % (mem_mb // nodes * nodes),
            "-smp", "%d,sockets=%d,cores=%d,threads=1"
            % (cpus, sockets, cpus // sockets)]


def numa_args(nodes, cpus, mem_mb, distances):
    """-object and -numa: node i holds CPUs i*M/N to (i+1)*M/N-1 and its
    share of the memory; then the table's entries off the diagonal."""
    per_node = mem_mb // nodes
    per = cpus // nodes
    args = []
    for i in range(nodes):
        args += ["-object", "memory-backend-ram,id=m%d,size=%dM"
                 % (i, per_node),
                 "-numa", "node,nodeid=%d,cpus=%d-%d,memdev=m%d"
                 % (i, i * per, i * per + per - 1, i)]
    for a, row in enumerate(distances or []):
        for b, d in enumerate(row):
            if a != b:
                args += ["-numa", "dist,src=%d,dst=%d,val=%d" % (a, b, d)]
    return args
