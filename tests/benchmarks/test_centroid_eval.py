"""The centroid's whole evaluation process, which ``paperbot eval`` is timed against, ranks as the
benchmark's centroid does and writes what ``paperbot eval`` writes."""

from __future__ import annotations

import json

from benchmarks import centroid_eval, eval_time
from stand_ins.corpus import TOPIC_WORDS

# arxiv-sanity's vectorizer keeps words in 5 papers or more and in 10% of them at most: twelve
# topics of six papers each, every topic's words in 6 of 72.
TOPICS = {**TOPIC_WORDS, **{f"topic{i}": " ".join(f"w{i}x{j}" for j in range(6)) for i in range(7)}}


def _papers():
    for topic, words in TOPICS.items():
        vocab = words.split()
        for i in range(6):
            rotated = vocab[i:] + vocab[:i]
            yield {"id": f"{topic}-{i}", "title": " ".join(rotated[:3]), "abstract": " ".join(rotated)}


def _files(tmp_path):
    papers = tmp_path / "papers.jsonl"
    papers.write_text("".join(json.dumps(p) + "\n" for p in _papers()), encoding="utf-8")
    users = tmp_path / "users.jsonl"
    users.write_text(json.dumps({"user": "u1", "liked": ["cats-0", "cats-1"], "disliked": ["cats-2"]}) + "\n"
                     + json.dumps({"user": "u2", "liked": ["quantum-0"]}) + "\n", encoding="utf-8")
    return papers, users


def test_the_centroid_process_ranks_k_papers_per_user_never_their_own(tmp_path):
    papers, users = _files(tmp_path)
    out = tmp_path / "ranked.jsonl"
    assert centroid_eval.main(["--papers", str(papers), "--users", str(users), "--k", "5",
                               "--out", str(out)]) == 0
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [line["user"] for line in lines] == ["u1", "u2"]
    first, second = lines[0]["ranked"], lines[1]["ranked"]
    assert len(first) == 5 and not {"cats-0", "cats-1", "cats-2"} & set(first)
    assert first[0].startswith("cats") and second[0].startswith("quantum")


def test_candidates_limit_what_the_centroid_ranks(tmp_path):
    papers, users = _files(tmp_path)
    candidates = tmp_path / "candidates.txt"
    candidates.write_text("cats-5\nrobots-1\n", encoding="utf-8")
    out = tmp_path / "ranked.jsonl"
    centroid_eval.main(["--papers", str(papers), "--users", str(users), "--candidates", str(candidates),
                        "--k", "5", "--out", str(out)])
    ranked = json.loads(out.read_text(encoding="utf-8").splitlines()[0])["ranked"]
    assert set(ranked) <= {"cats-5", "robots-1"} and ranked[0] == "cats-5"


def test_both_processes_get_the_same_files(tmp_path):
    papers, users = _files(tmp_path)
    ours, theirs = eval_time.commands(papers, users, None, tmp_path / "out.jsonl")
    assert ours[1:4] == ["-m", "bot.cli", "eval"] and theirs[1].endswith("centroid_eval.py")
    assert ours[4:] == theirs[2:]
