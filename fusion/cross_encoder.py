"""f_theta as a trained cross-encoder: the packaged MiniLM fine-tuned to score (question, passage).

`CrossEncoderAdapter(...).fit(triples, passages, out_dir)` starts from the base model (default:
the packaged all-MiniLM-L6-v2, with a new one-logit head) and trains it with sentence-transformers'
`CrossEncoderTrainer` and `BinaryCrossEntropyLoss` on the mined triples
(`ingest/training_pairs.py`): each (anchor, positive passage) is a 1; its hard negative and
`random_negatives` passages drawn at random from the snapshot are 0s (the hard ones teach the
structure's near misses, the random ones plain relevance). The passages are the texts the
snapshot's indexes encode (`snapshot_passages`). Seeded; the model folder is a
sentence-transformers CrossEncoder.

`CrossEncoderScorer.load(model_dir, passage_text)` scores a question against candidates by
version id (the engine's `NeuralScorer`): the raw logit of each pair, so nothing saturates
before the features stage normalizes it over the head. As with the ColBERT MaxSim, a candidate
no index holds (no passage text) gets no score.

`adapt_cross_encoder` is the whole job behind `structfirst adapt-reranker`: mine, train, write the
model and its record (`cross_encoder.json`: base model, snapshot, training-data hash,
hyperparameters, time).

Cross-fitting (`folds` > 1): a model trained on questions scores them as if it knew their answers,
and a fusion fitted on those same questions learns to trust it. So the training questions are
dealt into folds; fold k's model (in `folds/k/`, with the questions it left out in
`held_out.json`) is trained without them, and the scorer scores a question the full model trained
on with the fold model that did not see it. Any other question (dev, test, a user's) gets the
full model.
"""

from __future__ import annotations

import json
import random
import shutil
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from structfirst.ingest.encoder_config import model_fingerprint, packaged_minilm_dir, set_offline
from structfirst.ingest.training_pairs import (
    TrainingTriple,
    pairs_by_source,
    training_data_sha256,
)

RECORD_FILE = "cross_encoder.json"
RECORD_FORMAT = "structfirst-cross-encoder/1"
FOLDS_DIR = "folds"
HELD_OUT_FILE = "held_out.json"


@dataclass(frozen=True, slots=True)
class CrossEncoderSettings:
    epochs: int = 1
    batch_size: int = 16
    learning_rate: float = 7e-5
    warmup_ratio: float = 0.1
    max_length: int = 192  # tokens of question and passage together
    random_negatives: int = 1  # per triple, besides its hard negative
    seed: int = 0
    max_steps: int = -1  # > 0: stop after this many steps (smoke runs); -1: the epochs


def pair_rows(triples: Sequence[TrainingTriple], passages: dict[str, str],
              random_negatives: int = 1, seed: int = 0) -> dict[str, list[Any]]:
    """The training pairs of `triples`: (anchor, positive text, 1.0), (anchor, hard negative,
    0.0) and `random_negatives` (anchor, a seeded random passage other than the two, 0.0)."""
    rng = random.Random(seed)
    pool = sorted(passages)
    rows: dict[str, list[Any]] = {"query": [], "passage": [], "label": []}
    for t in triples:
        others = [v for v in rng.sample(pool, min(len(pool), random_negatives + 2))
                  if v not in (t.positive, t.negative)][:random_negatives]
        for vid, label in ((t.positive, 1.0), (t.negative, 0.0), *((v, 0.0) for v in others)):
            rows["query"].append(t.anchor)
            rows["passage"].append(passages[vid])
            rows["label"].append(label)
    return rows


