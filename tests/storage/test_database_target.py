"""What a database setting names, decided in one place (``storage.database_target``): a file path, a
``sqlite:///path`` (as SQLAlchemy reads it) or a PostgreSQL URL; any other ``scheme://`` is refused
naming the forms, without its password. Pure: no database is opened."""

import pytest

from storage import UnknownDatabase, database_target, is_new_file, remove_sqlite_file


@pytest.mark.parametrize("value, target", [
    ("paperbot.db", "paperbot.db"),
    ("/var/lib/paperbot/paperbot.db", "/var/lib/paperbot/paperbot.db"),
    ("sqlite:///x.db", "x.db"),
    ("sqlite:////var/lib/x.db", "/var/lib/x.db"),
    ("SQLITE:///data/x.db", "data/x.db"),
    ("postgresql://u:p@h:5432/db", "postgresql://u:p@h:5432/db"),
    ("postgres://u@h/db", "postgres://u@h/db"),
    (":memory:", ":memory:"),
])
def test_each_accepted_form_names_its_database(value, target):
    assert database_target(value) == target
    assert database_target(database_target(value)) == target  # twice changes nothing


@pytest.mark.parametrize("value", ["mysql://u:S3cret@foo/bar", "sqlite://x.db", "sqlite:///", "file:///x.db",
                                   "https://example.org/papers.db"])
def test_any_other_url_is_refused_naming_the_forms_without_its_password(value):
    with pytest.raises(UnknownDatabase) as refused:
        database_target(value)
    said = str(refused.value)
    assert "sqlite:///path" in said and "postgresql://user:password@host:port/dbname" in said
    assert "S3cret" not in said


def test_a_file_made_in_vain_goes_with_what_sqlite_keeps_beside_it(tmp_path):
    target = tmp_path / "x.db"
    assert is_new_file(str(target)) and not is_new_file("postgresql://h/db")
    for suffix in ("", "-wal", "-shm", "-journal", ".holds"):
        (tmp_path / f"x.db{suffix}").write_bytes(b"")
    (tmp_path / "other.db").write_bytes(b"")
    remove_sqlite_file(str(target))
    assert [p.name for p in tmp_path.iterdir()] == ["other.db"]
