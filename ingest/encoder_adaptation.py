"""Adapting the dense encoder to the corpus: multiple-negatives ranking loss on mined triples.

`EncoderAdapter(...).fit(triples, passages, work_dir, name)` fine-tunes the base
sentence-transformers model (default: the packaged MiniLM) with `MultipleNegativesRankingLoss`
(scale 20, i.e. tau = 0.05) on (anchor, positive passage, hard negative passage) triples, in
batches without duplicate texts (so an in-batch negative is never a copy of the positive). It
saves the model at `checkpoints` evenly spaced steps, the last at the end, as
`work_dir/step-<n>/<name>`: a
sentence-transformers directory (mean pooling, normalized, loadable by
`STRUCTFIRST_DENSE_MODEL`) named as the final model will be, so that its dense model key, and
with it the embedding cache of its vectors, carries over when it is copied there. Seeded.
`work_dir/training.json` records the run; a later `fit` of the same triples and settings into
the same `work_dir` reuses its checkpoints instead of training again.

`adapt_encoder` is the whole job behind `structfirst adapt`: mine, train, choose the checkpoint
on dev, write the model and its record.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from structfirst.ingest.encoder_config import packaged_minilm_dir, set_offline
from structfirst.ingest.training_pairs import TrainingTriple, training_data_sha256

CHECKPOINT_PREFIX = "step-"
RUN_FILE = "training.json"


@dataclass(frozen=True, slots=True)
class AdaptationSettings:
    epochs: int = 1
    batch_size: int = 32
    learning_rate: float = 2e-5
    warmup_ratio: float = 0.1
    max_seq_length: int = 128  # tokens per text while training (the index encodes up to 256)
    scale: float = 20.0  # MNRL's 1/tau: cos / 0.05
    seed: int = 0
    max_steps: int = -1  # > 0: stop after this many steps (smoke runs); -1: the epochs
    checkpoints: int = 2  # evenly spaced over the steps, the last at the end


class EncoderAdapter:
    """Fine-tunes a bi-encoder on training triples; `fit` returns self."""

    def __init__(self, base_model: Path | None = None,
                 settings: AdaptationSettings | None = None, threads: int | None = None) -> None:
        self.base_model = base_model
        self.settings = settings or AdaptationSettings()
        self.threads = threads
        self.seconds: float | None = None
        self.steps: int | None = None
        self.checkpoints: list[Path] = []

    def fit(self, triples: Sequence[TrainingTriple], passages: dict[str, str],
            work_dir: Path, name: str = "model") -> EncoderAdapter:
        import torch
        from datasets import Dataset
        from sentence_transformers import (
            SentenceTransformer,
            SentenceTransformerTrainer,
            SentenceTransformerTrainingArguments,
        )
        from sentence_transformers.sentence_transformer.losses import (
            MultipleNegativesRankingLoss,
        )
        from sentence_transformers.sentence_transformer.training_args import BatchSamplers
        from transformers import TrainerCallback

        if not triples:
            raise ValueError("no training triples")
        work_dir = Path(work_dir)
        run = {"data_sha256": training_data_sha256(triples, passages),
               "settings": asdict(self.settings), "name": name}
        if self._resumed(work_dir, run):
            return self
        set_offline()
        if self.threads:
            torch.set_num_threads(self.threads)
        s = self.settings
        work_dir.mkdir(parents=True, exist_ok=True)
        model = SentenceTransformer(str(self.base_model or packaged_minilm_dir()), device="cpu")
        model.max_seq_length = s.max_seq_length
        data = Dataset.from_dict({
            "anchor": [t.anchor for t in triples],
            "positive": [passages[t.positive] for t in triples],
            "negative": [passages[t.negative] for t in triples],
        })
        checkpoints = self.checkpoints = []

        def save(step: int) -> None:
            path = work_dir / f"{CHECKPOINT_PREFIX}{step}" / name
            if not checkpoints or checkpoints[-1] != path:
                checkpoints.append(path)
                model.save(str(checkpoints[-1]))

        class SaveCheckpoints(TrainerCallback):
            def on_step_end(self, args: Any, state: Any, control: Any, **kw: Any) -> None:
                marks = {round(state.max_steps * i / s.checkpoints)
                         for i in range(1, s.checkpoints + 1)}
                if state.global_step in marks:
                    save(state.global_step)

        args = SentenceTransformerTrainingArguments(
            output_dir=str(work_dir / "trainer"), num_train_epochs=s.epochs,
            max_steps=s.max_steps, per_device_train_batch_size=s.batch_size,
            learning_rate=s.learning_rate, warmup_ratio=s.warmup_ratio, seed=s.seed,
            data_seed=s.seed, batch_sampler=BatchSamplers.NO_DUPLICATES, save_strategy="no",
            logging_steps=25, report_to=[], use_cpu=True, dataloader_num_workers=0,
            disable_tqdm=True,
        )
        trainer = SentenceTransformerTrainer(
            model=model, args=args, train_dataset=data,
            loss=MultipleNegativesRankingLoss(model, scale=s.scale), callbacks=[SaveCheckpoints()],
        )
        started = time.perf_counter()
        trainer.train()
        self.seconds = time.perf_counter() - started
        self.steps = trainer.state.global_step
        save(self.steps)
        run.update(seconds=self.seconds, steps=self.steps,
                   checkpoints=[str(c.relative_to(work_dir)) for c in checkpoints])
        (work_dir / RUN_FILE).write_text(json.dumps(run, indent=2) + "\n")
        return self

    def _resumed(self, work_dir: Path, run: dict[str, Any]) -> bool:
        """Take the checkpoints of an earlier run of the same triples and settings, if any."""
        path = work_dir / RUN_FILE
        if not path.is_file():
            return False
        done = json.loads(path.read_text())
        if {k: done.get(k) for k in run} != run:
            return False
        checkpoints = [work_dir / c for c in done["checkpoints"]]
        if not all((c / "config.json").is_file() for c in checkpoints):
            return False
        self.seconds, self.steps, self.checkpoints = done["seconds"], done["steps"], checkpoints
        return True

    def hyperparameters(self) -> dict[str, Any]:
        return {**asdict(self.settings), "loss": "MultipleNegativesRankingLoss",
                "tau": 1 / self.settings.scale, "batch_sampler": "no_duplicates",
                "optimizer": "AdamW (transformers Trainer default), linear decay"}


RECORD_FILE = "adaptation.json"
TRIPLES_FILE = "training_triples.jsonl"
RECORD_FORMAT = "structfirst-dense-adapted/1"


def adapt_encoder(index_dir: Path, train_path: Path, dev_path: Path, out_dir: Path,
                  work_dir: Path, miner: Any, adapter: EncoderAdapter) -> dict[str, Any]:
    """Mine triples from the index's current snapshot and the train split, fine-tune, choose
    the checkpoint with the best dense-alone nDCG@10 on dev, and write it to `out_dir` with its
    record (`adaptation.json`) and its triples. Returns the record."""
    import shutil
    from datetime import UTC, datetime

    from structfirst.eval.dense_adaptation import dense_run
    from structfirst.eval.metrics import per_query, summarize
    from structfirst.eval.query_set import load_queries
    from structfirst.ingest.encoder_config import EncoderConfig, model_fingerprint
    from structfirst.ingest.snapshot import open_snapshot
    from structfirst.ingest.training_pairs import pairs_by_source, write_triples

    snap = open_snapshot(index_dir)
    train = load_queries(train_path)
    dev = [q for q in load_queries(dev_path) if q.answerable]
    for q in dev:
        if q.split not in (None, "dev"):
            raise ValueError(f"{dev_path}: query {q.qid} is in split {q.split!r}, not dev")
    triples, docs = miner.transform(snap.path, train)
    passages = {d.version_id: d.contents for d in docs}
    work_dir = Path(work_dir)
    out_dir = Path(out_dir)
    adapter.fit(triples, passages, work_dir / "checkpoints", out_dir.name)
    candidates: dict[str, float] = {}
    for checkpoint in adapter.checkpoints:
        records = per_query(dev, dense_run(index_dir, str(checkpoint), dev, work_dir))
        candidates[checkpoint.parent.name] = summarize(records)["overall"]["nDCG@10"]["value"]
    best = max(adapter.checkpoints, key=lambda c: candidates[c.parent.name])  # first of equals
    if out_dir.exists():
        if not (out_dir / RECORD_FILE).is_file():
            raise FileExistsError(f"{out_dir} exists and is not an adapted model: not replaced")
        shutil.rmtree(out_dir)
    shutil.copytree(best, out_dir)
    write_triples(triples, out_dir / TRIPLES_FILE)
    base = adapter.base_model or EncoderConfig.resolve(dense_model=None).dense_model
    record = {
        "format": RECORD_FORMAT,
        "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "snapshot_id": snap.snapshot_id,
        "base_model": {"path": str(base), "fingerprint": model_fingerprint(Path(base))},
        "model_fingerprint": model_fingerprint(out_dir),
        "dense_model_key": EncoderConfig.resolve(dense_model=out_dir).dense_model_key(),
        "training_data_sha256": training_data_sha256(triples, passages),
        "triples": len(triples),
        "pairs_by_source": pairs_by_source(triples),
        "train_queries": {"path": str(train_path), "count": len(train)},
        "miner": {"caps": miner.caps, "question_repeats": miner.question_repeats,
                  "negatives_pool": miner.negatives_pool, "seed": miner.seed,
                  "negatives": "same jurisdiction, authority and overlapping interval; nearest "
                               "to the positive under the base encoder"},
        "hyperparameters": adapter.hyperparameters(),
        "training_seconds": round(adapter.seconds or 0.0, 1),
        "steps": adapter.steps,
        "chosen_checkpoint": best.parent.name,
        "tuning": {"checkpoint": {
            "split": "dev",
            "procedure": "the checkpoint with the best nDCG@10 of the dense plane alone under "
                         "the hard filter on the dev questions (question and as_of only)",
            "candidates": candidates,
        }},
    }
    (out_dir / RECORD_FILE).write_text(json.dumps(record, indent=2) + "\n")
    return record
