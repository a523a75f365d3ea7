"""A person's number of followed authors' papers a digest (``author_picks``, m021), on both backends."""

from storage import Person


def test_author_picks_is_a_setting_read_and_written_by_name(any_store):
    assert any_store.ensure_person("U1").author_picks is None  # the default, whatever it is
    any_store.set_person_settings("U1", author_picks=0)
    assert any_store.get_person("U1").author_picks == 0  # none: not the default
    any_store.set_person_settings("U2", author_picks=7)  # a new person is made
    assert any_store.get_person("U2") == Person("U2", digest_enabled=False, author_picks=7)
    other = any_store.for_workspace("T2")
    assert other.get_person("U2") is None
    any_store.set_person_settings("U1", author_picks=None)
    assert any_store.get_person("U1").author_picks is None
