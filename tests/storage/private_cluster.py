"""A private PostgreSQL cluster for one test session, for machines where PostgreSQL is installed but no
server answers: initdb into a temporary folder (trust auth), started on a free port of 127.0.0.1 with its
unix socket in that folder, stopped and deleted when the session's process exits.

tests/storage/conftest.py falls back to it; nothing else starts one.
"""

from __future__ import annotations

import atexit
import glob
import os
import pwd
import re
import shutil
import socket
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

#: Where PostgreSQL's server programs live when they are not on PATH (Debian and Ubuntu keep one folder
#: per major version; the source build's default prefix).
SEARCH = ("/usr/lib/postgresql/*/bin", "/usr/local/pgsql/bin")

#: A quick server: nothing the tests do needs to survive a crash of the machine.
SETTINGS = {
    "listen_addresses": "'127.0.0.1'",
    "max_connections": "300",  # every bot's pool, its subprocesses' and the tests' own connections
    "fsync": "off",
    "synchronous_commit": "off",
    "full_page_writes": "off",
}


class Unavailable(Exception):
    """No private cluster can be had here; the message says why, in a few words."""


def binaries() -> Path | None:
    """The folder holding ``initdb`` and ``pg_ctl``: PATH first, else the newest installed version."""
    initdb = shutil.which("initdb")
    if initdb and shutil.which("pg_ctl"):
        return Path(os.path.realpath(initdb)).parent
    folders = [Path(f) for pattern in SEARCH for f in glob.glob(pattern)]
    found = [f for f in folders if (f / "initdb").is_file() and (f / "pg_ctl").is_file()]
    return max(found, key=_version, default=None)


def _version(folder: Path) -> tuple[int, ...]:
    return tuple(int(n) for n in re.findall(r"\d+", str(folder))) or (0,)


def _owner() -> pwd.struct_passwd | None:
    """Who runs the cluster: this user, or (initdb refuses root) an unprivileged account; None if none."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            return pwd.getpwnam(name)
        except KeyError:
            continue
    raise Unavailable("running as root and there is no postgres or nobody account to run initdb as")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Cluster:
    """A running private cluster: ``url`` reaches its ``postgres`` database as superuser ``postgres``."""

    folder: Path
    bin: Path
    port: int
    owner: pwd.struct_passwd | None

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    @property
    def data(self) -> Path:
        return self.folder / "data"

    def _run(self, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
        user = {} if self.owner is None else {"user": self.owner.pw_uid, "group": self.owner.pw_gid,
                                              "extra_groups": []}
        return subprocess.run(args, cwd=self.folder, capture_output=True, text=True, timeout=timeout,
                              check=False, env={**os.environ, "LC_ALL": "C"}, **user)

    def stop(self) -> None:
        """Stop the server (at once: nothing in it is kept) and delete its folder."""
        if self.data.exists():
            self._run(str(self.bin / "pg_ctl"), "stop", "-D", str(self.data), "-m", "immediate", "-w")
        shutil.rmtree(self.folder, ignore_errors=True)


def start() -> Cluster:
    """initdb and start a private cluster, stopped and deleted at the process's exit; raises
    :class:`Unavailable` with the reason when it cannot."""
    bin_folder = binaries()
    if bin_folder is None:
        raise Unavailable("PostgreSQL's initdb and pg_ctl are not installed")
    owner = _owner()
    folder = Path(tempfile.mkdtemp(prefix="paperbot-pg-"))
    if owner is not None:
        os.chown(folder, owner.pw_uid, owner.pw_gid)
    cluster = Cluster(folder, bin_folder, 0, owner)
    atexit.register(cluster.stop)
    made = cluster._run(str(bin_folder / "initdb"), "-D", str(cluster.data), "-U", "postgres", "-A", "trust",
                        "-E", "UTF8", "--locale=C", "--no-sync")
    if made.returncode != 0:
        cluster.stop()
        raise Unavailable("initdb failed: " + _last_line(made))
    for _attempt in range(3):  # another process may take the free port between choosing and binding it
        cluster.port = _free_port()
        settings = {**SETTINGS, "port": str(cluster.port), "unix_socket_directories": f"'{folder}'"}
        with open(cluster.data / "postgresql.auto.conf", "a", encoding="utf-8") as conf:
            conf.writelines(f"{name} = {value}\n" for name, value in settings.items())
        started = cluster._run(str(bin_folder / "pg_ctl"), "start", "-D", str(cluster.data), "-w", "-t", "60",
                               "-l", str(folder / "server.log"))
        if started.returncode == 0:
            return cluster
    cluster.stop()
    raise Unavailable("pg_ctl start failed: " + _last_line(started))


def _last_line(done: subprocess.CompletedProcess) -> str:
    lines = (done.stderr or done.stdout or "").strip().splitlines()
    return lines[-1][:160] if lines else f"exit status {done.returncode}"
