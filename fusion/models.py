"""Learned ranking models over the structural features, and how they are saved and loaded.

Two models, one interface (`fit(candidate lists, label lists)`, `predict(candidates)`):

- `LightGBMRanker`: `lightgbm.LGBMRanker`, lambdarank over graded labels with one group per
  query, shallow trees (depth 3), their count chosen by cross-validation over the training
  queries up to 150 (the reference suggests at most 50 for this much data; the cross-validated
  curve still rose at 50, and dev agreed: H5 nDCG@10 0.566 with 50, 0.587 with 129); the
  score is the mean of `n_bags` such models, each fitted on a random `bag_fraction` of the
  training queries (over 8 refits on 90% of train, the mean of 10 halved the spread of dev
  nDCG@10, 0.010 -> 0.005, and raised its mean 0.596 -> 0.602: `eval/fusion_stability.py`);
- `LogisticRanker`: L2-regularized logistic regression on standardized features (relevant =
  grade >= 1), scored by its decision function.

A saved model is a folder: `meta.json` (kind, the feature schema, the training-set hash, the
snapshot id, library versions, the tuning record, importances or coefficients) beside the
model itself. Loading checks the schema against the code's `FEATURE_NAMES`: a model fitted on
other features is refused with a message naming the differences.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from importlib.metadata import version
from pathlib import Path
from typing import Any, Protocol

import numpy as np
from structfirst.engine.configuration import EngineConfig
from structfirst.engine.features import FEATURE_NAMES, feature_matrix
from structfirst.fusion.rrf import FusedCandidate

META_FILE = "meta.json"
LIGHTGBM_FILE = "model-{}.txt"  # one file per bagged booster
LIBRARIES = ("lightgbm", "scikit-learn", "numpy", "scipy")
CandidateLists = Sequence[Sequence[FusedCandidate]]


class ModelError(ValueError):
    """A model folder that cannot be used: missing, of another kind, or another schema."""


class RankingModel(Protocol):
    kind: str

    def fit(
        self,
        lists: CandidateLists,
        labels: Sequence[Sequence[int]],
        dev: tuple[CandidateLists, Sequence[Sequence[int]]] | None = None,
    ) -> RankingModel: ...

    def predict(self, candidates: Sequence[FusedCandidate]) -> list[float]: ...

    def weights(self) -> dict[str, float]: ...

    def clone(self) -> RankingModel: ...

    def save(self, folder: Path, meta: dict[str, Any]) -> None: ...


def _check_training(lists: CandidateLists, labels: Sequence[Sequence[int]]) -> None:
    """ValueError when there is no candidate at all, or no relevant one, to learn from."""
    kept = [ys for c, ys in zip(lists, labels, strict=True) if c]
    if not kept:
        raise ValueError("no training candidates: the training split is empty or no query "
                         "returned a candidate")
    if not any(g >= 1 for ys in kept for g in ys):
        raise ValueError("no relevant candidate to learn from: no query's labeled provisions "
                         "are among its candidates")


def _stack(lists: CandidateLists, labels: Sequence[Sequence[int]]):
    """(X, y, group sizes) over the non-empty lists, checked by `_check_training`."""
    _check_training(lists, labels)
    kept = [(c, y) for c, y in zip(lists, labels, strict=True) if c]
    x = np.array([row for c, _ in kept for row in feature_matrix(c)], dtype=float)
    y = np.array([g for _, ys in kept for g in ys], dtype=int)
    return x, y, [len(c) for c, _ in kept]


class LightGBMRanker:
    """The mean of `n_bags` LambdaMART models over graded labels, each fitted on a random
    `bag_fraction` of the training queries (all of them when `n_bags` is 1), each with at most
    `n_estimators` trees. How many is `trees_by`, per model:

    - "cv": the count with the best mean nDCG@10 over a `cv_folds`-fold cross-validation of
      its training queries (folds by query), then refitted on all of them;
    - "dev": early stopping on the dev lists (`early_stopping_rounds` without a gain);
    - "cap": `n_estimators`.
    """

    kind = "lightgbm"
    TREE_COUNTS = ("cv", "dev", "cap")

    def __init__(
        self,
        n_estimators: int = 150,
        num_leaves: int = 7,
        max_depth: int = 3,
        learning_rate: float = 0.1,
        min_child_samples: int = 20,
        trees_by: str = "cv",
        cv_folds: int = 5,
        early_stopping_rounds: int = 10,
        seed: int = 0,
        n_bags: int = 10,
        bag_fraction: float = 0.8,
    ) -> None:
        self.n_estimators = n_estimators
        self.num_leaves = num_leaves
        self.max_depth = max_depth
        self.learning_rate = learning_rate
        self.min_child_samples = min_child_samples
        self.trees_by = trees_by
        self.cv_folds = cv_folds
        self.early_stopping_rounds = early_stopping_rounds
        self.seed = seed
        self.n_bags = n_bags
        self.bag_fraction = bag_fraction
        self.boosters_: list[Any] = []
        self.cv_ndcg_: list[list[float]] = []  # per booster, with trees_by "cv"

    def _params(self) -> dict[str, Any]:
        return {
            "objective": "lambdarank",
            "num_leaves": self.num_leaves,
            "max_depth": self.max_depth,
            "learning_rate": self.learning_rate,
            "min_child_samples": self.min_child_samples,
            "random_state": self.seed,
            "deterministic": True,
            "force_row_wise": True,
            "n_jobs": 1,
            "verbose": -1,
        }

    def cv_tree_count(self, x: np.ndarray, y: np.ndarray, groups: Sequence[int]) -> int:
        """The tree count (1..n_estimators) with the best fold-mean nDCG@10 (folds by query);
        the curve is appended to `cv_ndcg_`."""
        import lightgbm

        if len(groups) < self.cv_folds:
            raise ValueError(f"choosing the tree count by {self.cv_folds}-fold cross-validation "
                             f"needs at least {self.cv_folds} queries with candidates, got "
                             f"{len(groups)}")
        params = {**self._params(), "metric": "ndcg", "eval_at": [10]}
        data = lightgbm.Dataset(x, y, group=list(groups), feature_name=list(FEATURE_NAMES),
                                params={"verbose": -1})
        curves = lightgbm.cv(params, data, num_boost_round=self.n_estimators,
                             nfold=self.cv_folds, stratified=False, seed=self.seed)
        self.cv_ndcg_.append([round(float(v), 6) for v in curves["valid ndcg@10-mean"]])
        return int(np.argmax(self.cv_ndcg_[-1])) + 1

    def bags(self, n_lists: int) -> list[list[int]]:
        """The list indices each booster is fitted on: all of them for one bag, else a random
        `bag_fraction` of them (without replacement, sorted) per bag, drawn from `seed`."""
        if self.n_bags < 1 or not 0 < self.bag_fraction <= 1:
            raise ValueError(f"n_bags must be >= 1 and bag_fraction in (0, 1], not "
                             f"{self.n_bags} and {self.bag_fraction}")
        if self.n_bags == 1:
            return [list(range(n_lists))]
        rng = np.random.default_rng(self.seed)
        size = max(1, round(self.bag_fraction * n_lists))
        return [sorted(rng.choice(n_lists, size=size, replace=False).tolist())
                for _ in range(self.n_bags)]

    def fit(self, lists, labels, dev=None) -> LightGBMRanker:
        if self.trees_by not in self.TREE_COUNTS:
            raise ValueError(f"trees_by must be one of {self.TREE_COUNTS}, not {self.trees_by!r}")
        if self.trees_by == "dev" and dev is None:
            raise ValueError('trees_by="dev" needs the dev lists to early-stop on')
        _check_training(lists, labels)  # the whole set's errors before any bag's
        self.cv_ndcg_ = []
        self.boosters_ = [
            self._fit_one([lists[i] for i in bag], [labels[i] for i in bag], dev, self.seed + j)
            for j, bag in enumerate(self.bags(len(lists)))
        ]
        return self

    def _fit_one(self, lists, labels, dev, seed: int) -> Any:
        import lightgbm

        x, y, groups = _stack(lists, labels)
        trees = self.cv_tree_count(x, y, groups) if self.trees_by == "cv" else self.n_estimators
        ranker = lightgbm.LGBMRanker(n_estimators=trees, **{**self._params(), "random_state": seed})
        kwargs: dict[str, Any] = {}
        if self.trees_by == "dev":
            dx, dy, dgroups = _stack(*dev)
            kwargs = {
                "eval_X": (dx,),
                "eval_y": (dy,),
                "eval_group": [dgroups],
                "eval_at": [10],
                "callbacks": [lightgbm.early_stopping(self.early_stopping_rounds, verbose=False)],
            }
        ranker.fit(x, y, group=groups, feature_name=list(FEATURE_NAMES), **kwargs)
        return ranker.booster_

    def clone(self) -> LightGBMRanker:
        """A new, unfitted ranker with the same parameters."""
        return LightGBMRanker(
            self.n_estimators, self.num_leaves, self.max_depth, self.learning_rate,
            self.min_child_samples, self.trees_by, self.cv_folds, self.early_stopping_rounds,
            self.seed, self.n_bags, self.bag_fraction,
        )

    def predict(self, candidates: Sequence[FusedCandidate]) -> list[float]:
        if not self.boosters_:
            raise ModelError("the LightGBM ranker is not fitted")
        x = np.array(feature_matrix(candidates), dtype=float)
        scores = np.mean([b.predict(x, num_threads=1) for b in self.boosters_], axis=0)
        return [float(s) for s in scores]

    def weights(self) -> dict[str, float]:
        """Gain importance per feature, averaged over the boosters, largest first."""
        gains = np.mean([b.feature_importance(importance_type="gain") for b in self.boosters_],
                        axis=0)
        pairs = sorted(zip(FEATURE_NAMES, gains, strict=True), key=lambda p: -p[1])
        return {n: round(float(g), 3) for n, g in pairs}

    def save(self, folder: Path, meta: dict[str, Any]) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        for j, booster in enumerate(self.boosters_):
            booster.save_model(str(folder / LIGHTGBM_FILE.format(j)))
        meta = {**meta, "bags": len(self.boosters_), "bag_fraction": self.bag_fraction,
                "trees": [b.num_trees() for b in self.boosters_], "trees_by": self.trees_by}
        if self.cv_ndcg_:
            meta["cv_ndcg@10_by_trees"] = self.cv_ndcg_
        write_meta(folder, self.kind, meta, self.weights())

    @classmethod
    def load(cls, folder: Path) -> LightGBMRanker:
        import lightgbm

        meta = read_meta(folder, cls.kind)
        bags, fraction = meta.get("bags"), meta.get("bag_fraction")
        if not isinstance(bags, int) or bags < 1 or not isinstance(fraction, (int, float)):
            raise ModelError(f"{Path(folder) / META_FILE}: 'bags' (a positive count of booster "
                             f"files) and 'bag_fraction' are {bags!r} and {fraction!r}; refit "
                             "with `structfirst fit`")
        model = cls(n_bags=bags, bag_fraction=fraction)
        for j in range(bags):
            path = Path(folder) / LIGHTGBM_FILE.format(j)
            if not path.is_file():
                raise ModelError(f"{path}: missing ({META_FILE} names {bags} boosters)")
            booster = lightgbm.Booster(model_file=str(path))
            if tuple(booster.feature_name()) != FEATURE_NAMES:
                raise ModelError(f"{path}: its features differ from {META_FILE}")
            model.boosters_.append(booster)
        return model


class LogisticRanker:
    """Pointwise L2 logistic regression (relevant = grade >= 1) on standardized features."""

    kind = "logistic"

    def __init__(self, c: float = 1.0) -> None:
        self.c = c
        self.mean_: np.ndarray | None = None
        self.scale_: np.ndarray | None = None
        self.coef_: np.ndarray | None = None
        self.intercept_ = 0.0

    def fit(self, lists, labels, dev=None) -> LogisticRanker:
        from sklearn.linear_model import LogisticRegression

        x, y, _ = _stack(lists, labels)
        self.mean_ = x.mean(axis=0)
        self.scale_ = np.where(x.std(axis=0) > 0, x.std(axis=0), 1.0)
        model = LogisticRegression(C=self.c, max_iter=2000)
        model.fit((x - self.mean_) / self.scale_, (y >= 1).astype(int))
        self.coef_, self.intercept_ = model.coef_[0], float(model.intercept_[0])
        return self

    def clone(self) -> LogisticRanker:
        """A new, unfitted model with the same parameters."""
        return LogisticRanker(self.c)

    def predict(self, candidates: Sequence[FusedCandidate]) -> list[float]:
        if self.coef_ is None:
            raise ModelError("the logistic ranker is not fitted")
        x = (np.array(feature_matrix(candidates), dtype=float) - self.mean_) / self.scale_
        return [float(s) for s in x @ self.coef_ + self.intercept_]

    def weights(self) -> dict[str, float]:
        """Coefficients on the standardized features, largest magnitude first."""
        pairs = sorted(zip(FEATURE_NAMES, self.coef_, strict=True), key=lambda p: -abs(p[1]))
        return {n: round(float(w), 4) for n, w in pairs}

    def save(self, folder: Path, meta: dict[str, Any]) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        params = {
            "mean": self.mean_.tolist(),
            "scale": self.scale_.tolist(),
            "coef": self.coef_.tolist(),
            "intercept": self.intercept_,
        }
        write_meta(folder, self.kind, {**meta, "parameters": params}, self.weights())

    @classmethod
    def load(cls, folder: Path) -> LogisticRanker:
        params = read_meta(folder, cls.kind)["parameters"]
        model = cls()
        model.mean_, model.scale_ = np.array(params["mean"]), np.array(params["scale"])
        model.coef_, model.intercept_ = np.array(params["coef"]), float(params["intercept"])
        return model


MODELS: dict[str, type[LightGBMRanker] | type[LogisticRanker]] = {
    LightGBMRanker.kind: LightGBMRanker,
    LogisticRanker.kind: LogisticRanker,
}


def library_versions() -> dict[str, str]:
    return {name: version(name) for name in LIBRARIES}


def write_meta(
    folder: Path, kind: str, meta: dict[str, Any], weights: dict[str, float]
) -> None:
    record = {
        "kind": kind,
        "feature_names": list(FEATURE_NAMES),
        "library_versions": library_versions(),
        **meta,
        "weights": weights,
    }
    (folder / META_FILE).write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n")


def read_record(path: Path, what: str) -> dict[str, Any]:
    """A model folder's JSON record; ModelError naming the file when it is missing or bad."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ModelError(f"{path}: no {what} here (run `structfirst fit`)") from None
    except json.JSONDecodeError as exc:
        raise ModelError(f"{path}: not JSON ({exc})") from None


