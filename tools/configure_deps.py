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


def missing_packages(packages):
    missing = []
    for pkg, check in packages:
        kind, what = check.split(":", 1)
        if kind == "tool":
            ok = shutil.which(what) is not None
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
    """Check the packages, installing the missing ones first with
    install; the engines' packages are optional (their tests skip). Says
    on stderr what is missing; returns whether the build can go on."""
    packages = list(packages)
    if kmod_part:
        packages += [(p, "deb:" + p) for p in kmod_part.DEB_PACKAGES]
    host_missing = missing_packages([p for p in packages
                                     if not p[1].startswith("deb:")])
    if install:
        install_packages([p for p, _ in host_missing])
        if kmod_part:
            kmod_part.install_deps()
        host_missing = missing_packages([p for p in packages
                                         if not p[1].startswith("deb:")])
    engines_missing = missing_packages(engine_packages)
    if install and engines_missing and not host_missing:
        try:
            install_packages([p for p, _ in engines_missing])
        except (OSError, subprocess.CalledProcessError) as e:
            print("configure: cannot install the engines' packages (%s)"
                  % e, file=sys.stderr)
        engines_missing = missing_packages(engine_packages)
    for pkg, check in engines_missing:
        print("configure: note: no %s (Debian package %s): the engine "
              "tests that need it will skip" % (check.split(":", 1)[1], pkg),
              file=sys.stderr)
    if host_missing:
        for pkg, check in host_missing:
            kind, what = check.split(":", 1)
            print("configure: missing %s %s: install the Debian package %s"
                  % (kind, what, pkg), file=sys.stderr)
        print("configure: or run ./configure.py --install-deps (as root)",
              file=sys.stderr)
        return False
    return True
