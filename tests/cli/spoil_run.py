"""Ways to spoil a copy of a finished run directory, for
test_untrusted.py's CASES (untrusted_cases.py): edit a cell's field or a
column's name, tear the last line, plant links, FIFOs and wrapped
numbers, spoil the bins and histogram files, make a twin cell. Each
takes RUN (and TMP, the tree around it, where it may put what a link
points at)."""

import json
import os
import shutil


def edit_cells(run, fn, line=1):
    """fn(head, row) edits the header and data line `line` (1: the
    first row)."""
    path = os.path.join(run, "cells.csv")
    with open(path) as f:
        lines = f.read().split("\n")
    head = lines[0].split(",")
    row = lines[line].split(",")
    fn(head, row)
    lines[0] = ",".join(head)
    lines[line] = ",".join(row)
    with open(path, "w") as f:
        f.write("\n".join(lines))


def header_only(run):
    """cells.csv cut to its header: every row gone, meta.json kept."""
    path = os.path.join(run, "cells.csv")
    with open(path) as f:
        head = f.readline()
    with open(path, "w") as f:
        f.write(head)


def rename_column(name, to):
    return lambda head, row: head.__setitem__(head.index(name), to)


def tear_last_line(run):
    """A finished run's last row cut in half, as a kill would leave it."""
    path = os.path.join(run, "cells.csv")
    with open(path) as f:
        text = f.read()
    with open(path, "w") as f:
        f.write(text[:len(text) - len(text.splitlines()[-1]) // 2 - 1])


def link_folder_out(run, tmp, name):
    """RUN/NAME replaced by a link to a copy of it outside the run."""
    shutil.copytree(os.path.join(run, name), os.path.join(tmp, "out-" + name))
    shutil.rmtree(os.path.join(run, name))
    os.symlink(os.path.join(tmp, "out-" + name), os.path.join(run, name))


def set_field(name, value):
    return lambda head, row: row.__setitem__(head.index(name), value)


def edit_meta(run, fn):
    path = os.path.join(run, "meta.json")
    with open(path) as f:
        meta = json.load(f)
    fn(meta)
    with open(path, "w") as f:
        json.dump(meta, f)


def edit_topology(run, fn):
    edit_meta(run, lambda m: fn(m["machine"]["topology"]))


def fifo(path):
    os.remove(path)
    os.mkfifo(path)


def wrapped_hist(run):
    # two buckets whose counts add up to count only modulo 2^64
    write_hist(run, "# count=1 sum=10 min=10 max=11",
               ["10,10,%d" % 2 ** 63, "11,11,%d" % (2 ** 63 + 1)])


def write_hist(run, head, rows):
    """Cell 0's histogram file: its count line and bucket rows."""
    with open(os.path.join(run, "hist", "cell-0000.csv"), "w") as f:
        f.write("".join(l + "\n" for l in [head, "low_ns,high_ns,count"] +
                        rows))


BINS0 = os.path.join("bins", "cell-0000-rep-000.csv")


def edit_bins(fn):
    """Cell 0's first bins file, its lines edited by fn."""
    def spoil(run, tmp):
        path = os.path.join(run, BINS0)
        with open(path) as f:
            lines = f.read().splitlines()
        with open(path, "w") as f:
            f.write("".join(l + "\n" for l in fn(lines)))
    return spoil


def set_bin(row, col, value):
    """Field col (0 end_ns, 1 ops) of data row `row` of a bins file."""
    def fn(lines):
        f = lines[2 + row].split(",")
        f[col] = value
        lines[2 + row] = ",".join(f)
        return lines
    return fn


def add_to_bin(lines, k):
    f = lines[2].split(",")
    lines[2] = "%s,%d" % (f[0], int(f[1]) + k)
    return lines


def replace_bins(run, tmp, how):
    path = os.path.join(run, BINS0)
    if how == "symlink":
        shutil.copy(path, os.path.join(tmp, "out-bins.csv"))
        os.remove(path)
        os.symlink(os.path.join(tmp, "out-bins.csv"), path)
    elif how == "directory":
        os.remove(path)
        os.mkdir(path)
    elif how == "fifo":
        fifo(path)
    elif how == "empty":
        open(path, "w").close()


def twin_run(run, tmp):
    """TMP/twin: the run with a second cell of cell 0's very setup (two
    [experiment] sections of one workload and settings make one)."""
    twin = os.path.join(tmp, "twin")
    shutil.copytree(run, twin)
    path = os.path.join(twin, "cells.csv")
    with open(path) as f:
        lines = f.read().splitlines()
    head = lines[0].split(",")
    extra = []
    for line in lines[1:]:
        row = line.split(",")
        row[head.index("cell")] = "1"
        row[head.index("hist")] = "hist/cell-0001.csv"
        extra.append(",".join(row))
    with open(path, "w") as f:
        f.write("\n".join(lines + extra) + "\n")
    shutil.copy(os.path.join(twin, "hist", "cell-0000.csv"),
                os.path.join(twin, "hist", "cell-0001.csv"))

    def count_twin(meta):
        # meta.json counts the cells cells.csv has
        meta["cells"]["total"] += 1
        meta["cells"]["ok"] += 1
        meta["cells_reps"].append(dict(meta["cells_reps"][0], cell=1))
    edit_meta(twin, count_twin)


def no_plots(run, tmp):
    """A refused --timeline wrote no plot before it was refused."""
    plots = os.path.join(run, "plots")
    left = os.listdir(plots) if os.path.isdir(plots) else []
    return ["plots written before the refusal: %s" % left] if left else []


def plant_symlink(run, tmp):
    os.makedirs(os.path.join(run, "plots"), exist_ok=True)
    for ext in ("gp", "png", "svg"):
        os.symlink(os.path.join(tmp, "victim." + ext),
                   os.path.join(run, "plots", "mutex-throughput." + ext))
