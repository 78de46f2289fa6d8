"""A learned reader for the facts a question states in words no declared pattern covers.

`LearnedFactReader(threshold=0.6).fit(parsed, facts, vocabulary)` fits, for each declared
bool, enumeration or count fact that at least `min_examples` of the training questions state,
a logistic regression over TF-IDF word 1-2-grams and character 3-5-grams, with "not stated"
as a class of its own. `transform(parsed)` adds the facts the pattern reader left unread whose
most probable value reaches `threshold`, each with that probability (`QueryFact.confidence`);
a fact the patterns read is never replaced.

Amounts and dates are read by their role: every dollar amount and every single day the
question names that no pattern took is classified, from the words around it and in its
sentence, as one of the declared amount (or date) facts or as none (a logistic regression per
kind, trained on the mentions whose value equals a gold fact's). A fact that two mentions with
different values claim is left unread; durations declared as the days between two dates are
derived when a learned date completes a pair. The fitted reader is plain arrays (vocabularies,
idf weights, coefficients): `save` writes them without pickling, `load` reads them back, and
`predict_proba` computes from them alone, so a loaded reader answers exactly as the fitted one.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from scipy import sparse
from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from structfirst.engine.query_dates import Span
from structfirst.engine.query_facts import QueryFact, amount_value, find_amounts
from structfirst.engine.query_parser import ParsedQuery
from structfirst.rules.fact_schema import FactType, Vocabulary

NOT_STATED = "~"  # the class of a question that does not state the fact
READ_TYPES = (FactType.BOOL, FactType.ENUM, FactType.COUNT)
RECORD_FILE = "fact_reader.json"
WEIGHTS_FILE = "weights.npz"
# the two views of a question: (name, CountVectorizer arguments)
VIEWS = (
    ("words", {"ngram_range": (1, 2), "lowercase": True}),
    ("chars", {"analyzer": "char_wb", "ngram_range": (3, 5), "lowercase": True}),
)


# mention kind -> the declared type of the facts its roles are
MENTION_TYPES = {"amount": FactType.AMOUNT, "date": FactType.DATE}
NO_ROLE = "~"  # a mention that is none of the facts
_TOKEN = re.compile(r"[a-z]+|\d+")
_SENTENCE_END = re.compile(r"[.?!;\n]\s")
CONTEXT_WORDS = 6  # the words either side of a mention that its role is read from


class FactReaderError(ValueError):
    """A fact reader that cannot be fitted or read (names the file)."""


def _value(label: str, fact_type: FactType) -> bool | int | str:
    """A class label back as the declared type's value."""
    if fact_type is FactType.BOOL:
        return label == "True"
    if fact_type is FactType.COUNT:
        return int(label)
    return label


@dataclasses.dataclass(frozen=True, slots=True)
class Mention:
    """A dollar amount or a single day in the question: its kind, value and span."""

    kind: str  # "amount" | "date"
    value: Any
    span: Span


def mentions(parsed: ParsedQuery) -> list[Mention]:
    """The amounts and single days of the question that no pattern-read fact covers, in
    order."""
    taken = [f.span for f in parsed.facts if not f.derived and f.confidence is None]

    def free(span: Span) -> bool:
        return not any(span[0] < b and a < span[1] for a, b in taken)

    found = [Mention("amount", amount_value(m), m.span())
             for m in find_amounts(parsed.question) if free(m.span())]
    found += [Mention("date", d.value, d.span) for d in parsed.dates
              if d.exact and d.granularity == "day" and free(d.span)]
    return sorted(found, key=lambda m: m.span)


