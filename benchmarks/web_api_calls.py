"""What a Web API call costs paperbot's process: slack_sdk's own client (urllib: a new connection per call)
against the client paperbot builds (``bot.slack.client.build_client``: kept-alive connections).

Each client posts N messages (a paper's Block Kit, as a digest does) to the local Slack stand-in, run in
a process of its own so that only the client's cost is in this process's CPU time; from 1 thread and
from 8 (a digest run's workers). Prints the wall time, this process's CPU time and the connections the
stand-in accepted, for each. With ``--tls`` the stand-in speaks HTTPS (a self-signed certificate made for
the run and trusted through SSL_CERT_FILE), as Slack does: each new connection is then a TLS handshake.
Nothing leaves 127.0.0.1.

    .venv/bin/python benchmarks/web_api_calls.py [--calls 2100] [--rounds 3] [--tls]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from slack_sdk import WebClient  # noqa: E402

TOKEN = "xoxb-benchmark-token"
BLOCKS = [{"type": "section", "text": {"type": "mrkdwn", "text": "*A paper's title*"}},
          {"type": "context", "elements": [{"type": "mrkdwn", "text": "Why: matches your interest"}]}]
#: The stand-in, in a process of its own: prints its URL, then the connections it accepted, per line read.
#: With a certificate and key (argv 2, 3), over TLS.
STANDIN = """
import ssl, sys
sys.path.insert(0, sys.argv[1])
from stand_ins.slack import SlackStandIn
s = SlackStandIn()
url = s.base_url
if len(sys.argv) > 2:
    tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    tls.load_cert_chain(sys.argv[2], sys.argv[3])
    s._server.socket = tls.wrap_socket(s._server.socket, server_side=True)
    url = url.replace("http://", "https://")
with s:
    print(url, flush=True)
    for _ in sys.stdin:
        print(s.connections, flush=True)
"""


def self_signed(folder: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 and its key, written into ``folder``."""
    import datetime
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(hours=1))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                           critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    cert_path, key_path = folder / "cert.pem", folder / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_path, key_path


def timed(client: WebClient, calls: int, threads: int) -> tuple[float, float]:
    """Wall and CPU seconds (this process) of ``calls`` posts from ``threads`` threads."""
    def post(i: int) -> None:
        client.chat_postMessage(channel="DUBENCH", text=f"paper {i}", blocks=BLOCKS)

    usage = resource.getrusage(resource.RUSAGE_SELF)
    start = time.perf_counter()
    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(post, range(calls)))
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_SELF)
    return wall, (after.ru_utime - usage.ru_utime) + (after.ru_stime - usage.ru_stime)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2100,
                        help="posts per client and round (300 digests' worth)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds; the medians are printed")
    parser.add_argument("--tls", action="store_true", help="HTTPS, as Slack's API is")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="paperbot-web-api-"))
    tls: list[str] = []
    if args.tls:
        cert, key = self_signed(folder)
        tls = [str(cert), str(key)]
        os.environ["SSL_CERT_FILE"] = str(cert)  # before any client makes its TLS context
    from bot.config import Settings
    from bot.slack.client import build_client

    standin = subprocess.Popen([sys.executable, "-c", STANDIN, str(ROOT), *tls], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, text=True)
    assert standin.stdin is not None and standin.stdout is not None
    try:
        url = standin.stdout.readline().strip()

        def connections() -> int:
            standin.stdin.write("\n")
            standin.stdin.flush()
            return int(standin.stdout.readline())

        settings = Settings.load(environ={"SLACK_BOT_TOKEN": TOKEN, "SLACK_API_URL": url}, dotenv=None)
        clients = {"slack_sdk's WebClient (urllib)": WebClient(token=TOKEN, base_url=url),
                   "paperbot's client (kept alive)": build_client(settings)}
        print(f"{args.calls} chat.postMessage calls to the local stand-in (its own process, "
              f"{'HTTPS' if args.tls else 'HTTP'}), median of {args.rounds} rounds")
        for threads in (1, 8):
            for name, client in clients.items():
                walls, cpus, opened = [], [], []
                for _ in range(args.rounds):
                    before = connections()
                    wall, cpu = timed(client, args.calls, threads)
                    walls.append(wall)
                    cpus.append(cpu)
                    opened.append(connections() - before)
                wall, cpu = statistics.median(walls), statistics.median(cpus)
                print(f"{threads} thread(s), {name}: {wall:.2f} s wall, {cpu:.2f} s CPU "
                      f"({1000 * cpu / args.calls:.2f} ms a call), "
                      f"{statistics.median(opened):.0f} connections")
    finally:
        standin.stdin.close()
        standin.wait(timeout=10)
        shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
