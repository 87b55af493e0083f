"""Real engines on this machine for the fleet tests: a single-node Slurm
cluster (munged, slurmctld, slurmd) and an sshd for GNU parallel, each
configured in a temporary directory, bound to 127.0.0.1 on ports checked
free, and stopped by the pids they wrote (docs/fleet.md, "Tests").

Every wait has a deadline; a daemon that does not come up raises
EngineError with its log's tail. Not a test itself: test_slurm.py and
test_parallel.py use it.
"""

import os
import shutil
import signal
import socket
import subprocess
import time


class EngineError(Exception):
    pass


def missing(tools):
    """The tools of tools that are not installed, for a skip's reason."""
    return [t for t in tools if not shutil.which(t) and
            not os.path.exists(os.path.join("/usr/sbin", t))]


def tool(name):
    return shutil.which(name) or os.path.join("/usr/sbin", name)


def free_port(preferred):
    """preferred if nothing listens there on 127.0.0.1, else one the
    kernel hands out (checked the same way)."""
    for port in (preferred, 0):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            s.bind(("127.0.0.1", port))
            return s.getsockname()[1]
        except OSError:
            continue
        finally:
            s.close()
    raise EngineError("no free port on 127.0.0.1")


def wait_for(what, cond, seconds, log=None):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if cond():
            return
        time.sleep(0.2)
    tail = ""
    if log and os.path.exists(log):
        with open(log, errors="replace") as f:
            tail = "".join(f.readlines()[-8:])
    raise EngineError("%s: not within %d s\n%s" % (what, seconds, tail))


def read_pid(path):
    try:
        with open(path) as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def stop_pid(path, seconds=10):
    """SIGTERM the pid in path, SIGKILL it after seconds."""
    pid = read_pid(path)
    if not pid:
        return
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.1)
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def run(cmd, seconds, env=None):
    return subprocess.run(cmd, capture_output=True, text=True,
                          timeout=seconds, env=env)


