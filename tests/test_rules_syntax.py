"""The rule-file language: parsing, clear errors, Python refused, other rules still load."""

from __future__ import annotations

import shutil
from datetime import date
from pathlib import Path

import pytest
from structfirst.engine.query_parser import parse_query
from structfirst.rules.fact_schema import read_fact_file, read_fact_files
from structfirst.rules.library_loader import TITLE11_FACTS, load_library
from structfirst.rules.rule_syntax import Atom, Compare, Not, parse_rules
from structfirst.rules.semantics import RBind, RBool, RCompare, RParam, RPred

GOOD = """\
# comment
base /us/usc/t11/s547

rule s547.c.9
  title     "Small transfers"
  version   2
  cites     c/9
  effective from 2005-10-17
  keywords  small transfer, de minimis
  ExceptedSmallTransfer <=
        ~debtor_consumer_debts                     @ c/9
      & transfer_amount < param(s547_c_9)          @ c/9

rule s547.b.4
  version   1
  cites     b/4, b/4/A, /us/usc/t11/s547/b/4/B
  effective from 1994-10-22 to 2030-01-01
  Reach <= Within(days_before_filing, 90)                 @ b/4/A
  Reach <= creditor_is_insider & Within(days_before_filing, $365)  @ b/4/B
"""

PARAMS = """\
[s547_c_9]
provision = "/us/usc/t11/s547/c/9"
  [[s547_c_9.values]]
  from = 2005-10-17
  value = 5000
  source = "test"
"""


def _library(tmp_path: Path, files: dict[str, str]):
    shutil.copy(TITLE11_FACTS, tmp_path / "facts.toml")
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    return load_library(tmp_path, thresholds=[])


def test_parses_directives_clauses_and_citations() -> None:
    rf = parse_rules(GOOD, "s547.rules")
    assert not rf.issues
    c9, b4 = rf.rules
    assert (c9.id, c9.version, c9.cites, c9.effective_from, c9.effective_to) == (
        "s547.c.9", 2, ["/us/usc/t11/s547/c/9"], date(2005, 10, 17), None)
    assert c9.keywords == ["small transfer", "de minimis"]
    (clause,) = c9.clauses
    assert clause.head == "ExceptedSmallTransfer"
    first, second = clause.premises
    assert isinstance(first.literal, Not) and first.literal.inner == Atom("debtor_consumer_debts")
    assert isinstance(second.literal, Compare) and second.literal.op == "<"
    assert second.cite == "/us/usc/t11/s547/c/9" and second.line == 12
    assert str(second) == "transfer_amount < param(s547_c_9)"
    assert b4.effective_to == date(2030, 1, 1)
    assert b4.cites[-1] == "/us/usc/t11/s547/b/4/B"
    assert [c.head for c in b4.clauses] == ["Reach", "Reach"]
    assert str(b4.clauses[1].premises[1]) == "Within(days_before_filing, $365)"


def test_syntax_error_names_file_line_and_rule_and_other_rules_load() -> None:
    text = GOOD.replace("Reach <= Within(days_before_filing, 90)",
                        "Reach <= Within(days_before_filing, 90) | creditor_is_insider")
    rf = parse_rules(text, "s547.rules")
    (issue,) = rf.issues
    assert (issue.file, issue.line, issue.rule_id, issue.code) == ("s547.rules", 18, "s547.b.4",
                                                                   "syntax")
    assert "second clause" in issue.message
    assert str(issue).startswith("s547.rules:18: rule s547.b.4: error:")
    assert [r.id for r in rf.rules] == ["s547.c.9"]


def test_missing_directives_and_bad_dates_are_errors() -> None:
    rf = parse_rules("rule x.y\n  version 1\n  Foo <= true\n", "f.rules")
    messages = " ".join(i.message for i in rf.issues)
    assert "missing 'cites" in messages and "missing 'effective from" in messages
    rf = parse_rules("rule x.y\n  version 1\n  cites /a\n  effective from 2005-13-01\n"
                     "  Foo <= true\n", "f.rules")
    assert "not a date" in rf.issues[0].message and rf.issues[0].line == 4
    rf = parse_rules("rule x.y\n  version 1\n  cites b/1\n  effective from 2005-01-01\n"
                     "  Foo <= true\n", "f.rules")
    assert "no 'base' line" in rf.issues[0].message


