"""The README's pictures stay true to what paperbot sends: the Block Kit they were drawn from
(docs/pictures/*.blocks.json) is what the views produce now from the same fixed inputs, and the renderer
and headless Chromium turn it into a PNG. When a view changes, `make pictures` draws them again.

The browser test skips (one line) where Chromium is not installed; PAPERBOT_REQUIRE_BROWSER=1 (CI) makes that
a failure, as for tests/e2e/test_oauth_browser.py.
"""

from __future__ import annotations

import json
import struct
from datetime import UTC, datetime
from pathlib import Path

import pytest

from docs.pictures import make_pictures
from docs.pictures.blockkit_html import Renderer, home_page
from tests.e2e.browser import chromium_path  # noqa: F401 (the fixture)

PICTURES = Path(make_pictures.__file__).resolve().parent
AGAIN = "the views changed: run `make pictures` and commit docs/pictures/"


def test_the_pictures_are_drawn_from_the_block_kit_the_views_send_now(tmp_path):
    messages, view = make_pictures.build(tmp_path)
    committed = {name: (PICTURES / f"{name}.blocks.json").read_text(encoding="utf-8")
                 for name in ("digest", "home")}
    assert committed["digest"] == make_pictures.blocks_json(messages), AGAIN
    assert committed["home"] == make_pictures.blocks_json(view), AGAIN
    # A digest in a DM: its header, then one message a paper with its reason and its buttons.
    assert messages[0]["text"].startswith(":newspaper: Your digest for Monday 7 December")
    assert len(messages) == 1 + make_pictures.DIGEST_SIZE
    for message in messages[1:]:
        kinds = [block["type"] for block in message["blocks"]]
        assert kinds[0] == "section" and "context" in kinds and kinds[-1] == "actions"
    assert view["type"] == "home"
    for name in ("digest.png", "home.png"):
        assert (PICTURES / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_renderer_reads_slack_mrkdwn_and_refuses_what_it_does_not_know():
    renderer = Renderer("Europe/Berlin")
    html = renderer.mrkdwn("*Why:* <https://arxiv.org/abs/1|a &lt;b&gt; paper> :+1: `/papers help` _it_")
    assert html == ('<b>Why:</b> <a href="https://arxiv.org/abs/1">a &lt;b&gt; paper</a> 👍 '
                    "<code>/papers help</code> <i>it</i>")
    at = int(datetime(2026, 12, 7, 8, 12, tzinfo=UTC).timestamp())  # 09:12 in Berlin
    date_token = f"<!date^{at}^{{date_short_pretty}} at {{time}}|fallback>"
    assert renderer.mrkdwn(date_token) == "Dec 7th, 2026 at 9:12 AM"
    assert "snake_case_word" in renderer.mrkdwn("snake_case_word")
    with pytest.raises(ValueError, match="unknown block"):
        renderer.blocks([{"type": "video"}])
    with pytest.raises(ValueError, match="unknown element"):
        renderer.blocks([{"type": "actions", "elements": [{"type": "static_select"}]}])


def test_chromium_draws_the_home_tab_into_a_png(chromium_path, tmp_path):  # noqa: F811 (the fixture)
    view = json.loads((PICTURES / "home.blocks.json").read_text(encoding="utf-8"))
    out = tmp_path / "home.png"
    page = home_page("paperbot", view, make_pictures.TIMEZONE)
    make_pictures.screenshot(chromium_path, page, out, width=400, scale=1)
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])  # the IHDR chunk
    assert width == 400 and height > 400  # as tall as the page, not the window's first guess