class SlurmCluster:
    """munged, slurmctld and slurmd for one node, localhost, in d."""

    TOOLS = ["munged", "slurmctld", "slurmd", "sbatch", "squeue", "sinfo"]

    def __init__(self, d):
        self.d = d
        self.conf = os.path.join(d, "slurm.conf")
        self.env = dict(os.environ, SLURM_CONF=self.conf)
        self.pids = []

    def _munge(self):
        # munged wants every folder above its socket searchable by all
        for p in (self.d, os.path.dirname(self.d)):
            os.chmod(p, os.stat(p).st_mode | 0o111)
        key = os.path.join(self.d, "munge.key")
        with open(key, "wb") as f:
            f.write(os.urandom(1024))
        os.chmod(key, 0o400)
        self.socket = os.path.join(self.d, "munge.socket")
        pid = os.path.join(self.d, "munged.pid")
        log = os.path.join(self.d, "munged.log")
        r = run([tool("munged"), "--key-file=" + key,
                 "--socket=" + self.socket, "--pid-file=" + pid,
                 "--log-file=" + log,
                 "--seed-file=" + os.path.join(self.d, "munge.seed")], 20)
        self.pids.insert(0, pid)
        if r.returncode:
            raise EngineError("munged: %s" % (r.stderr or r.stdout))
        wait_for("munged's socket", lambda: os.path.exists(self.socket),
                 10, log)

    def _write_conf(self):
        cpus = os.cpu_count() or 1
        with open("/proc/meminfo") as f:
            mem_kb = int(f.readline().split()[1])
        ctld, slurmd = free_port(16817), free_port(16818)
        if slurmd == ctld:
            slurmd = free_port(0)
        p = lambda name: os.path.join(self.d, name)   # noqa: E731
        for sub in ("state", "spool"):
            os.makedirs(p(sub), exist_ok=True)
        lines = [
            "ClusterName=futexlab-test",
            "SlurmctldHost=localhost(127.0.0.1)",
            "SlurmctldPort=%d" % ctld, "SlurmdPort=%d" % slurmd,
            "AuthType=auth/munge", "CredType=cred/munge",
            "AuthInfo=socket=%s" % self.socket,
            "SlurmUser=root", "SlurmdUser=root",
            "ProctrackType=proctrack/linuxproc", "TaskPlugin=task/none",
            "SelectType=select/cons_tres", "SelectTypeParameters=CR_Core",
            "AccountingStorageType=accounting_storage/none",
            "JobAcctGatherType=jobacct_gather/none",
            "MpiDefault=none", "ReturnToService=2",
            "StateSaveLocation=" + p("state"),
            "SlurmdSpoolDir=" + p("spool"),
            "SlurmctldPidFile=" + p("slurmctld.pid"),
            "SlurmdPidFile=" + p("slurmd.pid"),
            "SlurmctldLogFile=" + p("slurmctld.log"),
            "SlurmdLogFile=" + p("slurmd.log"),
            "NodeName=localhost NodeAddr=127.0.0.1 CPUs=%d RealMemory=%d "
            "State=UNKNOWN" % (cpus, max(1, mem_kb // 1024 - 512)),
            "PartitionName=test Nodes=localhost Default=YES "
            "MaxTime=INFINITE State=UP",
        ]
        with open(self.conf, "w") as f:
            f.write("\n".join(lines) + "\n")

    def start(self):
        self._munge()
        self._write_conf()
        for daemon, extra in (("slurmctld", ["-c"]), ("slurmd", [])):
            pid = os.path.join(self.d, daemon + ".pid")
            self.pids.insert(0, pid)
            r = run([tool(daemon), "-f", self.conf] + extra, 30,
                    env=self.env)
            if r.returncode:
                raise EngineError("%s: %s" % (daemon, r.stderr or r.stdout))
            wait_for(daemon + "'s pid file", lambda p=pid: read_pid(p), 20,
                     os.path.join(self.d, daemon + ".log"))

        def idle():
            r = run([tool("sinfo"), "-h", "-o", "%T"], 10, env=self.env)
            return r.returncode == 0 and "idle" in r.stdout
        wait_for("the node to be idle", idle, 60,
                 os.path.join(self.d, "slurmctld.log"))
        return self

    def stop(self):
        """slurmd, slurmctld, then munged, each by its pid file."""
        for pid in self.pids:
            stop_pid(pid)

    def sbatch(self, args, seconds=30):
        r = run([tool("sbatch"), "--parsable"] + args, seconds, env=self.env)
        if r.returncode:
            raise EngineError("sbatch: %s" % r.stderr)
        return r.stdout.strip().split(";")[0]

    def wait_job(self, job, seconds):
        def done():
            r = run([tool("squeue"), "-h", "-j", job, "-o", "%i"], 10,
                    env=self.env)
            return r.returncode == 0 and not r.stdout.strip()
        wait_for("job %s to end" % job, done, seconds,
                 os.path.join(self.d, "slurmctld.log"))


class Sshd:
    """An sshd on 127.0.0.1 taking a key this test generated."""

    TOOLS = ["sshd", "ssh", "ssh-keygen", "parallel"]

    def __init__(self, d):
        self.d = d
        self.pidfile = os.path.join(d, "sshd.pid")

    def start(self):
        os.chmod(self.d, 0o700)
        os.makedirs("/run/sshd", exist_ok=True)
        host = os.path.join(self.d, "host_key")
        self.key = os.path.join(self.d, "client_key")
        for k in (host, self.key):
            r = run([tool("ssh-keygen"), "-q", "-t", "ed25519", "-N", "",
                     "-f", k], 20)
            if r.returncode:
                raise EngineError("ssh-keygen: %s" % r.stderr)
        shutil.copy(self.key + ".pub",
                    os.path.join(self.d, "authorized_keys"))
        self.port = free_port(2222)
        log = os.path.join(self.d, "sshd.log")
        # -D keeps it in the foreground of its own process, which the
        # pid file names; Popen does not wait for it
        self.proc = subprocess.Popen(
            [tool("sshd"), "-D", "-p", str(self.port), "-h", host,
             "-o", "ListenAddress=127.0.0.1",
             "-o", "AuthorizedKeysFile=" + os.path.join(self.d,
                                                        "authorized_keys"),
             "-o", "PidFile=" + self.pidfile, "-o", "StrictModes=no",
             "-E", log], stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

        def answers():
            r = run(self.ssh_words() + ["true"], 10)
            return r.returncode == 0
        wait_for("sshd on port %d" % self.port, answers, 20, log)
        return self

    def ssh_words(self):
        return ["ssh", "-p", str(self.port), "-i", self.key,
                "-o", "StrictHostKeyChecking=no",
                "-o", "UserKnownHostsFile=" + os.path.join(self.d, "known"),
                "-o", "BatchMode=yes", "-o", "ConnectTimeout=10",
                "root@127.0.0.1"]

    def stop(self):
        stop_pid(self.pidfile)
        if getattr(self, "proc", None):
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
