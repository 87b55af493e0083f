"""The guest's initramfs: busybox, an /init that mounts what the guest
needs, loads the module, runs the command and sends /fl/results back
over the second serial port, the module, the included paths under /fl
and the shared libraries their ELF files need."""

import io
import os
import re
import stat
import subprocess
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Cpio:
    """A newc archive built in memory: directories, files, symlinks."""

    def __init__(self):
        self.entries = {}

    def add_dir(self, name):
        name = name.strip("/")
        parts = name.split("/")
        for i in range(1, len(parts) + 1):
            d = "/".join(parts[:i])
            if d and d not in self.entries:
                self.entries[d] = (stat.S_IFDIR | 0o755, b"")

    def add_file(self, name, data, mode=0o644):
        name = name.strip("/")
        self.add_dir(os.path.dirname(name))
        self.entries[name] = (stat.S_IFREG | mode, data)

    def add_symlink(self, name, target):
        name = name.strip("/")
        self.add_dir(os.path.dirname(name))
        self.entries[name] = (stat.S_IFLNK | 0o777, target.encode())

    def write(self, out):
        def pad(n):
            return b"\0" * ((4 - n % 4) % 4)

        ino = 1
        mtime = int(time.time())
        for name in sorted(self.entries, key=lambda n: (n.count("/"), n)):
            mode, data = self.entries[name]
            self._entry(out, ino, name, mode, data, mtime, pad)
            ino += 1
        self._entry(out, 0, "TRAILER!!!", 0, b"", 0, pad)

    @staticmethod
    def _entry(out, ino, name, mode, data, mtime, pad):
        nb = name.encode() + b"\0"
        hdr = "070701" + "".join("%08X" % v for v in (
            ino, mode, 0, 0, 2 if stat.S_ISDIR(mode) else 1, mtime,
            len(data), 0, 0, 0, 0, len(nb), 0))
        out.write(hdr.encode() + nb + pad(110 + len(nb)))
        out.write(data + pad(len(data)))


def is_elf(path):
    try:
        with open(path, "rb") as f:
            return f.read(4) == b"\x7fELF"
    except OSError:
        return False


def shared_libs(path):
    """Absolute paths of the libraries ldd lists (none for static files)."""
    r = subprocess.run(["ldd", path], capture_output=True, text=True)
    if r.returncode:
        return []       # "not a dynamic executable": fine
    libs = []
    for line in r.stdout.splitlines():
        m = re.search(r"=>\s*(/\S+)", line) or re.match(r"\s*(/\S+)", line)
        if m:
            libs.append(m.group(1))
    return libs


def guest_libs(files):
    """The shared libraries the ELF files among files need: what ldd
    lists, and libgcc_s.so.1 beside a libc that is there. glibc opens
    libgcc_s with dlopen when a thread exits or is cancelled (pthread_exit,
    pthread_cancel unwind its stack), which ldd cannot see; without it
    such a program aborts in the guest (status 134)."""
    libs = set()
    for f in files:
        if is_elf(f):
            libs.update(shared_libs(f))
    for lib in sorted(libs):
        if os.path.basename(lib).startswith("libc.so"):
            gcc_s = os.path.join(os.path.dirname(os.path.realpath(lib)),
                                 "libgcc_s.so.1")
            if os.path.exists(gcc_s):
                libs.add(os.path.join(os.path.dirname(lib),
                                      "libgcc_s.so.1"))
    return libs


INIT = r"""#!/bin/busybox sh
/bin/busybox mkdir -p /bin /sbin /usr/bin /usr/sbin /proc /sys /dev /tmp
/bin/busybox --install -s
export PATH=/fl/build:/bin:/sbin:/usr/bin:/usr/sbin
mount -t devtmpfs devtmpfs /dev
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t tmpfs tmpfs /tmp
hostname futexlab-vm
echo "FUTEXLAB-VM: guest $(uname -r), $(nproc) cpus, nodes: $(ls -d /sys/devices/system/node/node* 2>/dev/null | wc -l)"
export FUTEXLAB_GUEST=1 FUTEXLAB_KO=/lib/modules/futexlab.ko
# no perf events under TCG: their static key's int3 patching oopsed a
# guest in finish_task_switch (docs/measurement.md); schedstat still counts
export FUTEXLAB_PERF=off
if [ -f "$FUTEXLAB_KO" ] && [ ! -f /fl/.vm-no-module ]; then
	insmod "$FUTEXLAB_KO" || echo "FUTEXLAB-VM: insmod failed"
fi
cd /fl
mkdir -p /fl/results
echo "FUTEXLAB-VM-BEGIN"
sh /fl/.vm-command
rc=$?
echo "FUTEXLAB-VM-EXIT $rc"
if [ -n "$(ls -A /fl/results)" ]; then
	{
		echo FUTEXLAB-RESULTS-BEGIN
		tar -C /fl/results -czf - . | base64
		echo FUTEXLAB-RESULTS-END
	} > /dev/ttyS1
fi
sync
poweroff -f
"""


def pack_initramfs(vmdir, ko, includes, command, no_module, out):
    cpio = Cpio()
    cpio.add_file("bin/busybox", open("/bin/busybox", "rb").read(), 0o755)
    cpio.add_file("init", INIT.encode(), 0o755)
    if ko:
        cpio.add_file("lib/modules/futexlab.ko", open(ko, "rb").read())
    cpio.add_file("fl/.vm-command", (command + "\n").encode(), 0o644)
    if no_module:
        cpio.add_file("fl/.vm-no-module", b"")
    elves = []
    for inc in includes:
        path = os.path.join(ROOT, inc)
        if not os.path.exists(path):
            continue
        files = []
        if os.path.isdir(path):
            for dirpath, _, names in os.walk(path):
                for n in names:
                    files.append(os.path.join(dirpath, n))
        else:
            files.append(path)
        for f in files:
            rel = os.path.relpath(f, ROOT)
            if rel.endswith((".o", ".d")) or not os.path.isfile(f):
                continue
            mode = 0o755 if os.access(f, os.X_OK) else 0o644
            cpio.add_file("fl/" + rel, open(f, "rb").read(), mode)
            elves.append(f)
    for lib in sorted(guest_libs(elves)):
        cpio.add_file(lib, open(lib, "rb").read(), 0o755)
    raw = io.BytesIO()
    cpio.write(raw)
    with open(out + ".tmp", "wb") as f:
        r = subprocess.run(["gzip", "-1"], input=raw.getvalue(),
                           stdout=f, check=True)
        del r
    os.replace(out + ".tmp", out)
    return out