def test_continuation_lines_and_comparison_forms() -> None:
    rf = parse_rules(
        "rule r\n  version 1\n  cites /x\n  effective from 2000-01-01\n"
        "  Foo <=\n      transfer_amount(A)\n"
        "    & Param(p, L) & ~(A + 3 >= L)  # a comment\n"
        "    & debtor_kind == corporation\n", "f.rules")
    assert not rf.issues
    texts = [p.text for p in rf.rules[0].clauses[0].premises]
    assert texts == ["transfer_amount(A)", "Param(p, L)", "~(A + 3 >= L)",
                     "debtor_kind == corporation"]


def test_python_in_a_rule_file_is_rejected_and_nothing_of_it_loads(tmp_path: Path) -> None:
    evil = GOOD.replace("  keywords  small transfer, de minimis\n",
                        "  keywords  small transfer\n  __import__('os').system('touch pwned')\n")
    lib = _library(tmp_path, {"evil.rules": evil, "t.params.toml": PARAMS,
                              "ok.rules": "rule ok.1\n  version 1\n  cites /x\n"
                                          "  effective from 2000-01-01\n"
                                          "  Fine <= debtor_insolvent\n"})
    (issue,) = [i for i in lib.issues if i.code == "python"]
    assert issue.file.endswith("evil.rules") and issue.line == 10
    assert "may not contain Python" in issue.message and "never executed" in issue.message
    assert [r.id for r in lib.rules] == ["ok.1"]
    assert not (tmp_path / "pwned").exists()


def test_other_python_forms_are_recognized() -> None:
    for line in ("import os", "  Foo <= os.system('x')", "lambda: 1", "def f(): pass",
                 "  Foo <= x; y", "  Foo <= eval('1')", "  Foo <= a.b()"):
        rf = parse_rules(f"rule r\n  version 1\n{line}\n", "p.rules")
        assert rf.rejected, line
        assert rf.issues[0].code == "python" and rf.issues[0].line == 3
    # the words may appear in comments and titles
    rf = parse_rules('rule r\n  title "import of goods; class action"\n  version 1\n'
                     "  cites /x\n  effective from 2000-01-01\n  Foo <= true  # import\n", "t")
    assert not rf.rejected and not rf.issues


def test_unknown_predicate_fact_and_parameter_are_errors_others_load(tmp_path: Path) -> None:
    lib = _library(tmp_path, {"a.rules": GOOD, "t.params.toml": PARAMS, "b.rules": """\
rule bad.pred
  version 1
  cites /x
  effective from 2000-01-01
  Bad <= ExceptedSmalTransfer

rule bad.fact
  version 1
  cites /x
  effective from 2000-01-01
  Bad2 <= debtor_insolvant

rule bad.param
  version 1
  cites /x
  effective from 2000-01-01
  Bad3 <= transfer_amount < param(s547_c_8)

rule uses.bad
  version 1
  cites /x
  effective from 2000-01-01
  Worse <= Bad
"""})
    by_rule = {i.rule_id: i for i in lib.issues if i.severity == "error"}
    assert by_rule["bad.pred"].code == "unknown-predicate"
    assert "did you mean ExceptedSmallTransfer?" in by_rule["bad.pred"].message
    assert by_rule["bad.pred"].line == 5
    assert "did you mean debtor_insolvent?" in by_rule["bad.fact"].message
    assert by_rule["bad.param"].code == "unknown-parameter"
    # one root-cause message: the rule using a broken one is named in it, not reported apart
    assert "uses.bad" not in by_rule
    assert by_rule["bad.pred"].message.endswith(
        "bad.pred failed to load, and so did the rules that use it: uses.bad")
    assert lib.failed["uses.bad"].cause == by_rule["bad.pred"]
    assert sorted(r.id for r in lib.rules) == ["s547.b.4", "s547.c.9"]


def test_unsafe_variables_and_types(tmp_path: Path) -> None:
    lib = _library(tmp_path, {"t.params.toml": PARAMS, "c.rules": """\
rule unsafe.cmp
  version 1
  cites /x
  effective from 2000-01-01
  A1 <= X < 5

rule unsafe.neg
  version 1
  cites /x
  effective from 2000-01-01
  A2 <= ~transfer_amount(X)

rule type.date
  version 1
  cites /x
  effective from 2000-01-01
  A3 <= transfer_amount < filing_date

rule type.enum
  version 1
  cites /x
  effective from 2000-01-01
  A4 <= debtor_kind == corporaton

rule type.bool
  version 1
  cites /x
  effective from 2000-01-01
  A5 <= debtor_insolvent < 3

rule type.units
  version 1
  cites /x
  effective from 2000-01-01
  A6 <= days_before_filing < param(s547_c_9)
"""})
    codes = {i.rule_id: (i.code, i.message) for i in lib.issues if i.severity == "error"}
    assert codes["unsafe.cmp"][0] == "unsafe-variable"
    assert codes["unsafe.neg"][0] == "unsafe-variable"
    assert codes["type.date"] == ("type", "transfer_amount < filing_date compares an amount "
                                          "in USD with a date")
    assert "'corporaton' is not a value of debtor_kind" in codes["type.enum"][1]
    assert codes["type.bool"][0] == "type"
    assert "a number of days with an amount in USD" in codes["type.units"][1]
    assert not lib.rules