def context(q: str, span: Span) -> list[str]:
    """A mention's features: the words just before and after it (the nearest marked again)
    and the words of its sentence."""
    left = _TOKEN.findall(q[max(0, span[0] - 100):span[0]].lower())[-CONTEXT_WORDS:]
    right = _TOKEN.findall(q[span[1]:span[1] + 100].lower())[:CONTEXT_WORDS]
    starts = [m.end() for m in _SENTENCE_END.finditer(q, 0, span[0])]
    end = _SENTENCE_END.search(q, span[1])
    sentence = _TOKEN.findall(q[starts[-1] if starts else 0:end.start() if end else len(q)]
                              .lower())
    out = [f"L:{t}" for t in left] + [f"R:{t}" for t in right] + [f"S:{t}" for t in sentence]
    out += [f"L1:{left[-1]}"] if left else ["L1:^"]
    out += [f"R1:{right[0]}"] if right else ["R1:$"]
    out += [f"L2:{a}_{b}" for a, b in zip(left, left[1:], strict=False)]
    out += [f"R2:{a}_{b}" for a, b in zip(right, right[1:], strict=False)]
    return out


def _role_label(mention: Mention, gold: Mapping[str, Any], names: Sequence[str]) -> str:
    """The fact of `names` whose gold value the mention states, else NO_ROLE."""
    for name in names:
        value = gold.get(name)
        if value is None:
            continue
        if mention.kind == "amount" and abs(float(value) - float(mention.value)) < 0.5:
            return name
        if mention.kind == "date" and value == mention.value:
            return name
    return NO_ROLE


def _as_saved(coef: np.ndarray) -> np.ndarray:
    """Coefficients rounded to float16, as they are saved (half the size), kept in float64 for
    computing: a fitted and a loaded reader compute with the same numbers."""
    return coef.astype(np.float16).astype(np.float64)


def _probabilities(x: sparse.csr_matrix, coef: np.ndarray, intercept: np.ndarray) -> np.ndarray:
    """A logistic regression's class probabilities from its coefficients (binary: one row,
    the second class's logit; else the softmax of one row per class)."""
    z = np.asarray(x @ coef.T) + intercept
    if coef.shape[0] == 1:
        p = 1.0 / (1.0 + np.exp(-z[:, 0]))
        return np.column_stack([1.0 - p, p])
    z -= z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