def read_meta(folder: Path, kind: str, names: Sequence[str] = FEATURE_NAMES) -> dict[str, Any]:
    """The folder's meta record, checked: its kind, and its feature schema against `names`."""
    path = Path(folder) / META_FILE
    meta = read_record(path, "model")
    if meta.get("kind") != kind:
        raise ModelError(f"{path}: a {meta.get('kind')!r} model, not {kind!r}")
    check_schema(path, meta.get("feature_names"), names)
    return meta


def check_schema(path: Path, saved: Sequence[str] | None, names: Sequence[str]) -> None:
    if saved is None or list(saved) != list(names):
        saved = list(saved or [])
        missing = [n for n in names if n not in saved]
        extra = [n for n in saved if n not in names]
        raise ModelError(
            f"{path}: the model was fitted on another feature schema (the code has "
            f"{len(names)} features, the model {len(saved)}; missing from the model: "
            f"{missing or 'none'}; unknown to the code: {extra or 'none'}"
            f"{'; same names in another order' if not missing and not extra else ''}); "
            "refit it with `structfirst fit`"
        )


def trained_with(cfg: EngineConfig) -> dict[str, Any]:
    """What a learned step's inputs depend on: the planes, f_theta (and its model folder, for a
    trained one) and the hard filter."""
    own_model = {"neural_model": cfg.neural_model} if cfg.neural_model else {}
    return {"planes": sorted(cfg.planes), "neural": cfg.neural, **own_model,
            "hard_filters": cfg.hard_filters}