def test_resolution_of_premises(tmp_path: Path) -> None:
    lib = _library(tmp_path, {"t.params.toml": PARAMS, "d.rules": """\
rule r.1
  version 1
  cites /x
  effective from 2000-01-01
  Head <= transfer_amount(A) & Param(s547_c_9, L) & A < L & ~debtor_insolvent & ~Other
        & debtor_kind(corporation) & ~Within(days_before_filing, 10)

rule r.2
  version 1
  cites /x
  effective from 2000-01-01
  Other <= true
"""})
    assert not lib.errors()
    (rule,) = lib.versions("r.1")
    kinds = [p.resolved for p in rule.clauses[0].premises]
    assert kinds[0] == RBind("transfer_amount", "A") and kinds[1] == RParam("s547_c_9", "L")
    assert isinstance(kinds[2], RCompare) and kinds[3] == RBool("debtor_insolvent", True)
    assert kinds[4] == RPred("Other", True)
    assert isinstance(kinds[5], RCompare) and kinds[5].op == "=="
    assert isinstance(kinds[6], RCompare) and kinds[6].op == ">"  # ~(days <= 10)
    assert rule.preds == {"Other"} and rule.params == {"s547_c_9"}


def test_cycles_are_refused(tmp_path: Path) -> None:
    lib = _library(tmp_path, {"e.rules": """\
rule a
  version 1
  cites /x
  effective from 2000-01-01
  A <= ~B

rule b
  version 1
  cites /x
  effective from 2000-01-01
  B <= A
"""})
    assert {i.code for i in lib.errors()} == {"cycle"}
    assert not lib.rules


def test_a_total_is_declared_only_for_an_amount(tmp_path: Path) -> None:
    path = tmp_path / "facts.toml"
    path.write_text('[fact.paid]\ntype = "bool"\nmeaning = "paid"\n  [fact.paid.stated]\n'
                    '  total = ["total"]\n')
    message = "fact paid: field stated.total: only an amount is a total of parts"
    specs, issues = read_fact_file(path)
    assert not specs
    assert [(i.message, i.file, i.line) for i in issues] == [(message, str(path), 1)]


def test_declared_unknown_words_leave_any_fact_open(tmp_path: Path) -> None:
    path = tmp_path / "facts.toml"
    path.write_text("""[fact.paid_late]
type = "bool"
meaning = "paid late"
  [fact.paid_late.stated]
  unknown = ['\\bno\\s+idea\\s+when\\b']
  [fact.paid_late.stated.values]
  true = ['\\bpaid\\s+late\\b']
""")
    vocabulary, issues = read_fact_files([path])
    assert not issues
    stated = "The debtor paid late."
    assert parse_query(stated, vocabulary=vocabulary).fact_values() == {"paid_late": True}
    p = parse_query(stated + " I have no idea when.", vocabulary=vocabulary)
    assert p.fact_values() == {} and "paid_late" in p.left_open


@pytest.mark.parametrize("key", ["period_end", "earliest"])
@pytest.mark.parametrize(("ftype", "value"), [("bool", "true"), ("date", '"yes"')])
def test_a_date_s_flags_are_declared_true_or_false_for_a_date(tmp_path: Path, key: str,
                                                               ftype: str, value: str) -> None:
    path = tmp_path / "facts.toml"
    path.write_text(f'[fact.day]\ntype = "{ftype}"\nmeaning = "a day"\n'
                    f'  [fact.day.stated]\n  {key} = {value}\n')
    specs, issues = read_fact_file(path)
    assert not specs
    assert [(i.message, i.file, i.line) for i in issues] == [
        (f"fact day: field stated.{key}: true or false, and only for a date", str(path), 1)]


