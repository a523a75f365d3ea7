import pytest

from bot.presentation.tex import tex_to_text


@pytest.mark.parametrize("raw, shown", [
    (r"A regret of $\Omega(\sqrt{T})$", "A regret of Ω(√(T))"),
    (r"{\underline b}andits", "bandits"),
    (r"$x_1^2 + \alpha$ and $x_{ij}$", "x₁² + α and xᵢⱼ"),
    (r"$O(T^{2/3})$ regret", "O(T^(2/3)) regret"),
    (r"$\mathcal{O}(n \log n)$ time", "𝒪(n log n) time"),
    (r"\emph{fast} $\epsilon$-greedy", "fast ϵ-greedy"),
    (r"H\"older's inequality", "Hölder's inequality"),
    ("``quoted'' -- a dash", "“quoted” – a dash"),
])
def test_tex_reads_as_unicode(raw, shown):
    assert tex_to_text(raw) == shown


@pytest.mark.parametrize("text", [
    "plain words, 50% of them & more <b>",
    "It costs $10 to run",
    "a_b file_name x^2",
])
def test_text_that_is_not_tex_is_kept(text):
    assert tex_to_text(text) == text


@pytest.mark.parametrize("raw", [
    r"\href{http://a}{text}",  # pylatexenc raises on this
    r"\begin{itemize} \item",
    "}{",
])
def test_malformed_tex_never_raises_and_falls_back_to_the_raw_text(raw):
    assert tex_to_text(raw) == " ".join(raw.split())


def test_tex_keeps_the_words_of_unbalanced_groups_and_lone_dollars():
    assert tex_to_text(r"a {group never closed and $x$ costs $5") == "a group never closed and x costs $5"
    assert tex_to_text("") == ""
