"""A throwaway PostgreSQL cluster for tests and benchmarks: ``initdb`` into a temporary folder, one port.

The server listens on 127.0.0.1 only, with ``trust`` authentication, and its unix socket sits in the
cluster's own folder, so it touches nothing outside it. Running as root (containers, CI), ``initdb``
refuses to start; the cluster is then created and run as the ``postgres`` system user.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

__all__ = ["PgServer", "find_pg_bin", "temporary_server"]


def find_pg_bin() -> Path | None:
    """The folder holding ``initdb`` and ``pg_ctl`` (PATH first, then /usr/lib/postgresql/*/bin), or None."""
    found = shutil.which("initdb")
    if found and shutil.which("pg_ctl"):
        return Path(found).parent
    for folder in sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(Path(p).parent.name)
                         if Path(p).parent.name.isdigit() else 0, reverse=True):
        if (Path(folder) / "initdb").exists() and (Path(folder) / "pg_ctl").exists():
            return Path(folder)
    return None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class PgServer:
    """A running cluster: ``url(db)`` names a database on it; :meth:`stop` / :meth:`start` for fault tests."""

    bin: Path
    folder: Path
    port: int
    user: str

    @property
    def data(self) -> Path:
        return self.folder / "data"

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{self.user}@127.0.0.1:{self.port}/{database}"

    def _run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        command = [str(self.bin / args[0]), *args[1:]]
        if os.geteuid() == 0:
            command = ["runuser", "-u", "postgres", "--", *command]
        return subprocess.run(command, check=check, capture_output=True, text=True, timeout=120)

    def start(self) -> None:
        options = f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c fsync=off " \
                  "-c synchronous_commit=off -c full_page_writes=off -c max_connections=100"
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.folder / "server.log"), "-o", options,
                  "-w", "-t", "60", "start")

    def stop(self, mode: str = "fast") -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "-t", "60", "stop", check=False)

    def add_password_user(self, user: str, password: str) -> str:
        """A role that must give ``password`` over TCP (scram-sha-256); returns its URL to ``postgres``."""
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as con:
            con.execute(f"CREATE ROLE \"{user}\" LOGIN PASSWORD '{password}'")  # type: ignore[arg-type]
        hba = self.data / "pg_hba.conf"
        hba.write_text(f"host all {user} 127.0.0.1/32 scram-sha-256\n" + hba.read_text(encoding="utf-8"),
                       encoding="utf-8")
        self._run("pg_ctl", "-D", str(self.data), "reload")
        return f"postgresql://{user}:{password}@127.0.0.1:{self.port}/postgres"

    def create_database(self, name: str, *, template: str | None = None) -> str:
        """Create database ``name`` (from ``template`` when given, which is fast); returns its URL."""
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as con:
            suffix = f' TEMPLATE "{template}"' if template else ""
            con.execute(f'CREATE DATABASE "{name}"{suffix}')  # type: ignore[arg-type]
        return self.url(name)


def init_server(folder: Path | None = None) -> PgServer:
    """Create and start a cluster in ``folder`` (a new temporary folder when None)."""
    bin_dir = find_pg_bin()
    if bin_dir is None:
        raise FileNotFoundError("PostgreSQL server binaries (initdb, pg_ctl) not found on PATH or under "
                                "/usr/lib/postgresql/*/bin")
    folder = Path(folder or tempfile.mkdtemp(prefix="graphcite-pg-"))
    folder.mkdir(parents=True, exist_ok=True)
    user = "postgres"
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres", "postgres")
    server = PgServer(bin_dir, folder, _free_port(), user)
    server._run("initdb", "-D", str(server.data), "-U", user, "-A", "trust", "-E", "UTF8", "--locale=C.UTF-8",
                "--no-sync")
    server.start()
    return server


@contextlib.contextmanager
def temporary_server() -> Iterator[PgServer]:
    """A cluster for the duration of the block; stopped and deleted afterwards."""
    server = init_server()
    try:
        yield server
    finally:
        server.stop("immediate")
        shutil.rmtree(server.folder, ignore_errors=True)
