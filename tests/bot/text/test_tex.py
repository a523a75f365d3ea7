import pytest

from bot.text.tex import math_to_text, split_formulas, tex_to_text


@pytest.mark.parametrize("raw, shown", [
    (r"A regret of $\Omega(\sqrt{T})$", "A regret of Ω(√T)"),
    (r"{\underline b}andits", "bandits"),
    (r"$x_1^2 + \alpha$ and $x_{ij}$", "x₁² + α and xᵢⱼ"),
    (r"$O(T^{2/3})$ regret", "O(T^(2/3)) regret"),
    (r"$\mathcal{O}(n \log n)$ time", "𝒪(n log n) time"),
    (r"\emph{fast} $\epsilon$-greedy", "fast ϵ-greedy"),
    ("H\\\"older's inequality", "Hölder's inequality"),
    ("``quoted'' -- a dash --- and another", "“quoted” – a dash — and another"),
    (r"the step size $\alpha_t$ decays", "the step size αₜ decays"),
    (r"then $\theta_{t+1} = \theta_t - \eta \nabla f(\theta_t)$", "then θₜ₊₁ = θₜ - η ∇f(θₜ)"),
    (r"\texttt{torch.compile} is $\pi$ times faster", "torch.compile is π times faster"),
    (r"\(a \leq b\) and \[x \in \mathbb{R}^d\]", "a ≤ b and x ∈ ℝᵈ"),
    (r"$$\sum_{i=1}^{n} x_i \to \infty$$", "∑ᵢ₌₁ⁿ xᵢ → ∞"),
    (r"$10^{4}$ and 10^{4} samples", "10⁴ and 10⁴ samples"),
])
def test_tex_reads_as_unicode(raw, shown):
    assert tex_to_text(raw) == shown


@pytest.mark.parametrize("formula, shown", [
    (r"\frac{1}{2}", "1/2"),
    (r"\frac{n-1}{n+1}", "(n-1)/(n+1)"),
    (r"\frac{\partial f}{\partial x}", "∂f/∂x"),
    (r"\frac{1}{\alpha\epsilon}k \frac{1}{\sqrt{n+1}}", "1/(αϵ) k 1/√(n+1)"),
    (r"\frac{1}{2}\log n", "1/2 log n"),
    (r"\sqrt{x+1}", "√(x+1)"),
    (r"\sqrt[3]{x}", "³√x"),
    (r"x^{\top} A x", "xᵀ A x"),
    (r"\theta_{\max}", "θₘₐₓ"),
    (r"p_{\text{data}}", "p_(data)"),
    (r"\mathbb{E}_{x \sim p}[f(x)]", "𝔼_(x ∼ p)[f(x)]"),
    (r"\exp(-x) \propto \mathrm{softmax}", "exp(-x) ∝ softmax"),
    (r"a \neq b, \; c \notin S \subset T", "a ≠ b, c ∉ S ⊂ T"),
    (r"\hat{\theta} \approx \tilde{O}(1)", "θ̂ ≈ Õ(1)"),
    (r"\left\{ x \mid x > 0 \right\}", "{ x | x > 0 }"),
    (r"\begin{cases} 1 & x > 0 \\ 0 & \text{otherwise} \end{cases}", "1 x > 0; 0 otherwise"),
    (r"{n \choose k} \binom{n}{k}", "(n choose k) (n choose k)"),
    (r"\|x\|_2 \le \norm{y}", "‖x‖₂ ≤ ‖y‖"),
    (r"\not\in \not\subset", "∉ ⊄"),
    (r"\mathcal{L}_{\mathrm{CE}}", "ℒ_(CE)"),
    (r"\cO(\sqrt{T}) \R^n \eps", "𝒪(√T) ℝⁿ ε"),
    (r"x^{(k)} y^{2/3}", "x⁽ᵏ⁾ y^(2/3)"),
    (r"f^* g^\prime", "f* g′"),
    (r"\|x\|\leq \epsilon, S\setminus U, \alpha,\beta\in(0,1), 2\log n",
     "‖x‖ ≤ ϵ, S ∖ U, α,β∈(0,1), 2 log n"),
    (r"\widetilde{O}(m) \overline{AB} \mathcal{O}\l(\varepsilon\r)", "Õ(m) A̅B̅ 𝒪(ε)"),
])
def test_formulas_read_as_text(formula, shown):
    assert math_to_text(formula) == shown


@pytest.mark.parametrize("raw", [
    r"\vocabulary of $\manifoldmixup(x)$",
    r"$\foo{x} + \bar$",
    r"\begin{itemize}\item one \item two\end{itemize}",
    r"$\left. \frac{a}{b} \right|_{x=0}$",
    r"\href{http://a}{text} \url{http://b_c}",
    r"$\operatorname*{arg\,max}_{\theta} \mathcal{L}(\theta)$",
    r"$\mathrel{\mathop:}= \stackrel{def}{=} \underset{x}{\min}$",
    r"$x\\y$ \\ \relax\protect",
])
def test_no_command_ever_shows(raw):
    shown = tex_to_text(raw)
    assert "\\" not in shown and shown


@pytest.mark.parametrize("text", [
    "plain words, 50% of them & more <b>",
    "It costs $10 to run",
    "a_b file_name x^2",
])
def test_text_that_is_not_tex_is_kept(text):
    assert tex_to_text(text) == text


@pytest.mark.parametrize("raw, shown", [
    (r"\href{http://a}{text}", "text"),
    (r"\begin{itemize} \item", "•"),
    ("}{", "}{"),
    (r"\frac{a}", "a/"),
    (r"$x^$", "x"),
    ("{" * 3000 + "deep", "deep"),
])
def test_malformed_tex_never_raises(raw, shown):
    assert tex_to_text(raw) == shown


def test_tex_keeps_the_words_of_unbalanced_groups_lone_dollars_and_money():
    assert tex_to_text(r"a {group never closed and $x$ costs $5") == "a group never closed and x costs $5"
    assert tex_to_text(r"costs $10 and $20 more, \emph{really}") == "costs $10 and $20 more, really"
    assert tex_to_text(r"up by ~10% (Fig.~3), \textit{i.e.}") == "up by ~10% (Fig. 3), i.e."
    assert tex_to_text("") == ""


def test_formulas_are_told_apart_from_text():
    assert split_formulas(r"a $x$ b \(y\) c $$z$$ \$ d") == [
        ("a ", False), ("x", True), (" b ", False), ("y", True), (" c ", False), ("z", True),
        (r" \$ d", False)]


def test_random_tex_never_raises_hangs_or_shows_a_command():
    # Seeded scraps of TeX, malformed on purpose: unclosed groups, stray delimiters, commands cut short.
    import random
    import re

    scraps = [r"\alpha", r"\frac", "{", "}", "$", "$$", "^", "_", "x", "1", " ", r"\left", r"\right", ".",
              r"\sqrt", "[", "]", r"\begin", r"\end", r"\text", "\\\\", "\\", "%", "&", "~", "'", "`", "-",
              r"\mathbb", r"\foo", r"\(", r"\)", r"\[", r"\]", r"\over", r"\not", r"\url", r"\href",
              r"\cite", '\\"', r"\c", "a", r"\textcolor", r"\SI"]
    rng = random.Random(23)
    for _ in range(3000):
        raw = "".join(rng.choice(scraps) for _ in range(rng.randint(1, 25)))
        assert not re.search(r"\\[A-Za-z]", tex_to_text(raw)), raw
