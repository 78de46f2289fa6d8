"""Encoding for the main job, before and after, on the same sample in one run.

    python -m structfirst.eval.bench_encode [--sample 1000] [--seed 0] [--rounds 3]
        [--queries data/queries/dev.jsonl] [--only dense|colbert-encoder|colbert]
        [--index DIR | SOURCE...]

The sample is `--sample` indexable passages drawn (seeded) from an index's snapshot (`--index`)
or from the sources (default: the Title 11 editions and Regulations B/E/M, as the README's main
job ingests them). Then:

* dense: passages/s of each encoder setting (`DENSE_SETTINGS`: fixed batches of 32 on torch, then
  token-budget length buckets on each backend, torch / torch-int8 / onnx / onnx-int8), timed in
  `--rounds` rounds that interleave the settings, and its speed relative to the first; for each
  setting, how the rankings of the dev questions over the sample agree with the first setting's:
  top-1 equal and mean overlap of the top 10, counted over distinct texts (versions of a
  provision often share their text, and such ties may fall either way), and the min and mean
  cosine of each passage's two vectors;
* ColBERT's document encoder: passages/s of each `CHECKPOINT_BACKENDS` entry encoding the sample's
  distinct texts through colbert-ai's `docFromText` as indexing calls it (batches of
  `index_bsize`, each trimmed to its longest passage), timed in interleaved rounds, and its speed
  relative to torch's; the min and mean cosine of each token vector to torch's; and, for the dev
  questions (encoded by torch), how the MaxSim order of the sample under each backend's
  document vectors agrees with torch's: top-1 equal, mean overlap of the top 10, and Kendall's
  tau of the scores of torch's top `RERANK_CANDIDATES`;
* ColBERT: build seconds, partitions and k-means sample of colbert-ai's own plan and of the
  corpus-sized plan (`EncoderConfig.partitions_per_sqrt`, `kmeans_sample_per_sqrt`), and each
  index's recall@100 of PLAID search against exhaustive MaxSim over the same index on the dev
  questions (the share of the exhaustive top 100 that PLAID's top 100 holds).

Prints one JSON object per measurement and a summary table.
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
from structfirst.ingest.corpus import REPO_ROOT, corpus_root
from structfirst.ingest.encoder_config import EncoderConfig
from structfirst.ingest.index_builder import IndexableDoc

DEFAULT_QUERIES = REPO_ROOT / "data" / "queries" / "dev.jsonl"


def sample_docs(sources: list[Path], n: int, seed: int) -> list[IndexableDoc]:
    from structfirst.ingest.pipeline import find_sources, indexable_docs, parse_sources
    from structfirst.ingest.versioning import build_versions

    files, _ = find_sources(sources)
    parsed, _, _ = parse_sources(files, {}, progress=False)
    docs = indexable_docs(build_versions(parsed))
    return sorted(random.Random(seed).sample(docs, min(n, len(docs))), key=lambda d: d.version_id)


def dev_questions(path: Path) -> list[str]:
    questions = []
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            try:
                questions.append(json.loads(line)["question"])
            except (json.JSONDecodeError, KeyError) as exc:
                raise ValueError(f"{path}:{lineno}: no question ({exc})") from exc
    return list(dict.fromkeys(questions))


def distinct_texts(hits: list[tuple[str, float]], text_of: dict[str, str], n: int) -> list[str]:
    """The first `n` distinct texts of a ranking."""
    return list(dict.fromkeys(text_of[d] for d, _ in hits))[:n]


def snapshot_sample(index_dir: Path, n: int, seed: int) -> list[IndexableDoc]:
    """`n` passages (seeded) of the current snapshot of `index_dir`, as its indexes hold them."""
    from structfirst.ingest.snapshot import open_snapshot
    from structfirst.ingest.snapshot_passages import snapshot_passages

    docs = snapshot_passages(open_snapshot(index_dir).path)
    return sorted(random.Random(seed).sample(docs, min(n, len(docs))), key=lambda d: d.version_id)


DENSE_SETTINGS = {  # name: (backend, batch_tokens, max_batch); the first is the reference
    "before: batches of 32, torch": ("torch", 32 * 1024, 32),
    "length buckets, torch": ("torch", 8192, 256),
    "length buckets, torch-int8": ("torch-int8", 8192, 256),
    "length buckets, onnx": ("onnx", 8192, 256),
    "length buckets, onnx-int8": ("onnx-int8", 8192, 256),
}


def bench_dense(
    docs: list[IndexableDoc], questions: list[str], out: Path, rounds: int
) -> list[dict[str, Any]]:
    """Each setting encodes the sample once per round, the settings interleaved within a round
    (so a busy machine slows them alike); passages/s is that of the median round."""
    from structfirst.engine.dense_plane import DensePlane
    from structfirst.ingest.dense_index import DenseEncoder, DenseIndexBuilder

    encoders = {}
    for name, (backend, _, _) in DENSE_SETTINGS.items():
        encoders[name] = DenseEncoder(EncoderConfig.resolve(dense_backend=backend))
        encoders[name].encode_passages(["warm up the encoder"])  # and export an ONNX model
    seconds: dict[str, list[float]] = {name: [] for name in DENSE_SETTINGS}
    targets: dict[str, Path] = {}
    for r in range(rounds):
        for i, (name, (_, batch_tokens, max_batch)) in enumerate(DENSE_SETTINGS.items()):
            targets[name] = out / f"dense-{i}-{r}" / "snap" / "dense"
            builder = DenseIndexBuilder(encoders[name].config, cache_dir=out / f"cache-{i}-{r}",
                                        encoder=encoders[name], progress=False,
                                        batch_tokens=batch_tokens, max_batch=max_batch)
            seconds[name].append(builder.build(docs, targets[name])["encode_seconds"])
    text_of = {d.version_id: d.contents for d in docs}
    rows: list[dict[str, Any]] = []
    reference: list[list[str]] = []
    first_vectors = None
    first_seconds = None
    for name, encoder in encoders.items():
        plane = DensePlane(targets[name], encoder.config, encoder)
        ranked = [distinct_texts(plane.search(q, 40), text_of, 10) for q in questions]
        reference = reference or ranked
        pairs = list(zip(ranked, reference, strict=True))
        top1 = np.mean([a[:1] == b[:1] for a, b in pairs])
        overlap = np.mean([len(set(a) & set(b)) / max(len(b), 1) for a, b in pairs])
        vectors = plane.index.reconstruct_n(0, plane.index.ntotal)
        first_vectors = vectors if first_vectors is None else first_vectors
        cosines = np.sum(vectors * first_vectors, axis=1)
        median = float(np.median(seconds[name]))
        first_seconds = first_seconds or median
        rows.append({"bench": "dense", "setting": name, "passages": len(docs),
                     "encode_seconds": [round(t, 2) for t in seconds[name]],
                     "passages_per_s": round(len(docs) / median, 1),
                     "speed_vs_first": round(first_seconds / median, 2),
                     "top1_same": round(float(top1), 3),
                     "top10_overlap": round(float(overlap), 3),
                     "min_cosine": round(float(cosines.min()), 4),
                     "mean_cosine": round(float(cosines.mean()), 4)})
        print(json.dumps(rows[-1]), flush=True)
    return rows


RERANK_CANDIDATES = 50


def bench_colbert_encoder(
    docs: list[IndexableDoc], questions: list[str], out: Path, rounds: int
) -> list[dict[str, Any]]:
    """Each backend encodes the sample once per round, the backends interleaved within a round;
    passages/s is that of the median round."""
    import torch
    from scipy.stats import kendalltau
    from structfirst.ingest.colbert_index import (
        colbert_settings,
        import_colbert,
        resolve_checkpoint,
        unpadded_doc_batches,
    )
    from structfirst.ingest.colbert_onnx import CHECKPOINT_BACKENDS, doc_checkpoint_class

    config = EncoderConfig.resolve()
    checkpoint = str(resolve_checkpoint(config, out / "cache"))
    import_colbert()
    settings = colbert_settings(config)
    models = {b: doc_checkpoint_class(b)(checkpoint, colbert_config=settings, verbose=0)
              for b in CHECKPOINT_BACKENDS}
    texts = list(dict.fromkeys(d.contents for d in docs))
    seconds: dict[str, list[float]] = {b: [] for b in models}
    vectors: dict[str, list[Any]] = {}
    with unpadded_doc_batches():
        for model in models.values():
            model.docFromText(texts[:8], bsize=settings.index_bsize, keep_dims="flatten")
        for _ in range(rounds):
            for backend, model in models.items():
                t0 = time.perf_counter()
                flat, doclens = model.docFromText(texts, bsize=settings.index_bsize,
                                                  keep_dims="flatten")
                seconds[backend].append(time.perf_counter() - t0)
                vectors[backend] = list(torch.split(flat.float(), doclens))
    queries = models["torch"].queryFromText(questions, bsize=32).float()  # [q, tokens, dim]

    def maxsim(docs_vectors: list[Any]) -> np.ndarray:  # [questions, passages]
        return torch.stack([torch.einsum("qtd,nd->qtn", queries, d).max(-1).values.sum(-1)
                            for d in docs_vectors], dim=1).numpy()

    reference_scores = maxsim(vectors["torch"])
    reference_order = np.argsort(-reference_scores, axis=1, kind="stable")
    torch_median = float(np.median(seconds["torch"]))
    rows = []
    for backend in models:
        cosines = torch.cat([(a * b).sum(-1) for a, b in zip(vectors[backend], vectors["torch"],
                                                             strict=True)])
        scores = maxsim(vectors[backend])
        order = np.argsort(-scores, axis=1, kind="stable")
        candidates = reference_order[:, :RERANK_CANDIDATES]
        taus = [kendalltau(reference_scores[i, c], scores[i, c]).statistic
                for i, c in enumerate(candidates)]
        median = float(np.median(seconds[backend]))
        rows.append({"bench": "colbert-encoder", "setting": backend, "passages": len(texts),
                     "encode_seconds": [round(t, 2) for t in seconds[backend]],
                     "passages_per_s": round(len(texts) / median, 1),
                     "speed_vs_torch": round(torch_median / median, 2),
                     "min_cosine": round(float(cosines.min()), 4),
                     "mean_cosine": round(float(cosines.mean()), 4),
                     "top1_same": round(float(np.mean(order[:, 0] == reference_order[:, 0])), 3),
                     "top10_overlap": round(float(np.mean(
                         [len(set(a[:10]) & set(b[:10])) / 10
                          for a, b in zip(order, reference_order, strict=True)])), 3),
                     f"kendall_tau@{RERANK_CANDIDATES}": round(float(np.mean(taus)), 3)})
        print(json.dumps(rows[-1]), flush=True)
    return rows


def bench_colbert(
    docs: list[IndexableDoc], questions: list[str], out: Path
) -> list[dict[str, Any]]:
    from structfirst.engine.colbert_plane import ColbertPlane
    from structfirst.ingest.colbert_index import ColbertIndexBuilder

    base = EncoderConfig.resolve()
    settings = {
        "before: colbert-ai's plan": replace(base, partitions_per_sqrt=None,
                                              kmeans_sample_per_sqrt=None),
        "after: corpus-sized plan": base,
    }
    ids = frozenset(d.version_id for d in docs)
    rows = []
    for name, config in settings.items():
        target = out / f"colbert-{len(rows)}" / "snap" / "colbert"
        t0 = time.perf_counter()
        figures = ColbertIndexBuilder(config, cache_dir=out / "cache", progress=False).build(
            docs, target
        )
        seconds = time.perf_counter() - t0
        plane = ColbertPlane(target, config, exact_limit=len(docs))
        recalls = []
        for q in questions:
            exhaustive = {d for d, _ in plane.search(q, 100, ids)}  # exact_limit: every passage
            plaid = {d for d, _ in plane.search(q, 100)}
            recalls.append(len(plaid & exhaustive) / max(len(exhaustive), 1))
        rows.append({"bench": "colbert", "setting": name, "passages": len(docs),
                     "build_seconds": round(seconds, 1), "partitions": figures["partitions"],
                     "kmeans_sample": figures["kmeans_sample"], "embeddings": figures["embeddings"],
                     "recall@100_vs_exhaustive": round(float(np.mean(recalls)), 4)})
        print(json.dumps(rows[-1]), flush=True)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sources", nargs="*", type=Path)
    ap.add_argument("--sample", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--queries", type=Path, default=DEFAULT_QUERIES)
    ap.add_argument("--only", choices=("dense", "colbert-encoder", "colbert"))
    ap.add_argument("--index", type=Path, help="sample the passages of this index's snapshot")
    ap.add_argument("--rounds", type=int, default=3,
                    help="dense, colbert-encoder: interleaved timing rounds")
    args = ap.parse_args()
    if args.index:
        docs = snapshot_sample(args.index, args.sample, args.seed)
    else:
        root = corpus_root()
        sources = args.sources or [root / "us-code" / "title-11", root / "cfr-12" / "regulation"]
        docs = sample_docs(sources, args.sample, args.seed)
    questions = dev_questions(args.queries)
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-encode-") as tmp:
        if args.only in (None, "dense"):
            rows += bench_dense(docs, questions, Path(tmp), args.rounds)
        if args.only in (None, "colbert-encoder"):
            rows += bench_colbert_encoder(docs, questions, Path(tmp), args.rounds)
        if args.only in (None, "colbert"):
            rows += bench_colbert(docs, questions, Path(tmp))
    print(f"\n{len(docs)} passages, {len(questions)} dev questions")
    for row in rows:
        figures = {k: v for k, v in row.items() if k not in ("bench", "setting", "passages")}
        print(f"{row['bench']:8} {row['setting']:32} {figures}")


if __name__ == "__main__":
    main()
