"""The deployment files say what the README promises of them (issue 26). The image itself is built and run by
`.ci/image` (podman), and compose can't run here (no container engine): these tests read the files."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent


def _stages(text: str) -> list[str]:
    """The Containerfile's build stages, each from its FROM line on."""
    return [part for part in re.split(r"(?m)^(?=FROM )", text) if part.startswith("FROM ")]


def test_the_image_runs_paperbot_as_a_non_root_user_from_a_final_stage_without_compilers():
    text = (ROOT / "Containerfile").read_text()
    assert re.search(r"(?m)^ARG BASE=debian:bookworm-slim$", text)
    assert re.search(r"(?m)^ARG PIP_CERT$", text)
    build, final = _stages(text)
    assert build.startswith("FROM ${BASE} AS build") and final.startswith("FROM ${BASE}\n")
    assert "'.[postgres]'" in build  # PostgreSQL's driver comes with the image
    assert "COPY --from=build" in final
    assert not re.search(r"\b(gcc|build-essential|python3-dev|python3-pip)\b", final)
    user = re.search(r"(?m)^USER (\S+)$", final)
    assert user and user[1] not in ("root", "0")
    assert re.search(r"(?m)^VOLUME /data$", final) and "PAPERBOT_DB=/data/paperbot.db" in final
    assert re.search(r"(?ms)^HEALTHCHECK .*?/healthz", final)
    assert re.search(r'(?m)^CMD \["paperbot", "run"\]$', final)


def test_compose_runs_postgresql_and_two_replicas_of_the_image_behind_one_port():
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text())
    services = compose["services"]
    db = services["db"]
    assert db["image"].endswith("postgres:15")
    assert any(str(v).endswith(":/var/lib/postgresql/data") for v in db["volumes"])
    assert db["healthcheck"]["test"]
    replicas = [s for s in services.values() if s.get("build", {}).get("dockerfile") == "Containerfile"]
    assert len(replicas) == 2
    for replica in replicas:
        assert replica["environment"]["PAPERBOT_DB"].startswith("postgresql://paperbot:")
        assert "@db:5432/" in replica["environment"]["PAPERBOT_DB"]
        assert replica["env_file"] == [".env"]
        assert replica["depends_on"]["db"]["condition"] == "service_healthy"
        assert "ports" not in replica  # reached through the proxy only
    published = [s for s in services.values() if s.get("ports")]
    assert len(published) == 1 and published[0]["ports"] == ["3000:3000"]
    caddyfile = (ROOT / "deploy" / "Caddyfile").read_text()
    names = [name for name, s in services.items() if s in replicas]
    assert re.search(r"reverse_proxy " + " ".join(f"{n}:3000" for n in names), caddyfile)
    assert "health_uri /readyz" in caddyfile


def test_the_example_env_file_sets_only_settings_paperbot_or_compose_reads():
    keys = [line.lstrip("#").split("=", 1)[0] for line in (ROOT / ".env.example").read_text().splitlines()
            if re.match(r"#?[A-Z_]+=", line)]
    assert "SLACK_BOT_TOKEN" in keys and "SLACK_SIGNING_SECRET" in keys
    compose_text = (ROOT / "compose.yaml").read_text()
    for key in keys:
        assert key in compose_text or _read_by_settings(key), key


def _read_by_settings(name: str) -> bool:
    """Whether bot/config.py, the one place paperbot reads its environment, reads ``name``."""
    from tests.test_docs import settings_read

    return name in settings_read()
