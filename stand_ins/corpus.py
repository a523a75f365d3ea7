"""The five-topic synthetic corpus the tests and the benchmarks rank: topics whose words never meet."""

from __future__ import annotations

from storage import Paper

TOPIC_WORDS = {
    "cats": "feline cats whiskers purring kittens litter",
    "graphs": "graph neural networks message passing nodes edges",
    "diffusion": "diffusion models denoising score matching generative sampling",
    "robots": "robot manipulation grasping control locomotion arms",
    "quantum": "quantum circuits qubits entanglement error correction",
}


def make_corpus(per_topic: int = 8) -> list[Paper]:
    """Papers in five clearly separate topics, ids like ``cats-3``."""
    papers = []
    for topic, words in TOPIC_WORDS.items():
        vocab = words.split()
        for i in range(per_topic):
            rotated = vocab[i % len(vocab):] + vocab[: i % len(vocab)]
            abstract = (f"We study {' '.join(rotated)} in setting number {i}. "
                        f"Our {rotated[0]} method improves {rotated[1]} and {rotated[2]} results.")
            papers.append(Paper(id=f"{topic}-{i}", title=f"On {rotated[0]} and {rotated[1]} ({i})",
                                abstract=abstract, authors=[f"Author {topic} {i}"], venue="TestConf"))
    return papers