@pytest.mark.parametrize(
    ("stated", "message"),
    [
        ("patterns = ['{NUM} signers', '(?P<others>{NUM}) more signers']",
         "field stated.patterns: '{NUM} signers' has no group (?P<n>...) or (?P<others>...)"),
        ("patterns = ['(?P<n>{NUM}) signers']\n  less = ['{NUM} of them are employees']",
         "field stated.less: '{NUM} of them are employees' has no group (?P<n>...) (the number "
         "taken off)"),
    ],
)
def test_a_count_s_patterns_need_their_number_group(tmp_path: Path, stated: str,
                                                    message: str) -> None:
    path = tmp_path / "facts.toml"
    path.write_text('[fact.signers]\ntype = "count"\nmeaning = "signers"\n'
                    f"  [fact.signers.stated]\n  {stated}\n")
    specs, issues = read_fact_file(path)
    assert not specs
    assert [(i.message, i.line) for i in issues] == [(f"fact signers: {message}", 1)]


def test_a_file_s_macros_are_put_into_its_patterns(tmp_path: Path) -> None:
    path = tmp_path / "facts.toml"
    path.write_text("[macro]\nTOYS = '(?:yachts?|jets?)'\n\n"
                    '[fact.paid]\ntype = "bool"\nmeaning = "paid"\n'
                    "  [fact.paid.stated.values]\n  true = ['bought\\s+{TOYS}']\n")
    specs, issues = read_fact_file(path)
    assert not issues
    assert specs[0].stated["values"]["true"] == ["bought\\s+(?:yachts?|jets?)"]


@pytest.mark.parametrize(
    ("macros", "pattern", "message", "line"),
    [
        ("", "bought\\s+{TOYS}", "fact paid: field stated: unknown macro {TOYS}", 1),
        ("[macro]\nTOYS = 'x'\n\n", "{CARS}", "fact paid: field stated: unknown macro {CARS}", 4),
        ("[macro]\ntoys = 'x'\n\n", "x", "[macro] toys: a macro name is in capitals", 1),
        ("[macro]\nNUM = 'x'\n\n", "x", "[macro] NUM: a macro name is in capitals", 1),
        ("[macro]\nTOYS = '(x'\n\n", "x", "[macro] TOYS: bad pattern '(x'", 1),
    ],
)
def test_bad_macros_name_their_file_and_line(tmp_path: Path, macros: str, pattern: str,
                                             message: str, line: int) -> None:
    path = tmp_path / "facts.toml"
    path.write_text(macros + '[fact.paid]\ntype = "bool"\nmeaning = "paid"\n'
                    f"  [fact.paid.stated.values]\n  true = ['{pattern}']\n")
    _, issues = read_fact_file(path)
    assert issues and issues[0].message.startswith(message)
    assert (issues[0].file, issues[0].line) == (str(path), line)


def test_a_file_s_shorthand_is_read_into_the_vocabulary(tmp_path: Path) -> None:
    path = tmp_path / "facts.toml"
    path.write_text('[shorthand]\npayment = ["pmt", "Pymt"]\n"cash advance" = ["cash  adv"]\n')
    vocabulary, issues = read_fact_files([path])
    assert not issues
    assert vocabulary.shorthand == {"pmt": "payment", "pymt": "payment",
                                    "cash adv": "cash advance"}


@pytest.mark.parametrize(
    ("table", "message", "line"),
    [
        ('[shorthand]\npayment = "pmt"\n', "[shorthand] payment: a list of abbreviations", 1),
        ('[shorthand]\npayment = []\n', "[shorthand] payment: a list of abbreviations", 1),
        ('\n[shorthand]\npayment = ["pmt", ""]\n', "[shorthand] payment: a list of", 2),
    ],
)
def test_bad_shorthand_names_its_file_and_line(tmp_path: Path, table: str, message: str,
                                               line: int) -> None:
    path = tmp_path / "facts.toml"
    path.write_text(table)
    _, issues = read_fact_file(path)
    assert issues and issues[0].message.startswith(message)
    assert (issues[0].file, issues[0].line) == (str(path), line)


def test_one_abbreviation_with_two_meanings_is_an_error(tmp_path: Path) -> None:
    first, second = tmp_path / "a.facts.toml", tmp_path / "b.facts.toml"
    first.write_text('[shorthand]\npayment = ["pmt"]\n')
    second.write_text('[shorthand]\npermit = ["pmt"]\n')
    vocabulary, issues = read_fact_files([first, second])
    assert vocabulary.shorthand == {"pmt": "payment"}
    assert [(i.message, i.file) for i in issues] == [
        (f"shorthand 'pmt' means 'payment' (at {first}:1) and 'permit'", str(second))]
