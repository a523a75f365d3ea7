"""The allocator's pools are capped where glibc can be told, and an admin's own setting wins."""

import os
import platform
import subprocess
import sys
from pathlib import Path

import pytest

from bot.allocator import limit_arenas

ROOT = Path(__file__).resolve().parents[2]


def test_an_admins_own_setting_wins(monkeypatch):
    monkeypatch.setenv("MALLOC_ARENA_MAX", "4")
    assert limit_arenas() is False


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="the cap is glibc's own (mallopt)")
def test_glibc_takes_the_cap():
    environ = {k: v for k, v in os.environ.items() if k != "MALLOC_ARENA_MAX"}
    code = "from bot.allocator import limit_arenas; print(limit_arenas())"
    done = subprocess.run([sys.executable, "-c", code],
                          capture_output=True, text=True, check=True, env=environ, cwd=ROOT)
    assert done.stdout.strip() == "True"
