"""BibTeX of saved and liked papers: valid, parsed back by bibtexparser to the same text, keys unique."""

from __future__ import annotations

import bibtexparser
import pytest
from bibtexparser.library import Library
from bibtexparser.middlewares import LatexDecodingMiddleware
from bibtexparser.model import Entry, Field

from bot.presentation.bibtex import SPECIALS, bibtex, doi_of, entry_type, latex
from bot.text.tex import tex_to_text
from storage import Paper

ARXIV = Paper(id="arxiv:2401.01234", title="Learning Cats & Dogs", abstract="We learn.",
              authors=["Ann Smith"], url="https://arxiv.org/abs/2401.01234v2", published="2024-01-15",
              categories=["cs.LG", "stat.ML"], arxiv_id="2401.01234", arxiv_version=2)


def parsed(text: str):
    library = bibtexparser.parse_string(text, append_middleware=[LatexDecodingMiddleware()])
    assert library.failed_blocks == [], [b.error for b in library.failed_blocks]
    return library


def test_every_special_character_is_escaped_and_reads_back_as_itself():
    hostile = "Costs & 50% of $x_1$ #2 {a} ~b ^c \\d"
    encoded = latex(hostile)
    for char in "&%$#_":
        assert f"\\{char}" in encoded
    assert "\\textbackslash" in encoded and "\\textasciitilde" in encoded and "\\textasciicircum" in encoded
    library = Library()
    library.add(Entry("misc", "k", [Field("title", encoded)]))
    title = parsed(bibtexparser.write_string(library)).entries[0].fields_dict["title"].value
    # LaTeX's \textasciicircum reads back as the modifier letter; everything else as typed.
    assert title.replace("ˆ", "^") == hostile
    assert set(SPECIALS) == set("&%$#_{}~^\\")
    plain = "Costs & 50% of #2 ~b ^c_d"  # no TeX in it: exported as it is, escaped
    paper = Paper(id="p", title=plain, abstract="x", authors=["Zoë Ñandú", "Bob & Co"])
    entry = parsed(bibtex([paper])).entries[0]
    assert entry.fields_dict["title"].value.replace("ˆ", "^") == plain
    assert entry.fields_dict["author"].value == "Zoë Ñandú and Bob & Co"


def test_tex_in_titles_abstracts_and_names_is_exported_as_it_reads():
    paper = Paper(id="p", title=r"$\Omega(\sqrt{T})$ regret for {\underline b}andits",
                  abstract=r"We show $O(n^2)$ bounds.", authors=[r'Kurt G\"odel'], published="1931")
    entry = parsed(bibtex([paper])).entries[0]
    fields = {k: f.value for k, f in entry.fields_dict.items()}
    assert fields["title"] == "Ω(√T) regret for bandits"
    assert fields["abstract"] == "We show O(n²) bounds." and fields["author"] == "Kurt Gödel"
    assert entry.key == "godel1931regret"


def test_braces_in_a_title_never_unbalance_the_entry():
    papers = [Paper(id="a", title="Only an opening { brace", abstract="x"),
              Paper(id="b", title="Only a closing } brace", abstract="y")]
    library = parsed(bibtex(papers))
    assert [e.fields_dict["title"].value for e in library.entries] == [tex_to_text(p.title) for p in papers]


def test_arxiv_papers_carry_eprint_archive_prefix_primary_class_year_and_url():
    entry = parsed(bibtex([ARXIV])).entries[0]
    fields = {k: f.value for k, f in entry.fields_dict.items()}
    assert entry.entry_type == "misc"
    assert fields["eprint"] == "2401.01234" and fields["archivePrefix"] == "arXiv"
    assert fields["primaryClass"] == "cs.LG" and fields["year"] == "2024"
    assert fields["url"] == "https://arxiv.org/abs/2401.01234v2"
    assert fields["author"] == "Ann Smith" and fields["title"] == "Learning Cats & Dogs"


@pytest.mark.parametrize(("paper", "doi"), [
    (Paper(id="doi:10.1145/3366423.3380130", abstract="x"), "10.1145/3366423.3380130"),
    (Paper(id="p", abstract="x", url="https://doi.org/10.1000/xyz_(1)"), "10.1000/xyz_(1)"),
    (Paper(id="p", abstract="x", url="https://example.org/10.1000/not-a-doi-host"), None),
])
def test_dois_come_from_the_id_or_a_doi_url(paper, doi):
    assert doi_of(paper) == doi


