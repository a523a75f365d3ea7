import os
import subprocess
import sys

from bot.state.owner import owner_alive, owner_id


def test_this_process_is_alive_and_a_finished_one_is_not():
    me = owner_id()
    assert owner_alive(me) is True
    host, pid, start = me.rsplit(":", 2)
    assert int(pid) == os.getpid()
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    assert owner_alive(f"{host}:{child.pid}:{start}") is False
    assert owner_alive(f"{host}:{os.getpid()}:not-my-start-time") is False  # a reused pid


def test_owners_on_other_hosts_or_unreadable_are_unknown():
    assert owner_alive("some-other-host:1:123") is None
    assert owner_alive("garbage") is None
    assert owner_alive(None) is None