class LearnedFactReader:
    """Per-fact logistic regressions over TF-IDF views of the question (scikit-learn style)."""

    def __init__(self, threshold: float = 0.6, c: float = 10.0, min_examples: int = 20,
                 min_df: int = 2) -> None:
        self.threshold = threshold
        self.c = c
        self.min_examples = min_examples
        self.min_df = min_df

    def get_params(self) -> dict[str, Any]:
        return {"threshold": self.threshold, "c": self.c, "min_examples": self.min_examples,
                "min_df": self.min_df}

    def clone(self) -> LearnedFactReader:
        return LearnedFactReader(**self.get_params())

    def fit(self, parsed: Sequence[ParsedQuery], facts: Sequence[Mapping[str, Any]],
            vocabulary: Vocabulary) -> LearnedFactReader:
        """Fit on parsed questions (the pattern reader's output) and their gold facts; the
        facts read are the declared bool, enumeration and count facts stated in at least
        `min_examples` questions, and the roles of amounts and dates."""
        if len(parsed) != len(facts):
            raise FactReaderError(f"{len(parsed)} questions but {len(facts)} fact records")
        self._fit_roles(parsed, facts, vocabulary)
        self.derivations_ = {name: list(spec.days_between) for name, spec in
                             vocabulary.facts.items() if spec.days_between}
        questions = [p.question for p in parsed]
        stated = Counter(name for f in facts for name in f)
        names = [n for n, spec in vocabulary.facts.items()
                 if spec.type in READ_TYPES and stated[n] >= self.min_examples]
        if not names:
            raise FactReaderError(
                f"no declared bool, enumeration or count fact is stated in {self.min_examples} "
                f"of the {len(questions)} questions: nothing to learn")
        self.vocabularies_: dict[str, list[str]] = {}
        self.idf_: dict[str, np.ndarray] = {}
        for view, args in VIEWS:
            tfidf = TfidfVectorizer(**args, min_df=self.min_df, sublinear_tf=True,
                                    dtype=np.float64).fit(questions)
            terms = tfidf.get_feature_names_out()
            self.vocabularies_[view] = [str(t) for t in terms]
            self.idf_[view] = tfidf.idf_.astype(np.float64)
        self._index_views()
        x = self._features(questions)
        self.facts_: dict[str, str] = {}  # fact -> declared type
        self.classes_: dict[str, list[str]] = {}
        self.coef_: dict[str, np.ndarray] = {}
        self.intercept_: dict[str, np.ndarray] = {}
        for name in names:
            y = [str(f.get(name, NOT_STATED)) for f in facts]
            if len(set(y)) < 2:
                continue
            model = LogisticRegression(C=self.c, max_iter=3000).fit(x, y)
            self.facts_[name] = vocabulary[name].type.value
            self.classes_[name] = [str(k) for k in model.classes_]
            self.coef_[name] = _as_saved(model.coef_)
            self.intercept_[name] = model.intercept_.astype(np.float64)
        return self

    def _fit_roles(self, parsed: Sequence[ParsedQuery], facts: Sequence[Mapping[str, Any]],
                   vocabulary: Vocabulary) -> None:
        """A role classifier per mention kind, on every mention of the training questions."""
        names = {kind: [n for n, spec in vocabulary.facts.items() if spec.type is fact_type]
                 for kind, fact_type in MENTION_TYPES.items()}
        rows: dict[str, tuple[list[list[str]], list[str]]] = {k: ([], []) for k in MENTION_TYPES}
        for p, gold in zip(parsed, facts, strict=True):
            for m in mentions(p):
                rows[m.kind][0].append(context(p.question, m.span))
                rows[m.kind][1].append(_role_label(m, gold, names[m.kind]))
        self.role_features_: dict[str, list[str]] = {}
        self.role_classes_: dict[str, list[str]] = {}
        self.role_coef_: dict[str, np.ndarray] = {}
        self.role_intercept_: dict[str, np.ndarray] = {}
        for kind, (x_rows, y) in rows.items():
            if len(set(y)) >= 2:
                seen = Counter(f for row in x_rows for f in set(row))
                self.role_features_[kind] = sorted(f for f, n in seen.items() if n >= self.min_df)
        self._index_roles()
        for kind in self.role_features_:
            x_rows, y = rows[kind]
            model = LogisticRegression(C=self.c, max_iter=3000).fit(
                self._role_matrix(kind, x_rows), y)
            self.role_classes_[kind] = [str(k) for k in model.classes_]
            self.role_coef_[kind] = _as_saved(model.coef_)
            self.role_intercept_[kind] = model.intercept_.astype(np.float64)

    def _index_views(self) -> None:
        """One counter per view over its fitted vocabulary, built once (fit, load)."""
        self._counters = {view: CountVectorizer(**args, vocabulary=self.vocabularies_[view])
                          .fit([]) for view, args in VIEWS}

    def _index_roles(self) -> None:
        """Each mention kind's feature -> column, built once (fit, load)."""
        self._role_index = {kind: {f: i for i, f in enumerate(features)}
                            for kind, features in self.role_features_.items()}

    def _role_matrix(self, kind: str, x_rows: Sequence[Sequence[str]]) -> sparse.csr_matrix:
        index = self._role_index[kind]
        cols = [sorted({index[f] for f in row if f in index}) for row in x_rows]
        flat = np.array([i for c in cols for i in c], dtype=np.int64)
        return sparse.csr_matrix((np.ones(len(flat)), flat, np.cumsum([0, *map(len, cols)])),
                                 shape=(len(x_rows), len(index)))

    def _features(self, questions: Sequence[str]) -> sparse.csr_matrix:
        """The TF-IDF views (sublinear tf, each view L2-normalized), side by side."""
        blocks = []
        for view, _ in VIEWS:
            counts = self._counters[view].transform(questions).astype(np.float64)
            counts.data = 1.0 + np.log(counts.data)
            weighted = counts.multiply(self.idf_[view]).tocsr()
            norms = np.sqrt(np.asarray(weighted.multiply(weighted).sum(axis=1))).ravel()
            norms[norms == 0] = 1.0
            blocks.append(sparse.diags(1.0 / norms) @ weighted)
        return sparse.hstack(blocks).tocsr()

    def predict_proba(self, questions: Sequence[str]) -> dict[str, np.ndarray]:
        """fact -> (questions x classes) probabilities, in `classes_[fact]` order."""
        x = self._features(questions)
        return {name: _probabilities(x, coef, self.intercept_[name])
                for name, coef in self.coef_.items()}

    def read_roles(self, parsed: ParsedQuery) -> dict[str, tuple[Mention, float]]:
        """fact -> (mention, probability) of the mentions whose most probable role is a fact
        with probability at least `threshold`; a fact claimed with two values is left out."""
        claims: dict[str, list[tuple[Mention, float]]] = {}
        found = mentions(parsed)
        for kind in self.role_coef_:
            mine = [m for m in found if m.kind == kind]
            if not mine:
                continue
            x = self._role_matrix(kind, [context(parsed.question, m.span) for m in mine])
            probs = _probabilities(x, self.role_coef_[kind], self.role_intercept_[kind])
            for m, row in zip(mine, probs, strict=True):
                k = int(row.argmax())
                role = self.role_classes_[kind][k]
                if role != NO_ROLE and row[k] >= self.threshold:
                    claims.setdefault(role, []).append((m, float(row[k])))
        return {name: max(got, key=lambda c: c[1]) for name, got in claims.items()
                if len({m.value for m, _ in got}) == 1}

    def read(self, questions: Sequence[str]) -> list[dict[str, tuple[bool | int | str, float]]]:
        """Per question: fact -> (value, probability) for each fact whose most probable class
        is a value (not "not stated") with probability at least `threshold`."""
        out: list[dict[str, tuple[bool | int | str, float]]] = [{} for _ in questions]
        for name, probs in self.predict_proba(questions).items():
            best = probs.argmax(axis=1)
            for row, (k, p) in enumerate(zip(best, probs[np.arange(len(best)), best],
                                             strict=True)):
                label = self.classes_[name][k]
                if label != NOT_STATED and p >= self.threshold:
                    out[row][name] = (_value(label, FactType(self.facts_[name])), float(p))
        return out

    def transform(self, parsed: ParsedQuery) -> ParsedQuery:
        """`parsed` with the learned facts added that the pattern reader neither read nor found
        left open (asked about: "Is she an insider?")."""
        q = parsed.question
        have = {f.name: f for f in parsed.facts}
        unread = set(have) | set(parsed.left_open)  # stated, or asked about: not to be read
        added: list[QueryFact] = []
        for name, (m, p) in self.read_roles(parsed).items():
            if name not in unread:
                added.append(QueryFact(name, m.value, MENTION_TYPES[m.kind].value, m.span,
                                       q[m.span[0]:m.span[1]],
                                       "USD" if m.kind == "amount" else None,
                                       confidence=round(p, 4)))
        whole = (0, len(q))
        added += [QueryFact(name, value, self.facts_[name], whole, "", confidence=round(p, 4))
                  for name, (value, p) in self.read([q])[0].items() if name not in unread]
        for name, (earlier, later) in self.derivations_.items():
            learned = {f.name: f for f in added}
            a, b = (learned.get(n) or have.get(n) for n in (earlier, later))
            if a is None or b is None or not (earlier in learned or later in learned):
                continue
            days = (b.value - a.value).days
            # dates out of order, or against a duration the question states: wrong roles
            if days < 0 or (name in have and have[name].value != days):
                added = [f for f in added if f.name not in (earlier, later)]
            elif name not in have:
                added.append(QueryFact(name, days, FactType.DURATION.value, whole, "", "days",
                                       derived=True,
                                       confidence=min(a.confidence or 1.0, b.confidence or 1.0)))
        return dataclasses.replace(parsed, facts=parsed.facts + tuple(added)) if added else parsed

    def save(self, folder: Path, meta: Mapping[str, Any]) -> None:
        """The record (parameters, facts, classes, `meta`) as JSON, the arrays as npz."""
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        arrays: dict[str, np.ndarray] = {}
        for view, _ in VIEWS:
            arrays[f"vocabulary.{view}"] = np.array(self.vocabularies_[view], dtype=str)
            arrays[f"idf.{view}"] = self.idf_[view]
        for name in self.facts_:
            arrays[f"coef.{name}"] = self.coef_[name].astype(np.float16)
            arrays[f"intercept.{name}"] = self.intercept_[name]
        for kind in self.role_classes_:
            arrays[f"role_features.{kind}"] = np.array(self.role_features_[kind], dtype=str)
            arrays[f"role_coef.{kind}"] = self.role_coef_[kind].astype(np.float16)
            arrays[f"role_intercept.{kind}"] = self.role_intercept_[kind]
        np.savez_compressed(folder / WEIGHTS_FILE, **arrays)
        record = {"kind": "learned-fact-reader", "params": self.get_params(),
                  "facts": self.facts_, "classes": self.classes_,
                  "role_classes": self.role_classes_, "derivations": self.derivations_, **meta}
        (folder / RECORD_FILE).write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, folder: Path) -> tuple[LearnedFactReader, dict[str, Any]]:
        """(the reader, its record); FactReaderError naming the file when one is missing or
        does not match the other."""
        path, npz = Path(folder) / RECORD_FILE, Path(folder) / WEIGHTS_FILE
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
            with np.load(npz, allow_pickle=False) as archive:
                weights = {k: archive[k] for k in archive.files}
        except FileNotFoundError as exc:
            raise FactReaderError(f"{exc.filename}: no fact reader here (run `structfirst "
                                  "fit-facts`)") from None
        except (json.JSONDecodeError, ValueError, OSError) as exc:
            raise FactReaderError(f"{path}: cannot read the fact reader ({exc})") from None
        if record.get("kind") != "learned-fact-reader":
            raise FactReaderError(f"{path}: a {record.get('kind')!r} record, not a fact reader")
        missing = [k for k in ("params", "facts", "classes", "role_classes", "derivations")
                   if k not in record]
        if missing:
            raise FactReaderError(f"{path}: the record lacks {missing}")
        reader = cls(**record["params"])
        reader.facts_ = dict(record["facts"])
        reader.classes_ = {n: list(c) for n, c in record["classes"].items()}
        reader.role_classes_ = {k: list(c) for k, c in record["role_classes"].items()}
        reader.derivations_ = {n: list(pair) for n, pair in record["derivations"].items()}
        try:
            reader.vocabularies_ = {v: [str(t) for t in weights[f"vocabulary.{v}"]]
                                    for v, _ in VIEWS}
            reader.idf_ = {v: weights[f"idf.{v}"] for v, _ in VIEWS}
            reader.coef_ = {n: weights[f"coef.{n}"].astype(np.float64) for n in reader.facts_}
            reader.intercept_ = {n: weights[f"intercept.{n}"] for n in reader.facts_}
            reader.role_features_ = {k: [str(f) for f in weights[f"role_features.{k}"]]
                                     for k in reader.role_classes_}
            reader.role_coef_ = {k: weights[f"role_coef.{k}"].astype(np.float64)
                                 for k in reader.role_classes_}
            reader.role_intercept_ = {k: weights[f"role_intercept.{k}"]
                                      for k in reader.role_classes_}
        except KeyError as exc:
            raise FactReaderError(f"{npz}: no array {exc} for the record {path}") from None
        reader._index_views()
        reader._index_roles()
        for name, coef in reader.coef_.items():
            rows = 1 if len(reader.classes_[name]) == 2 else len(reader.classes_[name])
            width = sum(len(reader.vocabularies_[v]) for v, _ in VIEWS)
            if coef.shape != (rows, width):
                raise FactReaderError(f"{npz}: {name}'s coefficients "
                                      f"are {coef.shape}, the record needs {(rows, width)}")
        return reader, record
