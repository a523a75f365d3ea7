"""Bolt's installation and OAuth state stores over paperbot's storage, on both backends (``any_store``)."""

from __future__ import annotations

import logging
import threading

import pytest
from slack_sdk.oauth.installation_store import Bot, Installation

from bot.slack.oauth.installations import PaperbotInstallationStore, PaperbotOAuthStateStore, Rekeyed
from bot.slack.oauth.token_crypto import TokenBox, WrongSecretKey
from bot.slack.team import workspace_key
from tests.storage.conftest import any_store, backend, pg_database, pg_url, store_target  # noqa: F401

KEY = "unit-test-secret-key-0123456789-abcdef"


@pytest.fixture
def installations(any_store):  # noqa: F811
    return PaperbotInstallationStore(any_store, TokenBox(KEY))


def workspace_install(team: str = "T1", user: str = "UADMIN", token: str = "xoxb-t1-secret", **extra):
    return Installation(app_id="A1", team_id=team, team_name="Team", bot_token=token, bot_id="B1",
                        bot_user_id="UBOT", bot_scopes="commands,chat:write", user_id=user, **extra)


def org_install(enterprise: str = "E1", token: str = "xoxb-e1-secret"):
    return Installation(app_id="A1", enterprise_id=enterprise, enterprise_name="Org", team_id=None,
                        bot_token=token, bot_id="B2", bot_user_id="UBOT", user_id="UORG",
                        is_enterprise_install=True)


def test_workspace_key_is_the_org_for_an_org_install_else_the_team():
    assert workspace_key(enterprise_id="E1", team_id="T1", is_enterprise_install=True) == "E1"
    assert workspace_key(enterprise_id="E1", team_id="T1", is_enterprise_install=False) == "T1"
    assert workspace_key(enterprise_id=None, team_id="T1", is_enterprise_install=None) == "T1"
    assert workspace_key(enterprise_id="E1", team_id=None, is_enterprise_install=False) == "E1"
    assert workspace_key(enterprise_id=None, team_id=None, is_enterprise_install=None) == ""


def test_an_installation_comes_back_as_saved(installations):
    saved = workspace_install(bot_refresh_token="xoxe-refresh", bot_token_expires_in=3600)
    installations.save(saved)
    found = installations.find_installation(enterprise_id=None, team_id="T1")
    assert found.to_dict() == saved.to_dict()
    bot = installations.find_bot(enterprise_id=None, team_id="T1")
    assert (bot.bot_token, bot.bot_refresh_token, bot.bot_scopes) == (
        "xoxb-t1-secret", "xoxe-refresh", ["commands", "chat:write"])
    assert installations.find_installation(enterprise_id=None, team_id="T2") is None
    assert installations.find_bot(enterprise_id=None, team_id="T2") is None


def test_no_token_reaches_the_storage_in_clear(installations, any_store):  # noqa: F811
    installations.save(workspace_install(bot_refresh_token="xoxe-refresh", user_token="xoxp-user-secret"))
    stored = any_store.find_installation("T1")
    # The whole tokens: a short piece such as "xoxb" turns up by chance in a ciphertext's base64 (seen once).
    assert stored and not any(s in stored for s in ("xoxb-t1-secret", "xoxe-refresh", "xoxp-user-secret"))


def test_an_org_wide_install_serves_every_workspace_of_its_org(installations):
    installations.save(org_install())
    for flagged in (True, False, None):  # Bolt passes what the request said
        found = installations.find_installation(enterprise_id="E1", team_id="T9",
                                                is_enterprise_install=flagged)
        assert found is not None and found.bot_token == "xoxb-e1-secret", flagged
        assert installations.find_bot(enterprise_id="E1", team_id="T9",
                                      is_enterprise_install=flagged).bot_token == "xoxb-e1-secret"
    assert installations.workspace_of("E1", "T9") == "E1"
    assert installations.find_installation(enterprise_id="E2", team_id="T9") is None