class CrossEncoderAdapter:
    """Fine-tunes a cross-encoder on training triples; `fit` returns self."""

    def __init__(self, base_model: Path | None = None,
                 settings: CrossEncoderSettings | None = None, threads: int | None = None) -> None:
        self.base_model = base_model
        self.settings = settings or CrossEncoderSettings()
        self.threads = threads
        self.seconds: float | None = None
        self.steps: int | None = None

    def fit(self, triples: Sequence[TrainingTriple], passages: dict[str, str],
            out_dir: Path) -> CrossEncoderAdapter:
        import torch
        from datasets import Dataset
        from sentence_transformers.cross_encoder import (
            CrossEncoder,
            CrossEncoderTrainer,
            CrossEncoderTrainingArguments,
        )
        from sentence_transformers.cross_encoder.losses import BinaryCrossEntropyLoss

        if not triples:
            raise ValueError("no training triples")
        set_offline()
        if self.threads:
            torch.set_num_threads(self.threads)
        s = self.settings
        torch.manual_seed(s.seed)  # the new head's initial weights
        model = CrossEncoder(str(self.base_model or packaged_minilm_dir()), num_labels=1,
                             max_length=s.max_length, device="cpu")
        args = CrossEncoderTrainingArguments(
            output_dir=str(Path(out_dir).with_name(Path(out_dir).name + ".trainer")),
            num_train_epochs=s.epochs, max_steps=s.max_steps,
            per_device_train_batch_size=s.batch_size, learning_rate=s.learning_rate,
            warmup_ratio=s.warmup_ratio, seed=s.seed, data_seed=s.seed, save_strategy="no",
            logging_steps=50, report_to=[], use_cpu=True, dataloader_num_workers=0,
            disable_tqdm=True,
        )
        trainer = CrossEncoderTrainer(
            model=model, args=args,
            train_dataset=Dataset.from_dict(pair_rows(triples, passages, s.random_negatives,
                                                      s.seed)),
            loss=BinaryCrossEntropyLoss(model),
        )
        started = time.perf_counter()
        trainer.train()
        self.seconds = time.perf_counter() - started
        self.steps = trainer.state.global_step
        model.save(str(out_dir))
        shutil.rmtree(args.output_dir, ignore_errors=True)
        return self

    def hyperparameters(self) -> dict[str, Any]:
        return {**asdict(self.settings), "loss": "BinaryCrossEntropyLoss",
                "pairs": "each triple: (anchor, positive) 1, (anchor, hard negative) 0, "
                         "(anchor, random passage) 0",
                "optimizer": "AdamW (transformers Trainer default), linear decay"}


class CrossEncoderScorer:
    """f_theta(q, d): a trained cross-encoder's logit for each candidate's passage text."""

    def __init__(self, model: Any, passage_text: Callable[[str], str | None],
                 batch_size: int = 32, held_out: dict[str, Any] | None = None) -> None:
        self.model = model
        self.passage_text = passage_text
        self.batch_size = batch_size
        self.held_out = held_out or {}  # a training question -> the fold model that left it out
        self._lock = threading.Lock()  # torch modules are not re-entrant across threads

    @classmethod
    def load(cls, model_dir: Path, passage_text: Callable[[str], str | None]
             ) -> CrossEncoderScorer:
        """The model of `model_dir` (written by `adapt_cross_encoder`); FileNotFoundError names
        the folder when it holds no trained cross-encoder."""
        from sentence_transformers.cross_encoder import CrossEncoder

        model_dir = Path(model_dir)
        if not (model_dir / RECORD_FILE).is_file():
            raise FileNotFoundError(f"{model_dir}: no {RECORD_FILE} (train one with "
                                    "`structfirst adapt-reranker`)")
        set_offline()
        held_out = {}
        for fold in sorted(p.parent for p in (model_dir / FOLDS_DIR).glob(f"*/{HELD_OUT_FILE}")):
            fold_model = CrossEncoder(str(fold), device="cpu")
            held_out |= dict.fromkeys(json.loads((fold / HELD_OUT_FILE).read_text()), fold_model)
        return cls(CrossEncoder(str(model_dir), device="cpu"), passage_text, held_out=held_out)

    def model_for(self, text: str) -> Any:
        """The fold model that left `text` out of its training (the query text may carry
        citation forms after the question: its prefixes up to a space are looked up), else the
        full model."""
        if not self.held_out:
            return self.model
        for end in [len(text), *(i for i in range(len(text) - 1, 0, -1) if text[i] == " ")]:
            fold_model = self.held_out.get(text[:end])
            if fold_model is not None:
                return fold_model
        return self.model

    def scores(self, text: str, version_ids: Sequence[str]) -> dict[str, float]:
        import torch

        passages = {vid: p for vid in version_ids if (p := self.passage_text(vid)) is not None}
        if not passages:
            return {}
        model = self.model_for(text)
        with self._lock:
            logits = model.predict([(text, p) for p in passages.values()],
                                   batch_size=self.batch_size,
                                   activation_fn=torch.nn.Identity(), show_progress_bar=False)
        return {vid: float(x) for vid, x in zip(passages, logits, strict=True)}


