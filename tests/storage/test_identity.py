"""When two records are one paper (storage.identity): DOI spellings, title keys, surnames, venues."""

import pytest

from storage.identity import is_published_venue, normal_doi, share_a_surname, surname, title_key


@pytest.mark.parametrize("text", ["10.1000/XYZ.1", "doi:10.1000/xyz.1", "https://doi.org/10.1000/xyz.1",
                                  "http://dx.doi.org/10.1000/Xyz.1", "  DOI:10.1000/xyz.1 "])
def test_a_doi_in_any_spelling_is_one_doi(text):
    assert normal_doi(text) == "10.1000/xyz.1"


@pytest.mark.parametrize("text", [None, "", "xyz", "https://example.org/10.1000", "11.1000/x"])
def test_what_is_no_doi_is_none(text):
    assert normal_doi(text) is None


def test_titles_are_one_key_whatever_their_markup_case_punctuation_and_spacing():
    keys = {title_key(t) for t in [r"{\em Deep} Learning for $\mathcal{X}$-ray {S}chr\"odinger Maps",
                                   "Deep learning for X-ray Schrödinger maps.",
                                   "  DEEP   LEARNING: for x ray schrodinger MAPS  "]}
    assert keys == {"deep learning for x ray schrodinger maps"}
    assert title_key("Deep learning for X-ray Schrödinger maps, part 2") not in keys


def test_a_title_too_short_to_tell_papers_apart_has_no_key():
    assert title_key("Intro") is None
    assert title_key("") is None
    assert title_key(None) is None


@pytest.mark.parametrize(("name", "family"), [("Ana Duarte", "duarte"), ("A. Duarte", "duarte"),
                                              ("Duarte, Ana", "duarte"), ("Duarte A", "duarte"),
                                              ("J.-P. Sartre", "sartre"), ("Wei Li", "li"),
                                              ("José Muñoz Jr.", "munoz"), (r"M{\"u}ller", "muller"),
                                              ("A. B.", None)])
def test_the_surname_of_an_author_however_written(name, family):
    assert surname(name) == family


def test_initials_share_a_surname_with_the_full_name_but_strangers_do_not():
    assert share_a_surname(["A. Duarte", "B. Kim"], ["Carla Mendes", "Ana Duarte"])
    assert not share_a_surname(["Ana Duarte"], ["Ana Durante"])
    assert not share_a_surname([], ["Ana Duarte"])


@pytest.mark.parametrize(("venue", "published"), [("NeurIPS 2024", True), ("Nature", True), ("arXiv", False),
                                                  ("arXiv preprint arXiv:2401.1", False), (None, False),
                                                  ("", False), ("CoRR", False)])
def test_which_venues_say_published(venue, published):
    assert is_published_venue(venue) is published
