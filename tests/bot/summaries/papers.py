"""Papers the summaries' tests ask about: made-up titles and abstracts long enough to be summarised, and for
each the summaries a model might write (faithful, or with something the abstract does not say)."""

from __future__ import annotations

from storage import Paper

SPARSE = Paper(
    id="sparse", title="Sparse Experts for Vision Transformers",
    abstract=("Mixture-of-experts (MoE) layers let a network grow without a matching growth in compute. We "
              "present V-MoE, a sparse version of the Vision Transformer (ViT) that scales to 15B "
              "parameters. "
              "On ImageNet, V-MoE reaches 90.35% top-1 accuracy while using half the compute at inference, "
              "and it trains on 1,000 TPU cores. It matches dense networks 3.5x larger. We also propose "
              "Batch "
              "Prioritized Routing, which skips the least useful tokens."))
SPARSE_FAITHFUL = ("V-MoE, a sparse Vision Transformer of up to 15B parameters, reaches 90.35% top-1 on "
                   "ImageNet with half the inference compute, matching dense networks 3.5x larger.")

GRAPHS = Paper(
    id="graphs", title="Message Passing on Large Graphs Without Oversmoothing",
    abstract=("Deep graph neural networks suffer from oversmoothing: node features become alike as layers "
              "are "
              "added. We introduce GRAND-Lite, a residual message-passing scheme that keeps a node's own "
              "signal at every layer. On the OGB-Arxiv and Cora benchmarks, a 64-layer GRAND-Lite improves "
              "accuracy by 2.1 points over a 2-layer GCN, and its training time grows linearly with depth."))
GRAPHS_FAITHFUL = ("GRAND-Lite keeps each node's own signal in residual message passing, so a 64-layer "
                   "network beats a 2-layer GCN by 2.1 points on OGB-Arxiv and Cora.")

SPEECH = Paper(
    id="speech", title="Streaming Speech Recognition with Chunked Attention",
    abstract=("Streaming speech recognition must answer before an utterance ends. We propose a chunked "
              "attention encoder that attends within fixed chunks of 640 ms and carries a compact memory "
              "across them. On LibriSpeech, it lowers the word error rate of a causal baseline by 12% "
              "relative, with a latency under 300 ms, and it needs no lookahead beyond the current chunk."))
SPEECH_FAITHFUL = ("A chunked attention encoder with a compact memory across 640 ms chunks cuts a causal "
                   "baseline's word error rate on LibriSpeech by 12% relative, under 300 ms latency.")

PROTEINS = Paper(
    id="proteins", title="Learning Protein Stability from Sequence Alone",
    abstract=("Predicting how mutations change a protein's stability usually needs its structure. We train a "
              "sequence-only model, StabSeq, on 400,000 measured mutations and show that it ranks "
              "stabilising mutations as well as structure-based tools on three held-out protein families, "
              "while running 100 times faster."))
PROTEINS_FAITHFUL = ("StabSeq, trained on 400,000 measured mutations, ranks stabilising mutations as well as "
                     "structure-based tools on three held-out families, 100 times faster.")

SHORT = Paper(id="short", title="A Note", abstract="Too short to be worth a summary.")

PAPERS = [SPARSE, GRAPHS, SPEECH, PROTEINS, SHORT]
