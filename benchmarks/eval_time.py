"""How long a whole ``paperbot eval`` process takes, per split, against the TF-IDF centroid's.

    .venv/bin/python benchmarks/eval_time.py  # every split; rewrites its part of docs/measurements/quality.md
    .venv/bin/python benchmarks/eval_time.py --splits P1,cold --repeat 3 --no-write
    .venv/bin/python benchmarks/eval_time.py --scale --repeat 3   # on 26,000 papers, 8,000 users

Each split of ``benchmarks/quality.py`` that a users file can express is written to a temporary
directory (papers, users with their dislikes, candidates), then two processes are timed from start
to exit, wall clock, ranking 300 papers per user: ``python -m bot.cli eval`` (reading the papers,
fitting paperbot's index, ranking through ``recommender.evaluate``, writing the JSONL) and
``benchmarks/centroid_eval.py`` (reading, fitting arxiv-sanity's vectorizer, ranking by the
centroid, writing the same JSONL). Both include Python's start-up and imports. With ``--repeat``
the two alternate and each keeps its fastest run, which is the least disturbed by other load.
``drift`` is left out: its feedback ages cannot be written in a users file. ``--scale`` times
the same splits on a larger set drawn from the shared data (``benchmarks/eval_scale.py`` says how)
and rewrites its own part of docs/measurements/quality.md.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import eval_scale, quality
from benchmarks.common import (
    ROOT,
    SHARED_DATA,
    add_write_option,
    machine,
    read_papers,
    wants_write,
    write_section,
)
from recommender import PaperIndex
from recommender.evaluate import EvalUser

SPLITS = ("P10", "P1", "cold", "feedback", "foreign", "conf-half", "conf-one", "conf-cold")
START, END = "<!-- eval-time:start -->", "<!-- eval-time:end -->"
SCALE_START, SCALE_END = "<!-- eval-time-scale:start -->", "<!-- eval-time-scale:end -->"
LIMIT = 1.5


def _write_users(path: Path, users: list[EvalUser]) -> Path:
    with path.open("w", encoding="utf-8") as f:
        for u in users:
            f.write(json.dumps({"user": u.user, "liked": u.liked, "disliked": u.disliked}) + "\n")
    return path


def prepare(splits: list[str], where: Path) -> dict[str, tuple[Path, Path, Path | None]]:
    """(papers file, users file, candidates file or None) per split."""
    out: dict[str, tuple[Path, Path, Path | None]] = {}
    cite = quality.DATA / "papers.jsonl"
    ids: list[str] | None = None
    index: PaperIndex | None = None
    conf_papers = where / "conf.jsonl"
    conf = None
    for split in splits:
        if split.startswith("conf-"):
            if conf is None:
                conf_papers.write_text("".join((SHARED_DATA / name).read_text(encoding="utf-8")
                                               for name in quality.CONF_FILES), encoding="utf-8")
                c_ids, _, authors = quality.load_conf()
                conf = (c_ids, authors)
            train, _, cand = quality.conf_split(split, *conf)
            papers = conf_papers
        else:
            if ids is None:
                ids, texts = read_papers(cite)
            if split in ("P10", "P1", "cold"):
                train, _, cand = quality.load_split(split, ids)
            else:
                if index is None:
                    index = PaperIndex.build(ids, texts)
                train, _, cand = quality.simulated_split(split, index, ids)
            papers = cite
        out[split] = _written(where, split, papers, train, cand)
    return out


def _written(where: Path, split: str, papers: Path, train: list[EvalUser],
             cand: list[str] | None) -> tuple[Path, Path, Path | None]:
    """A split's files in ``where``: its papers file as given, its users (with their dislikes), and its
    candidates when it has some."""
    candidates = None
    if cand is not None:
        candidates = where / f"{split}-candidates.txt"
        candidates.write_text("\n".join(cand) + "\n", encoding="utf-8")
    return papers, _write_users(where / f"{split}-users.jsonl", train), candidates


def _seconds(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=True, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def commands(papers: Path, users: Path, candidates: Path | None, out: Path) -> tuple[list[str], list[str]]:
    """The ``paperbot eval`` process and the centroid's, on the same files."""
    args = ["--papers", str(papers), "--users", str(users), "--k", str(quality.K), "--out", str(out)]
    if candidates is not None:
        args += ["--candidates", str(candidates)]
    return ([sys.executable, "-m", "bot.cli", "eval", *args],
            [sys.executable, str(ROOT / "benchmarks" / "centroid_eval.py"), *args])