def test_a_doi_and_its_url_are_kept_as_they_are():
    paper = Paper(id="doi:10.1000/a_b%c", title="T", abstract="x", url="https://doi.org/10.1000/a_b%c")
    fields = {k: f.value for k, f in parsed(bibtex([paper])).entries[0].fields_dict.items()}
    assert fields["doi"] == "10.1000/a_b%c" and fields["url"] == "https://doi.org/10.1000/a_b%c"


def test_keys_are_surname_year_word_and_unique():
    same = [Paper(id=f"p{i}", title="The Cats of Rome", abstract="x", authors=["Ann Smith"],
                  published="2024-03-01") for i in range(3)]
    others = [Paper(id="q", title="Ёжик in fog", abstract="x", authors=["Müller, Jürgen"], published="1999"),
              Paper(id="r", title="", abstract="Untitled work on graphs", authors=[]),
              Paper(id="s", title="a", abstract="x", authors=["Ann Smith"], published="2024")]
    keys = [e.key for e in parsed(bibtex(same + others)).entries]
    assert keys[:3] == ["smith2024cats", "smith2024catsa", "smith2024catsb"]
    assert keys[3] == "muller1999fog" and keys[4] == "anonuntitled"
    assert len(set(keys)) == len(keys)
    assert all(k.isascii() and k.isalnum() for k in keys)


def test_many_papers_with_one_key_stay_unique():
    papers = [Paper(id=f"p{i}", title="Same", abstract="x", authors=["A B"], published="2020")
              for i in range(60)]
    keys = [e.key for e in parsed(bibtex(papers)).entries]
    assert len(set(keys)) == 60


def test_no_papers_is_an_empty_file():
    assert parsed(bibtex([])).entries == []


def test_a_url_with_braces_or_spaces_is_percent_encoded_and_the_entry_stays_whole():
    paper = Paper(id="p", title="T", abstract="x", url="https://example.org/a b/{c}")
    fields = {k: f.value for k, f in parsed(bibtex([paper])).entries[0].fields_dict.items()}
    assert fields["url"] == "https://example.org/a%20b/%7Bc%7D"


@pytest.mark.parametrize(("venue", "kind"), [
    ("NeurIPS 2024", "inproceedings"),
    ("ICML 2025 Papers", "inproceedings"),
    ("Proceedings of the 41st International Conference on Machine Learning", "inproceedings"),
    ("Conference on Robot Learning (CoRL)", "inproceedings"),
    ("Proceedings of Machine Learning Research", "inproceedings"),
    ("Journal of Machine Learning Research", "article"),
    ("IEEE Transactions on Robotics", "article"),
    ("IEEE Robotics and Automation Letters", "article"),
    ("Proceedings of the National Academy of Sciences", "article"),
    ("Nature Machine Intelligence", "article"),
    ("Machine Learning", "article"),
    ("arXiv", "misc"), ("arXiv preprint", "misc"), ("CoRR", "misc"), (None, "misc"), ("", "misc"),
    ("Zenodo", "misc"),
])
def test_the_entry_type_follows_the_venue(venue, kind):
    assert entry_type(venue) == kind


def test_a_conference_paper_is_inproceedings_with_its_booktitle_and_keeps_its_arxiv_eprint():
    paper = Paper(id="arxiv:2401.01234", title="Safe Cats", abstract="We learn.", authors=["Ann Smith"],
                  venue="Conference on Robot Learning (CoRL) & friends", published="2024-11-06",
                  arxiv_id="2401.01234", doi="10.5555/corl.2024.7", url="https://arxiv.org/abs/2401.01234")
    entry = parsed(bibtex([paper])).entries[0]
    fields = {k: f.value for k, f in entry.fields_dict.items()}
    assert entry.entry_type == "inproceedings"
    assert fields["booktitle"] == "Conference on Robot Learning (CoRL) & friends"
    assert "howpublished" not in fields and "journal" not in fields
    assert fields["eprint"] == "2401.01234" and fields["archivePrefix"] == "arXiv"
    assert fields["doi"] == "10.5555/corl.2024.7"  # the DOI stored with the paper, not in its id or URL