def check_trained_with(folder: Path, cfg: EngineConfig) -> None:
    """Refuse a model whose inputs came from other planes (or f_theta, or hard filter) than
    the configuration runs: its features would mean something else."""
    path = Path(folder) / META_FILE
    try:
        saved = json.loads(path.read_text(encoding="utf-8")).get("trained_with")
    except (FileNotFoundError, json.JSONDecodeError) as exc:
        raise ModelError(f"{path}: cannot read the model's record ({exc})") from None
    if saved != trained_with(cfg):
        raise ModelError(
            f"{path}: fitted with {saved}, but configuration {cfg.name} runs "
            f"{trained_with(cfg)}; refit with `structfirst fit`"
        )


def load_model(folder: Path) -> LightGBMRanker | LogisticRanker:
    """The ranking model saved in `folder`, of the kind its meta record names."""
    path = Path(folder) / META_FILE
    try:
        kind = json.loads(path.read_text(encoding="utf-8")).get("kind")
    except FileNotFoundError:
        raise ModelError(f"{path}: no model here (run `structfirst fit`)") from None
    except json.JSONDecodeError as exc:
        raise ModelError(f"{path}: not JSON ({exc})") from None
    if kind not in MODELS:
        raise ModelError(f"{path}: unknown model kind {kind!r} (known: {', '.join(MODELS)})")
    return MODELS[kind].load(Path(folder))
