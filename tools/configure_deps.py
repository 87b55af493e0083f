"""The Debian packages configure.py needs: checked, and with
--install-deps apt-got (configure.py's PACKAGES, ENGINE_PACKAGES and the
module's DEB_PACKAGES say which)."""

import os
import shutil
import subprocess
import sys


def have_header(header):
    probe = "#include <%s>\n" % header
    r = subprocess.run(["cc", "-E", "-x", "c", "-", "-o", os.devnull],
                       input=probe.encode(), stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    return r.returncode == 0


def have_tool(name):
    """On PATH, or in /usr/sbin (a daemon, for a user whose PATH lacks
    it)."""
    return (shutil.which(name) is not None
            or os.access(os.path.join("/usr/sbin", name), os.X_OK))


def have_deb(pkg):
    """dpkg says the package is installed (a library with no header or
    program of its own to look for)."""
    try:
        r = subprocess.run(["dpkg-query", "-W", "-f", "${Status}", pkg],
                           capture_output=True, text=True)
    except OSError:
        return False
    return r.returncode == 0 and "install ok installed" in r.stdout


def missing_packages(packages):
    missing = []
    for pkg, check in packages:
        kind, what = check.split(":", 1)
        if kind == "tool":
            ok = have_tool(what)
        elif kind == "dpkg":
            ok = have_deb(what)
        else:
            ok = shutil.which("cc") is not None and have_header(what)
        if not ok:
            missing.append((pkg, check))
    return missing


def install_packages(names):
    if not names:
        return
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    print("configure: apt-get install %s" % " ".join(names), flush=True)
    subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
    subprocess.run(["apt-get", "install", "-y", "-qq",
                    "--no-install-recommends"] + names, check=True, env=env)



def check_packages(packages, engine_packages, install, kmod_part):
    """Check the packages, the engines' among them, installing the missing
    ones first with install. Every one is required: a test fails where a
    program it needs is missing (README.md, "Tests"). Says on stderr what
    is missing; returns whether the build can go on."""
    packages = list(packages) + list(engine_packages)
    if kmod_part:
        packages += [(p, "deb:" + p) for p in kmod_part.DEB_PACKAGES]
    host = [p for p in packages if not p[1].startswith("deb:")]
    missing = missing_packages(host)
    if install:
        install_packages([p for p, _ in missing])
        if kmod_part:
            kmod_part.install_deps()
        missing = missing_packages(host)
    if missing:
        for pkg, check in missing:
            kind, what = check.split(":", 1)
            print("configure: missing %s %s: install the Debian package %s"
                  % (kind, what, pkg), file=sys.stderr)
        print("configure: or run ./configure.py --install-deps (as root)",
              file=sys.stderr)
        return False
    return True