def test_a_journal_paper_is_an_article_with_its_journal_and_a_preprint_stays_misc():
    journal = Paper(id="j", title="Cats", abstract="x", authors=["Ann Smith"], published="2023",
                    venue="Journal of Feline Research")
    library = parsed(bibtex([journal, ARXIV]))
    article, preprint = library.entries
    assert article.entry_type == "article"
    assert article.fields_dict["journal"].value == "Journal of Feline Research"
    assert "booktitle" not in article.fields_dict and "howpublished" not in article.fields_dict
    assert preprint.entry_type == "misc" and "howpublished" not in preprint.fields_dict
    assert preprint.fields_dict["eprint"].value == "2401.01234"


def _entry(paper: Paper):
    entry = parsed(bibtex([paper])).entries[0]
    return entry, {k: f.value for k, f in entry.fields_dict.items()}


def test_a_corl_paper_gets_its_year_from_the_venue_a_readable_key_and_unicode_maths():
    # What a tester exported: a CoRL 2025 paper with no date, Markdown in its title, TeX in its abstract.
    paper = Paper(id="corl-1", title="*A **Blockwise Learning Rate (LR)** strategy*",
                  abstract=r"We train on $10^{4}$ episodes with step size $\alpha_t$ & 50% fewer.",
                  authors=["Zhang, Wei", "Ann Smith"], venue="CoRL 2025")
    text = bibtex([paper])
    entry, fields = _entry(paper)
    assert entry.key == "zhang2025blockwise" and fields["year"] == "2025"
    assert fields["title"] == "A Blockwise Learning Rate (LR) strategy"
    assert fields["abstract"] == "We train on 10⁴ episodes with step size αₜ & 50% fewer."
    assert "10{⁴}" not in text and "{" + "⁴" not in text and "**" not in text and "\\alpha" not in text
    assert "10⁴" in text and r"\& 50\% fewer" in text


@pytest.mark.parametrize(("published", "venue", "year"), [
    ("2024-05-01", "CoRL 2025", "2024"),  # the date wins
    (None, "Proceedings of the 2023 Conference on Robot Learning", "2023"),
    (None, "ICML", None), ("soon", None, None), (None, "Volume 12345", None),
])
def test_the_year_comes_from_the_date_else_the_venue_else_is_left_out(published, venue, year):
    fields = _entry(Paper(id="p", title="Cats", abstract="x", published=published, venue=venue))[1]
    assert fields.get("year") == year


@pytest.mark.parametrize(("author", "key"), [
    ("Zhang, Wei", "zhang2025cats"),
    ("Ludwig van der Maaten", "vandermaaten2025cats"),
    ("van der Maaten, Laurens", "vandermaaten2025cats"),
    ("Martin Luther King Jr.", "king2025cats"),
    ("Łukasz Kaiser", "kaiser2025cats"),
    ("Jürgen Schmidhuber", "schmidhuber2025cats"),
    ("Le Song", "song2025cats"),
    (r"Kurt G\"odel", "godel2025cats"),
    ("Ann Smith and Bob Jones", "smith2025cats"),  # several names in one string: the first's
    ("张伟", "anon2025cats"),  # no ASCII spelling to fold to
])
def test_keys_take_the_first_authors_surname_folded_to_ascii(author, key):
    paper = Paper(id="p", title="The Cats of Rome", abstract="x", authors=[author], published="2025")
    assert _entry(paper)[0].key == key


def test_keys_without_authors_year_or_a_title_word_stay_valid_and_unique():
    papers = [Paper(id="a", title="On the Of", abstract="x"),
              Paper(id="b", title="On the Of", abstract="y"),
              Paper(id="c", title="$\\Omega(\\sqrt{T})$ for all", abstract="z", authors=["Ann Smith"]),
              Paper(id="d", title="Is it?", abstract="w", authors=["Ann Smith"], published="2020")]
    entries = parsed(bibtex(papers)).entries
    assert [e.key for e in entries] == ["anon", "anona", "smith", "smith2020"]
    assert all("year" not in e.fields_dict for e in entries[:3])