def run(splits: list[str], repeat: int,
        scale: tuple[int, int] | None = None) -> list[tuple[str, int, float, float]]:
    """(split, users, paperbot eval's seconds, the centroid's) per split; ``scale``: (papers, users)
    of the larger set to time on instead of the shared data as it is."""
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        where = Path(tmp)
        files = (prepare(splits, where) if scale is None
                 else eval_scale.prepare(splits, where, _written, *scale))
        for split, (papers, users, candidates) in files.items():
            ours, theirs = commands(papers, users, candidates, where / "ranked.jsonl")
            best_ours = best_theirs = float("inf")
            for _ in range(max(1, repeat)):
                best_ours = min(best_ours, _seconds(ours))
                best_theirs = min(best_theirs, _seconds(theirs))
            n_users = sum(1 for line in users.read_text(encoding="utf-8").splitlines() if line.strip())
            rows.append((split, n_users, best_ours, best_theirs))
            quality.console.print(f"  {split:9s} {n_users:5d} users  paperbot eval {best_ours:6.1f} s  "
                                  f"centroid {best_theirs:6.1f} s  {best_ours / best_theirs:.2f}×")
    return rows


def markdown(rows: list[tuple[str, int, float, float]], command: str, repeat: int,
             scale: tuple[int, int] | None = None) -> str:
    start, end = (START, END) if scale is None else (SCALE_START, SCALE_END)
    title = ("## Whole-process eval time" if scale is None
             else f"### On a larger set: {scale[0]:,} papers, {scale[1]:,} users")
    lines = [start, title, "",
             f"Command: `{command}` ({machine()}, load average {load()}; fastest of {repeat} "
             f"run{'s' if repeat > 1 else ''} each). Wall clock of each process from start to exit, "
             "Python's start-up, reading, fitting, "
             f"ranking {quality.K} papers per user and writing included; target: at most {LIMIT}× the "
             "centroid's.", "",
             "| split | users | `paperbot eval` | TF-IDF centroid | ratio |", "|---|---|---|---|---|"]
    lines += [f"| {s} | {n} | {a:.1f} s | {b:.1f} s | {a / b:.2f}× |" for s, n, a, b in rows]
    if scale is None:
        lines += ["", "`drift` is left out: its feedback ages cannot be written in a users file."]
    else:
        lines += ["", "The set is drawn from the shared data as `benchmarks/eval_scale.py` says: the "
                  "shared papers topped up with perturbed copies of citeulike-a's, citeulike-a's users "
                  "plus synthetic ones (a real user's library moved onto copies of its papers)."]
    return "\n".join([*lines, end]) + "\n"


def load() -> str:
    """The machine's 1-minute load average, as the run ends."""
    try:
        return Path("/proc/loadavg").read_text().split()[0]
    except OSError:
        return "unknown"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--splits", default=",".join(SPLITS), help=f"comma-separated, of {', '.join(SPLITS)}")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each process; the fastest counts")
    parser.add_argument("--scale", action="store_true", help="time on the larger set of eval_scale.py")
    parser.add_argument("--papers", type=int, default=eval_scale.PAPERS, help="papers in the larger set")
    parser.add_argument("--users", type=int, default=eval_scale.USERS, help="users in the larger set")
    add_write_option(parser, "docs/measurements/quality.md", "for every split")
    args = parser.parse_args(argv)
    splits = [s.strip() for s in args.splits.split(",") if s.strip()]
    if unknown := [s for s in splits if s not in SPLITS]:
        parser.error(f"unknown split(s): {', '.join(unknown)}")
    if not (quality.DATA / "papers.jsonl").exists():
        quality.console.print("citeulike-a not found in ../shared/data; nothing to time.")
        return 0
    if not all((SHARED_DATA / f).exists() for f in quality.CONF_FILES):
        splits = [s for s in splits if not s.startswith("conf-")]
    scale = (args.papers, args.users) if args.scale else None
    rows = run(splits, args.repeat, scale)
    if wants_write(args, splits == list(SPLITS)):
        options = " ".join(argv if argv is not None else sys.argv[1:])
        command = "python benchmarks/eval_time.py" + (" " + options if options else "")
        text = markdown(rows, ".venv/bin/" + command, args.repeat, scale)
        if scale is None:
            write_section(text, START, END, quality.DOC)
        else:
            write_section(text, SCALE_START, SCALE_END, quality.DOC)
    return 0


if __name__ == "__main__":
    sys.exit(main())
