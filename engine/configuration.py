"""Named engine configurations (H0 to H6 and friends), loaded from `configurations.toml`."""

from __future__ import annotations

import functools
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

CONFIGURATIONS_FILE = Path(__file__).with_name("configurations.toml")
PLANES = ("lexical", "dense", "graph", "symbolic")
RERANKERS = ("", "colbert", "domain")
FUSIONS = ("rrf", "lightgbm")


@dataclass(frozen=True, slots=True)
class EngineConfig:
    name: str
    description: str
    planes: tuple[str, ...]
    reranker: str = ""
    fusion: str = "rrf"
    calibrated_abstention: bool = False
    k_per_plane: int = 100
    rrf_k: int = 60
    plane_weights: dict[str, float] = field(default_factory=dict)  # weighted RRF, default 1
    hierarchy_penalty: int = 0  # ranks a clause drops when a provision enclosing it ranks higher
    rerank_depth: int = 50
    bm25_k1: float = 0.9
    bm25_b: float = 0.4


def load_configurations(path: Path = CONFIGURATIONS_FILE) -> dict[str, EngineConfig]:
    """Parse the configuration table; a bad entry raises ValueError naming the file and entry."""
    with path.open("rb") as fh:
        table = tomllib.load(fh)
    configs = {}
    for name, entry in table.items():
        where = f"{path}: [{name}]"
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
        configs[name] = EngineConfig(name=name, **{**entry, "planes": planes})
    return configs


@functools.cache
def _default_configurations() -> dict[str, EngineConfig]:
    return load_configurations()


def get_configuration(name: str) -> EngineConfig:
    """A configuration of the packaged table (read once per process)."""
    configs = _default_configurations()
    if name not in configs:
        raise ValueError(f"unknown configuration {name!r}; known: {', '.join(configs)}")
    return configs[name]
