"""Named engine configurations (H0 to H6 and friends), loaded from `configurations.toml`."""

from __future__ import annotations

import functools
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from structfirst.calibration.threshold import DEFAULT_DELTA, DEFAULT_TARGET_ACCURACY
from structfirst.engine.relevance_feedback import RM3

CONFIGURATIONS_FILE = Path(__file__).with_name("configurations.toml")
PLANES = ("lexical", "dense", "graph", "symbolic")
# reranker: "colbert" votes one RRF term (H2-H4); "neural" re-orders the fused head by f_theta
# alone; "domain" by f_theta + learned gamma . structural features (H5)
RERANKERS = ("", "colbert", "neural", "domain")
# f_theta for the features and the rerankers of learned fusion: the ColBERT MaxSim, or a trained
# cross-encoder (`structfirst adapt-reranker`) from the models folder
NEURAL = ("", "colbert", "cross-encoder")
FUSIONS = ("rrf", "lightgbm", "logistic")
CALIBRATIONS = ("", "isotonic")
# the steps a configuration may give as a nested table, [NAME.step] kind = "...", model = "...":
# step -> (the kinds it allows, the EngineConfig field its model folder goes to)
STEPS = {
    "fusion": (FUSIONS, "fusion_model"),
    "reranker": (RERANKERS, "reranker_model"),
    "calibration": (CALIBRATIONS, "calibration_model"),
    "neural": (NEURAL, "neural_model"),
}
LEARNED = {"fusion": FUSIONS[1:], "reranker": ("domain",), "calibration": ("isotonic",),
           "neural": ("cross-encoder",)}
# the hard filter a configuration runs under: the question's as-of date and jurisdiction (the
# engine's), today's versions in every jurisdiction (a search box over today's code), or none
HARD_FILTERS = ("as_of", "today", "none")
TUNING_SPLITS = ("train", "dev")  # where a setting may be chosen; never "test"
TUNING_KEYS = ("split", "procedure")


@dataclass(frozen=True, slots=True)
class EngineConfig:
    name: str
    description: str
    planes: tuple[str, ...]
    reranker: str = ""
    fusion: str = "rrf"
    neural: str = ""  # f_theta of the fused head as a feature (learned fusion): see NEURAL
    calibration: str = ""  # "isotonic": the calibrated answer-or-abstain decision (H6)
    # learned steps: their model folders, relative to the engine's models folder
    fusion_model: str = ""
    reranker_model: str = ""
    calibration_model: str = ""
    neural_model: str = ""
    fact_reader: str = ""  # the learned fact reader's folder ("": the declared patterns alone)
    k_per_plane: int = 100
    rrf_k: int = 60
    plane_weights: dict[str, float] = field(default_factory=dict)  # weighted RRF, default 1
    hierarchy_penalty: int = 0  # ranks a clause drops when a provision enclosing it ranks higher
    rerank_depth: int = 50
    family_depth: int = 0  # section-family expansion of the fused top N (learned fusion only)
    expansion_weight: float = 0.0  # BM25 weight of the legal thesaurus's terms (0: no expansion)
    # RM3 pseudo-relevance feedback on the lexical plane (0 docs: none)
    rm3_docs: int = 0
    rm3_terms: int = 10
    rm3_original_weight: float = 0.5
    bm25_k1: float = 0.9
    bm25_b: float = 0.4
    hard_filters: str = "as_of"
    # the calibrated decision's guarantee: selective accuracy >= target with probability 1-delta
    target_accuracy: float = DEFAULT_TARGET_ACCURACY
    risk_delta: float = DEFAULT_DELTA
    # setting -> {split, procedure}: which settings were chosen, on which split, how
    tuning: dict[str, dict[str, str]] = field(default_factory=dict)

    @property
    def calibrated_abstention(self) -> bool:
        return bool(self.calibration)

    @property
    def feedback(self) -> RM3 | None:
        """The lexical plane's RM3 feedback, if the configuration asks for it."""
        return (RM3(self.rm3_docs, self.rm3_terms, self.rm3_original_weight) if self.rm3_docs
                else None)