def test_a_workspace_with_an_install_of_its_own_in_an_org_is_served_by_its_own(installations):
    installations.save(org_install())
    installations.save(workspace_install(team="T9", token="xoxb-t9-own"))
    assert installations.find_installation(enterprise_id="E1", team_id="T9").bot_token == "xoxb-t9-own"
    assert installations.find_installation(enterprise_id="E1", team_id="T8").bot_token == "xoxb-e1-secret"


def test_each_installer_has_an_installation_and_the_latest_serves_the_workspace(installations):
    installations.save(workspace_install(user="UA", token="xoxb-first"))
    installations.save(workspace_install(user="UB", token="xoxb-second"))
    assert installations.find_installation(enterprise_id=None, team_id="T1").bot_token == "xoxb-second"
    by_first = installations.find_installation(enterprise_id=None, team_id="T1", user_id="UA")
    assert by_first.bot_token == "xoxb-first"
    assert installations.bot_token("T1") == "xoxb-second"


def test_a_revoked_user_token_deletes_only_that_persons_row(installations):
    installations.save(workspace_install(user="UA", token="xoxb-first"))
    installations.save(workspace_install(user="UB", token="xoxb-second"))
    assert installations.delete_user("T1", "UB") == 1
    assert installations.find_installation(enterprise_id=None, team_id="T1", user_id="UB") is None
    assert installations.find_installation(enterprise_id=None, team_id="T1", user_id="UA") is not None


def test_deleting_all_leaves_the_other_workspaces(installations):
    installations.save(workspace_install(team="T1"))
    installations.save(workspace_install(team="T2", token="xoxb-t2"))
    installations.delete_all(enterprise_id=None, team_id="T1")
    assert installations.find_installation(enterprise_id=None, team_id="T1") is None
    assert installations.find_installation(enterprise_id=None, team_id="T2").bot_token == "xoxb-t2"
    installations.delete_bot(enterprise_id=None, team_id="T2")
    assert installations.find_bot(enterprise_id=None, team_id="T2") is None


def test_a_refreshed_bot_token_is_saved_into_the_latest_installation(installations):
    installations.save(workspace_install(bot_refresh_token="xoxe-old", bot_token_expires_in=60))
    bot = installations.find_bot(enterprise_id=None, team_id="T1")
    refreshed = Bot(**{**bot.__dict__, "bot_token": "xoxb-new", "bot_refresh_token": "xoxe-new",
                       "bot_token_expires_at": bot.bot_token_expires_at + 3600})
    installations.save_bot(refreshed)
    found = installations.find_installation(enterprise_id=None, team_id="T1")
    assert (found.bot_token, found.bot_refresh_token, found.user_id) == ("xoxb-new", "xoxe-new", "UADMIN")


def test_another_key_finds_nothing_and_says_so_in_one_line(any_store, caplog):  # noqa: F811
    PaperbotInstallationStore(any_store, TokenBox(KEY)).save(workspace_install())
    other = PaperbotInstallationStore(any_store, TokenBox(KEY + "-but-another"))
    with caplog.at_level(logging.ERROR):
        assert other.find_installation(enterprise_id=None, team_id="T1") is None
    assert any("PAPERBOT_SECRET_KEY" in r.getMessage() and not r.exc_info for r in caplog.records)
    with pytest.raises(WrongSecretKey):
        other.check_keys()
    PaperbotInstallationStore(any_store, TokenBox(KEY)).check_keys()  # the right key: nothing raised


def test_a_state_is_good_once(any_store):  # noqa: F811
    states = PaperbotOAuthStateStore(any_store)
    state = states.issue()
    assert len(state) >= 32 and states.issue() != state
    assert states.consume(state) is True
    assert states.consume(state) is False
    assert states.consume("never-issued") is False
    assert states.consume("") is False


def test_an_expired_state_is_refused(any_store):  # noqa: F811
    state = PaperbotOAuthStateStore(any_store, expiration_seconds=-5).issue()
    assert PaperbotOAuthStateStore(any_store).consume(state) is False


