"""The embedding option in the bot: vectors computed once under a lease, read into memory, blended into
recommendations; the setting and its one-line error. A stand-in encoder (no model needed) except in
tests/bot/state/test_embedding_model.py."""

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from bot.config import Settings
from bot.errors import ConfigError
from bot.state import embedding_model
from bot.state.context import Context
from bot.state.embedding_option import EMBED_JOB, Embeddings
from bot.usecases import follow, recommend
from storage import Paper
from storage.leases import JOB

WORDS = ["vehicle", "pet"]
MEANING = {"car": 0, "engine": 0, "automobile": 0, "cat": 1, "dog": 1, "kitten": 1}


class StandIn:
    """Texts to 3-dimensional unit vectors by a few words' meanings; counts the texts it was given."""

    def __init__(self):
        self.texts: list[str] = []

    def __call__(self, texts):
        self.texts += texts
        out = np.full((len(texts), 3), 0.01, dtype=np.float32)
        for i, text in enumerate(texts):
            for word in text.lower().replace(".", " ").split():
                if word.rstrip("s") in MEANING:
                    out[i, MEANING[word.rstrip("s")]] += 1
                elif word in WORDS:
                    out[i, WORDS.index(word)] += 1
        return out / np.linalg.norm(out, axis=1, keepdims=True)


PAPERS = [Paper(id="a", title="Cars go fast", abstract="A car."),
          Paper(id="b", title="Automobile engines", abstract="Engine design."),
          Paper(id="c", title="Kittens sleep", abstract="A cat."),
          Paper(id="d", title="Dogs bark", abstract="A dog.")]


@pytest.fixture
def vctx(tmp_path):
    ctx = Context.open(str(tmp_path / "e.db"), digest_size=2)
    ctx.embeddings = Embeddings(ctx.store, encode=StandIn(), model="stand-in/3", dimensions=3)
    ctx.store.upsert_papers(PAPERS)
    ctx.engine.refresh()
    yield ctx
    ctx.close()


def test_vectors_are_computed_once_and_then_only_for_papers_new_or_changed(vctx):
    encode = vctx.embeddings.encode
    assert vctx.embeddings.compute_missing() == 4
    assert sorted(encode.texts) == sorted(p.text for p in PAPERS)
    assert vctx.embeddings.compute_missing() == 0 and len(encode.texts) == 4
    vctx.store.upsert_papers([Paper(id="a", title="Cars go fast", abstract="A car, and more."),
                              Paper(id="e", title="Puppies", abstract="A dog.")])
    assert vctx.embeddings.compute_missing() == 2
    assert encode.texts[4:] == ["Cars go fast. A car, and more.", "Puppies. A dog."]
    assert vctx.store.count_paper_vectors("stand-in/3") == 5
    assert vctx.store.get_job(EMBED_JOB).status == "done"


def test_another_process_holding_the_lease_does_the_work_and_this_one_none(vctx):
    now = datetime.now(UTC)
    until = (now + timedelta(minutes=5)).isoformat()
    assert vctx.store.take_lease(JOB, (EMBED_JOB,), "elsewhere:1:1", until, now.isoformat())
    assert vctx.embeddings.compute_missing() == 0
    assert vctx.embeddings.encode.texts == [] and vctx.store.count_paper_vectors("stand-in/3") == 0


def test_an_ingest_stores_the_new_papers_vectors(vctx, tmp_path):
    from bot.usecases import ingest

    source = tmp_path / "more.jsonl"
    source.write_text('{"id": "f", "title": "Kitten care", "abstract": "Cats."}\n')
    ingest(vctx, [str(source)])
    assert vctx.store.count_paper_vectors("stand-in/3") == 5  # every paper, the old ones too
    assert vctx.store.papers_without_vectors("stand-in/3") == []


def test_recommendations_blend_the_vectors_in_and_read_them_from_the_store(vctx):
    follow(vctx, "U1", "vehicle")  # no paper has the word: TF-IDF alone finds nothing
    vctx.embeddings.compute_missing()
    other = Embeddings(vctx.store, encode=StandIn(), model="stand-in/3", dimensions=3)  # another process
    vctx.embeddings = other
    assert {r.paper.id for r in recommend(vctx, "U1", 2, remember=False)} == {"a", "b"}
    assert len(other.vectors) == 4 and other.encode.texts == ["vehicle"]  # papers read, never encoded


def test_without_the_option_recommendations_are_tfidf_alone(vctx):
    vctx.embeddings.compute_missing()
    follow(vctx, "U1", "vehicle")
    vctx.embeddings = None
    assert recommend(vctx, "U1", 2, remember=False) == []


def test_the_setting_is_off_by_default_and_bad_values_are_one_clear_line(monkeypatch):
    assert Settings.load({}, dotenv=None).embeddings is False
    assert Settings.load({"PAPERBOT_EMBEDDINGS": "0"}, dotenv=None).embeddings is False
    with pytest.raises(ConfigError, match="PAPERBOT_EMBEDDINGS must be 1 or 0"):
        Settings.load({"PAPERBOT_EMBEDDINGS": "maybe"}, dotenv=None)
    monkeypatch.setattr(embedding_model, "available", lambda: False)
    with pytest.raises(ConfigError) as error:
        Settings.load({"PAPERBOT_EMBEDDINGS": "1"}, dotenv=None)
    assert str(error.value) == ("PAPERBOT_EMBEDDINGS=1 needs the optional extra: "
                                "pip install 'paperbot[embeddings]'")
    with pytest.raises(ConfigError, match=r"pip install 'paperbot\[embeddings\]'"):
        embedding_model.encoder()


def _eval(tmp_path, *extra):
    import json

    from click.testing import CliRunner

    from bot.cli.main import cli

    papers = tmp_path / "papers.jsonl"
    papers.write_text("".join(json.dumps({"id": p.id, "title": p.title, "abstract": p.abstract}) + "\n"
                              for p in PAPERS))
    users = tmp_path / "users.jsonl"
    users.write_text(json.dumps({"user": "u1", "liked": ["c"]}) + "\n")
    out = tmp_path / "out.jsonl"
    result = CliRunner().invoke(cli, ["eval", "--papers", str(papers), "--users", str(users), "--k", "3",
                                      "--out", str(out), *extra], obj={}, env={}, catch_exceptions=False)
    lines = out.read_text().splitlines() if out.exists() else []
    return result, [json.loads(line)["ranked"] for line in lines]


def test_paperbot_eval_blends_embeddings_when_asked(tmp_path, monkeypatch):
    result, ranked = _eval(tmp_path)
    assert result.exit_code == 0, result.output
    assert ranked[0][0] != "d"  # no word shared with the kitten paper: TF-IDF can't tell
    monkeypatch.setattr(embedding_model, "encoder", StandIn)
    result, ranked = _eval(tmp_path, "--embeddings")
    assert result.exit_code == 0, result.output
    assert ranked[0][0] == "d"  # dogs: a pet, like kittens


def test_paperbot_eval_without_the_extra_is_one_line(tmp_path, monkeypatch):
    monkeypatch.setattr(embedding_model, "available", lambda: False)
    result, _ = _eval(tmp_path, "--embeddings")
    assert result.exit_code != 0
    assert result.output.strip().splitlines() == [
        "Error: embeddings need the optional extra: pip install 'paperbot[embeddings]'"]