def load_configurations(path: Path = CONFIGURATIONS_FILE) -> dict[str, EngineConfig]:
    """Parse the configuration table; a bad entry raises ValueError naming the file and entry."""
    with path.open("rb") as fh:
        table = tomllib.load(fh)
    configs = {}
    for name in table:
        where = f"{path}: [{name}]"
        entry = flatten_steps(resolve_extends(table, name, where), where)
        unknown = set(entry) - set(EngineConfig.__dataclass_fields__) - {"name"}
        if unknown:
            raise ValueError(f"{where}: unknown keys {sorted(unknown)}")
        planes = tuple(entry.get("planes", ()))
        if not planes or any(p not in PLANES for p in planes):
            raise ValueError(f"{where}: planes must be a non-empty subset of {PLANES}")
        if entry.get("reranker", "") not in RERANKERS:
            raise ValueError(f"{where}: reranker must be one of {RERANKERS}")
        if any(p not in PLANES for p in entry.get("plane_weights", {})):
            raise ValueError(f"{where}: plane_weights names a plane not in {PLANES}")
        if entry.get("fusion", "rrf") not in FUSIONS:
            raise ValueError(f"{where}: fusion must be one of {FUSIONS}")
        if entry.get("reranker") in ("neural", "domain") and (
            entry.get("fusion", "rrf") == "rrf" or not entry.get("neural")
        ):
            raise ValueError(f"{where}: a {entry['reranker']} reranker needs learned fusion and "
                             "a neural f_theta (neural = \"colbert\" or a cross-encoder)")
        for step, kinds in LEARNED.items():
            if entry.get(step, "") in kinds and not entry.get(STEPS[step][1]):
                raise ValueError(f"{where}: a {entry[step]} {step} needs a model folder "
                                 f"([{name}.{step}] model = \"...\")")
        if entry.get("family_depth", 0) and entry.get("fusion", "rrf") == "rrf":
            raise ValueError(f"{where}: family_depth needs learned fusion (the features tell "
                             "it which level of a family to rank)")
        for key in ("target_accuracy", "risk_delta"):
            if not 0.0 < entry.get(key, 0.5) < 1.0:
                raise ValueError(f"{where}: {key} must lie strictly between 0 and 1")
        if entry.get("rm3_docs", 0):
            try:
                RM3(entry["rm3_docs"], entry.get("rm3_terms", 10),
                    entry.get("rm3_original_weight", 0.5))
            except ValueError as exc:
                raise ValueError(f"{where}: {exc}") from None
        if entry.get("hard_filters", "as_of") not in HARD_FILTERS:
            raise ValueError(f"{where}: hard_filters must be one of {HARD_FILTERS}")
        check_tuning(where, entry.get("tuning", {}), entry)
        configs[name] = EngineConfig(name=name, **{**entry, "planes": planes})
    return configs


def resolve_extends(table: dict[str, dict], name: str, where: str) -> dict:
    """The entry with the keys of the entries it `extends` underneath its own (chains allowed,
    cycles and unknown parents refused)."""
    chain, entry = [name], dict(table[name])
    while "extends" in entry:
        parent = entry.pop("extends")
        if parent not in table or parent in chain:
            raise ValueError(f"{where}: extends {parent!r}, which is unknown or a cycle")
        chain.append(parent)
        entry = {**table[parent], **entry}
    return entry


def flatten_steps(entry: dict, where: str) -> dict:
    """The entry with each nested step table ([NAME.fusion] kind = ..., model = ...) turned
    into the flat fields `fusion` and `fusion_model`; a plain string is the kind alone."""
    out = dict(entry)
    for step, (kinds, model_field) in STEPS.items():
        spec = out.get(step)
        if not isinstance(spec, dict):
            if spec is not None and spec not in kinds:
                raise ValueError(f"{where}: {step} must be one of {kinds}")
            continue
        unknown = set(spec) - {"kind", "model"}
        if unknown or "kind" not in spec:
            raise ValueError(f"{where}.{step}: needs `kind`, may have `model`; got {sorted(spec)}")
        if spec["kind"] not in kinds:
            raise ValueError(f"{where}.{step}: kind must be one of {kinds}")
        out[step] = spec["kind"]
        if "model" in spec:
            out[model_field] = spec["model"]
    return out


def check_tuning(where: str, tuning: dict[str, dict[str, str]], entry: dict) -> None:
    """Each tuning record names a setting of the entry, the split it was chosen on (train or
    dev, never test) and the procedure; anything else is a ValueError naming the entry."""
    for setting, record in tuning.items():
        at = f"{where}: tuning.{setting}"
        if setting not in entry:
            raise ValueError(f"{at}: names a setting the configuration does not set")
        if not isinstance(record, dict) or set(record) != set(TUNING_KEYS):
            raise ValueError(f"{at}: needs exactly the keys {TUNING_KEYS}")
        if record["split"] not in TUNING_SPLITS:
            raise ValueError(
                f"{at}: split {record['split']!r} is not a tuning split {TUNING_SPLITS}"
                " (the test split is for reporting only)"
            )


@functools.cache
def _default_configurations() -> dict[str, EngineConfig]:
    return load_configurations()


def get_configuration(name: str) -> EngineConfig:
    """A configuration of the packaged table (read once per process)."""
    configs = _default_configurations()
    if name not in configs:
        raise ValueError(f"unknown configuration {name!r}; known: {', '.join(configs)}")
    return configs[name]