def test_two_hosts_consuming_one_state_at_once_one_wins(any_store, store_target):  # noqa: F811
    from storage import open_store

    state = PaperbotOAuthStateStore(any_store).issue()
    other = open_store(store_target)  # another process's connection to the same database
    try:
        results: list[bool] = []
        barrier = threading.Barrier(2)

        def consume(store) -> None:
            barrier.wait()
            results.append(PaperbotOAuthStateStore(store).consume(state))

        threads = [threading.Thread(target=consume, args=(s,)) for s in (any_store, other)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(results) == [False, True]
    finally:
        getattr(other, "dispose", other.close)()


def test_the_first_install_takes_no_row_stored_before_workspaces_and_tells_the_operator(
        installations, any_store, caplog):  # noqa: F811
    from bot.slack.oauth.flow import Welcome

    any_store.ensure_person("UOLD")  # a one-workspace database: its people are workspace ""'s
    any_store.add_topics("UOLD", ["private interests"])
    install = workspace_install(token=None)  # no bot token: no welcome DM to send (no Slack needed)
    installations.save(install)
    with caplog.at_level(logging.WARNING, logger="bot.slack.oauth.flow"):
        Welcome(None, any_store).once(install)
    assert any_store.get_topics("UOLD") == ["private interests"]
    assert any_store.for_workspace("T1").get_person("UOLD") is None
    assert any("`paperbot workspaces adopt TID`" in r.getMessage() for r in caplog.records), caplog.text


# -- a changed PAPERBOT_SECRET_KEY (PAPERBOT_OLD_SECRET_KEYS) -------------------------------------------

OLD, UNKNOWN = KEY + "-old", KEY + "-unknown"


def sealed_under(any_store, key: str, *installs: Installation) -> None:  # noqa: F811
    for installation in installs:
        PaperbotInstallationStore(any_store, TokenBox(key)).save(installation)


def test_rekey_reseals_what_an_old_key_sealed_and_names_what_no_key_opens(any_store):  # noqa: F811
    sealed_under(any_store, OLD, workspace_install(user="UA", token="xoxb-a"),
                 workspace_install(user="UB", token="xoxb-b"))
    sealed_under(any_store, KEY, workspace_install(team="T2", token="xoxb-t2"))
    sealed_under(any_store, UNKNOWN, workspace_install(team="T3", token="xoxb-t3"))
    rotated = PaperbotInstallationStore(any_store, TokenBox(KEY, [OLD]))
    assert rotated.rekey() == Rekeyed(resealed=2, opened=3, unopened=("T3",))
    # The new key alone opens them now, and the latest saved still serves the workspace.
    new_only = PaperbotInstallationStore(any_store, TokenBox(KEY))
    assert new_only.bot_token("T1") == "xoxb-b" and new_only.bot_token("T2") == "xoxb-t2"
    assert new_only.find_installation(enterprise_id=None, team_id="T1", user_id="UA").bot_token == "xoxb-a"
    assert rotated.rekey() == Rekeyed(resealed=0, opened=3, unopened=("T3",))  # twice: nothing more to do
    assert rotated.unreadable(None, "T3") == "T3"
    assert rotated.unreadable(None, "T1") is None and rotated.unreadable(None, "T9") is None


def test_a_workspace_installed_again_under_the_new_key_is_served_and_its_old_row_only_mentioned(
        any_store):  # noqa: F811
    sealed_under(any_store, UNKNOWN, workspace_install(user="UA", token="xoxb-lost"))
    sealed_under(any_store, KEY, workspace_install(user="UB", token="xoxb-again"))
    installations = PaperbotInstallationStore(any_store, TokenBox(KEY))
    assert installations.check_keys() == Rekeyed(resealed=0, opened=1, unopened=(), stale=("T1",))
    assert installations.bot_token("T1") == "xoxb-again" and installations.unreadable(None, "T1") is None


def test_at_start_each_workspace_no_key_opens_is_named_once_and_the_others_are_served(
        any_store, caplog):  # noqa: F811
    sealed_under(any_store, OLD, workspace_install(team="T1", token="xoxb-t1"))
    sealed_under(any_store, UNKNOWN, workspace_install(team="T2"), workspace_install(team="T3"))
    installations = PaperbotInstallationStore(any_store, TokenBox(KEY, [OLD]))
    with caplog.at_level(logging.INFO):
        found = installations.check_keys()
        assert installations.bot_token("T2") is None  # a digest run asking again: not said again
    assert found.unopened == ("T2", "T3") and found.resealed == 1
    errors = [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]
    assert len(errors) == 2 and all("PAPERBOT_OLD_SECRET_KEYS" in e and "\n" not in e for e in errors)
    assert "workspace T2 is not served" in errors[0] and "workspace T3 is not served" in errors[1]
    assert any("re-sealed 1 Slack installation under" in r.getMessage() for r in caplog.records)
    assert installations.bot_token("T1") == "xoxb-t1"


def test_rows_resealed_by_one_process_open_in_another_that_knows_the_new_key_only_as_an_old_one(
        any_store):  # noqa: F811
    # Rotating with several processes: first every process gets the new key among the old ones (it
    # still seals under the current one), then each in turn gets it as the current key.
    sealed_under(any_store, OLD, workspace_install())
    staged = PaperbotInstallationStore(any_store, TokenBox(OLD, [KEY]))
    assert staged.rekey().resealed == 0  # nothing to do while the old key is still the current one
    PaperbotInstallationStore(any_store, TokenBox(KEY, [OLD])).rekey()
    assert staged.bot_token("T1") == "xoxb-t1-secret"  # a process not restarted yet still reads it
    staged.save(workspace_install(user="UB", token="xoxb-by-the-old-process"))
    assert PaperbotInstallationStore(any_store, TokenBox(KEY, [OLD])).bot_token("T1") == \
        "xoxb-by-the-old-process"


def test_two_processes_resealing_at_once_each_row_once_and_all_open_with_the_new_key(
        any_store, store_target):  # noqa: F811
    from storage import open_store

    sealed_under(any_store, OLD, *(workspace_install(team=f"T{i}", token=f"xoxb-{i}") for i in range(20)))
    other = open_store(store_target)  # another process's connection to the same database
    try:
        found: list[Rekeyed] = []
        barrier = threading.Barrier(2)

        def rekey(store) -> None:
            installations = PaperbotInstallationStore(store, TokenBox(KEY, [OLD]))
            barrier.wait()
            found.append(installations.rekey())

        threads = [threading.Thread(target=rekey, args=(s,)) for s in (any_store, other)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sum(f.resealed for f in found) == 20 and all(f.unopened == () for f in found)
        new_only = PaperbotInstallationStore(any_store, TokenBox(KEY))
        assert [new_only.bot_token(f"T{i}") for i in range(20)] == [f"xoxb-{i}" for i in range(20)]
    finally:
        getattr(other, "dispose", other.close)()


def test_forgetting_the_installer_seals_their_installation_again_without_their_id_or_user_token(
        installations, any_store):  # noqa: F811
    installations.save(workspace_install(user="UADMIN", user_token="xoxp-admin", user_scopes="search:read"))
    installations.save(workspace_install(team="T2", user="UADMIN"))  # another workspace's: left alone
    any_store.for_workspace("T1").forget_person("UADMIN")  # the rows, and the installer_id column
    assert installations.forget_installer("T1", "UADMIN") == 1
    kept = installations.find_installation(enterprise_id=None, team_id="T1")
    assert (kept.user_id, kept.user_token, kept.user_scopes) == ("", None, [])
    assert kept.bot_token == "xoxb-t1-secret"  # the workspace is still served
    assert "UADMIN" not in TokenBox(KEY).open(any_store.find_installation("T1"))
    assert installations.forget_installer("T1", "UADMIN") == 0  # nothing left naming them
    assert installations.find_installation(enterprise_id=None, team_id="T2").user_id == "UADMIN"
