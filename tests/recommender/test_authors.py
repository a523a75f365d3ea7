from recommender.authors import AuthorIndex, fold


def index():
    idx = AuthorIndex()
    idx.add("p1", ["Andrea Bajcsy", "Anca D. Dragan"], "2023-05-01")
    idx.add("p2", ["A. Bajcsy"], "2024-02-01")
    idx.add("p3", ["Ben Bajcsy"], "2022-01-01")
    idx.add("p4", ["José Müller-Núñez"], None)
    return idx


def test_fold_drops_accents_and_case():
    assert fold("José  MÜLLER-Núñez") == ["jose", "muller", "nunez"]


def test_a_surname_alone_finds_every_author_of_that_name_newest_first():
    match = index().match("bajcsy")
    assert match.paper_ids == ["p2", "p1", "p3"]
    assert match.rest == ""
    assert match.by_name["p1"] == ["Andrea Bajcsy"]


def test_given_names_narrow_and_initials_fit_either_way():
    idx = index()
    assert idx.match("Andrea Bajcsy").paper_ids == ["p2", "p1"]  # "A. Bajcsy" may be her
    assert idx.match("A Bajcsy").paper_ids == ["p2", "p1"]
    assert idx.match("Ben Bajcsy").paper_ids == ["p3"]
    assert idx.match("Anca Dragan").paper_ids == ["p1"]
    assert idx.match("Carl Bajcsy") is None


def test_accents_and_case_are_ignored():
    assert index().match("jose muller-nunez").paper_ids == ["p4"]
    assert index().match("NÚÑEZ").paper_ids == ["p4"]


def test_the_other_words_of_a_query_are_its_rest():
    match = index().match("safe control Andrea Bajcsy")
    assert match.paper_ids == ["p2", "p1"] and match.rest == "safe control"


def test_a_surname_inside_a_topic_query_is_not_an_author():
    assert index().match("bajcsy robots") is None
    assert index().match("robots") is None


def test_re_adding_a_paper_replaces_its_authors_and_remove_forgets_them():
    idx = index()
    idx.add("p3", ["Carol Smith"])
    assert idx.match("Ben Bajcsy") is None
    assert idx.match("Smith").paper_ids == ["p3"]
    idx.remove("p3")
    assert idx.match("Smith") is None and len(idx) == 3


def test_a_bare_surname_inside_a_longer_query_counts_when_it_is_no_word_of_the_papers():
    idx = index()
    words = {"robots", "safety", "long"}.__contains__
    match = idx.match("bajcsy safety", is_word=words)
    assert match.bare and match.paper_ids == ["p2", "p1", "p3"] and match.rest == "safety"
    assert idx.match("safety Bajcsy", is_word=words).rest == "safety"
    idx.add("p5", ["Wei Long"])
    assert idx.match("long context", is_word=words) is None  # "long" is a word of the papers' text
    assert idx.match("robots", is_word=words) is None


def test_a_name_of_several_words_wins_over_a_bare_surname():
    idx = index()
    idx.add("p5", ["Carol Safety"])
    match = idx.match("safety Andrea Bajcsy", is_word=lambda w: False)
    assert not match.bare and match.paper_ids == ["p2", "p1"] and match.rest == "safety"