def question_folds(questions: Sequence[str], folds: int, seed: int = 0) -> list[list[str]]:
    """The distinct `questions` dealt into `folds` groups after a seeded shuffle."""
    texts = sorted(set(questions))
    random.Random(seed).shuffle(texts)
    return [sorted(texts[k::folds]) for k in range(folds)]


def adapt_cross_encoder(index_dir: Path, train_paths: Sequence[Path], out_dir: Path,
                        miner: Any, adapter: CrossEncoderAdapter, folds: int = 0
                        ) -> dict[str, Any]:
    """Mine triples from the index's current snapshot and the training queries, fine-tune the
    cross-encoder and write it to `out_dir` with its record; with `folds` > 1, also one model per
    fold of the questions, each trained without its fold (cross-fitting). Returns the record."""
    from datetime import UTC, datetime

    from structfirst.eval.query_set import load_queries
    from structfirst.ingest.snapshot import open_snapshot

    snap = open_snapshot(index_dir)
    train = [q for p in train_paths for q in load_queries(p)]
    triples, docs = miner.transform(snap.path, train)
    passages = {d.version_id: d.contents for d in docs}
    out_dir = Path(out_dir)
    if out_dir.exists() and not (out_dir / RECORD_FILE).is_file():
        raise FileExistsError(f"{out_dir} exists and is not a cross-encoder: not replaced")
    staging = out_dir.with_name(out_dir.name + ".new")
    shutil.rmtree(staging, ignore_errors=True)
    adapter.fit(triples, passages, staging)
    seconds, steps = adapter.seconds or 0.0, adapter.steps
    fold_records = []
    for k, held_out in enumerate(question_folds([q.question for q in train], folds, miner.seed)
                                 if folds > 1 else []):
        left_out = set(held_out)
        fold_triples, _ = miner.transform(snap.path,
                                          [q for q in train if q.question not in left_out])
        fold_dir = staging / FOLDS_DIR / str(k)
        adapter.fit(fold_triples, passages, fold_dir)
        (fold_dir / HELD_OUT_FILE).write_text(json.dumps(held_out, indent=0) + "\n")
        fold_records.append({"held_out_questions": len(held_out), "triples": len(fold_triples),
                             "training_data_sha256": training_data_sha256(fold_triples, passages),
                             "training_seconds": round(adapter.seconds or 0.0, 1),
                             "steps": adapter.steps})
    base = Path(adapter.base_model or packaged_minilm_dir())
    record = {
        "format": RECORD_FORMAT,
        "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "snapshot_id": snap.snapshot_id,
        "base_model": {"path": str(base), "fingerprint": model_fingerprint(base)},
        "model_fingerprint": model_fingerprint(staging),
        "training_data_sha256": training_data_sha256(triples, passages),
        "triples": len(triples),
        "pairs_by_source": pairs_by_source(triples),
        "train_queries": {"paths": [str(p) for p in train_paths], "count": len(train)},
        "miner": {"caps": miner.caps, "question_repeats": miner.question_repeats,
                  "negatives_pool": miner.negatives_pool, "seed": miner.seed},
        "hyperparameters": adapter.hyperparameters(),
        "training_seconds": round(seconds, 1),
        "steps": steps,
        "cross_fitting": {"folds": len(fold_records), "by_fold": fold_records,
                          "rule": "a training question is scored by the fold model trained "
                                  "without it; every other question by the full model"},
        "tuning": {"split": "train", "procedure": "one pass over the mined pairs at the "
                   "settings above, not searched; dev decides whether a configuration uses it"},
    }
    (staging / RECORD_FILE).write_text(json.dumps(record, indent=2) + "\n")
    if out_dir.exists():
        shutil.rmtree(out_dir)
    staging.rename(out_dir)
    return record
