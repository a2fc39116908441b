#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Holds docs/protocol.md to its tests (make docs-check).

Every statement of the protocol is a bullet that starts with its id and its keyword:
`- **C-ACK-2** MUST …` (the client's) or `- **S-ACK-2** MUST …` (the server's). Each client
statement names the tests that check it (`*Tested by:*`), each server statement the checker step
that reports it (`*Checker:*`). This fails when a statement has no keyword, names no test, or
names one that does not exist:

- `SuiteTests` ("title", …): Tests/**/SuiteTests.swift holds an @Test of each title (a title
  ending in … is the start of one);
- interop ("phrase"): Tests/Interop/interop.py (or interop_conformance.py) says the phrase;
- hostile `scenario`: a scenario of Tests/Hostile/hostile.py;
- `make target`: a target of the Makefile;
- `*Checker:*` `step`: a step of Tests/ServerConformance that claims the statement.

The server's statements must also be exactly those the checker knows (statements.py), at the
same level. `--self-test` plants broken statements in a copy of the document and fails unless
each is reported.

Usage: check_protocol.py [--document PATH] [--self-test]
"""
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "Tests" / "ServerConformance"))
import statements  # noqa: E402
import steps_connection  # noqa: E402,F401  (the steps register themselves)
import steps_delivery  # noqa: E402,F401
import steps_messages  # noqa: E402,F401

START = re.compile(r"^- \*\*([CS]-[A-Z]+-\d+)\*\*(?: (MUST NOT|MUST|SHOULD NOT|SHOULD|MAY)\b)?")
SUITE = re.compile(r"`(\w+Tests)`(?:\s*\(((?:\"[^\"]*\"(?:,\s*)?)+)\))?")
INTEROP = re.compile(r"\binterop\b(?:\s*\(((?:\"[^\"]*\"(?:,\s*)?)+)\))?")
HOSTILE = re.compile(r"\bhostile\s+((?:`\w+`(?:,\s*)?)+)")
MAKE = re.compile(r"`make ([\w-]+)`")
CHECKER = re.compile(r"\*Checker:\*\s*`(\w+)`")
QUOTED = re.compile(r"\"([^\"]*)\"")


def bullets(text):
    """(id, level, the bullet's text) for every statement, in order."""
    found, current = [], None
    for line in text.splitlines():
        match = START.match(line)
        if match:
            current = [match.group(1), match.group(2), line]
            found.append(current)
        elif current is not None and line.startswith("  ") and line.strip():
            current[2] += "\n" + line
        else:
            current = None
    return found


def test_titles(suite):
    files = list((ROOT / "Tests").rglob(f"{suite}.swift"))
    if not files:
        return None
    return [m.group(1) for f in files for m in re.finditer(r'@Test\(\s*"((?:[^"\\]|\\.)*)"', f.read_text())]


def check_client(identifier, body, problems):
    part = body.split("*Tested by:*", 1)
    if len(part) < 2:
        problems.append(f"{identifier} names no test (*Tested by:*)")
        return
    references = re.sub(r"\s+", " ", part[1])  # a title may wrap across the bullet's lines
    named = 0
    for match in SUITE.finditer(references):
        named += 1
        titles = test_titles(match.group(1))
        if titles is None:
            problems.append(f"{identifier}: there is no Tests/**/{match.group(1)}.swift")
            continue
        for title in QUOTED.findall(match.group(2) or ""):
            wanted = title.rstrip("…").rstrip()
            if not any(t == wanted or (title.endswith("…") and t.startswith(wanted)) for t in titles):
                problems.append(f"{identifier}: {match.group(1)} has no test titled \"{title}\"")
    interop = "".join((ROOT / "Tests" / "Interop" / name).read_text()
                      for name in ("interop.py", "interop_conformance.py"))
    for match in INTEROP.finditer(references):
        named += 1
        for phrase in QUOTED.findall(match.group(1) or ""):
            if phrase.rstrip("…") not in interop:
                problems.append(f"{identifier}: the interop matrix does not say \"{phrase}\"")
    hostile = (ROOT / "Tests" / "Hostile" / "hostile.py").read_text()
    for match in HOSTILE.finditer(references):
        for scenario in re.findall(r"`(\w+)`", match.group(1)):
            named += 1
            if f"def {scenario}(" not in hostile:
                problems.append(f"{identifier}: the hostile peer has no scenario {scenario}")
    makefile = (ROOT / "Makefile").read_text()
    for target in MAKE.findall(references):
        named += 1
        if not re.search(rf"^{re.escape(target)}:", makefile, re.M):
            problems.append(f"{identifier}: the Makefile has no target {target}")
    if not named:
        problems.append(f"{identifier} names no test it can be held to after *Tested by:*")


def check_server(identifier, level, body, problems):
    steps = CHECKER.findall(body)
    if not steps:
        problems.append(f"{identifier} names no checker step (*Checker:*)")
    for step in steps:
        claimed = statements.STEPS.get(step, ((), None))[0]
        if step not in statements.STEPS:
            problems.append(f"{identifier}: the checker has no step {step}")
        elif identifier not in claimed:
            problems.append(f"{identifier}: the checker's step {step} does not report it")
    known = statements.LEVELS.get(identifier)
    if known is None:
        problems.append(f"{identifier} is not among the checker's statements (Tests/ServerConformance/statements.py)")
    elif known != level:
        problems.append(f"{identifier} is {level} here and {known} in the checker")


def check(document):
    problems = []
    seen = set()
    found = bullets(document.read_text())
    for identifier, level, body in found:
        if identifier in seen:
            problems.append(f"{identifier} is stated twice")
        seen.add(identifier)
        if level is None:
            problems.append(f"{identifier} has no keyword (MUST, MUST NOT, SHOULD, SHOULD NOT, MAY) after its id")
        if identifier.startswith("C-"):
            check_client(identifier, body, problems)
        else:
            check_server(identifier, level, body, problems)
    for identifier in statements.LEVELS:
        if identifier not in seen:
            problems.append(f"the checker reports {identifier}, which the document does not state")
    return found, problems


def self_test():
    """Plants one broken statement of each kind; each must be reported."""
    document = ROOT / "docs" / "protocol.md"
    planted = {
        "C-ZZ-1 names no test": "- **C-ZZ-1** MUST do what no test checks.",
        "there is no Tests/**/NoSuchTests.swift": "- **C-ZZ-2** MUST x.\n  *Tested by:* `NoSuchTests` (\"y\").",
        "has no test titled \"no test has this title\"": "- **C-ZZ-3** MUST x.\n  *Tested by:* `PushDecoderTests` (\"no test has this title\").",
        "the hostile peer has no scenario no_such_scenario": "- **C-ZZ-4** MUST x.\n  *Tested by:* hostile `no_such_scenario`.",
        "C-ZZ-5 has no keyword": "- **C-ZZ-5** The client does x.\n  *Tested by:* `DeliveryTests`.",
        "S-ZZ-1 names no checker step": "- **S-ZZ-1** MUST x.",
        "S-ZZ-2: the checker has no step no_such_step": "- **S-ZZ-2** MUST x.\n  *Checker:* `no_such_step`.",
        "S-ZZ-3: the checker's step upgrade does not report it": "- **S-ZZ-3** MUST x.\n  *Checker:* `upgrade`.",
        "S-HS-1 is stated twice": "- **S-HS-1** MUST x.\n  *Checker:* `upgrade`.",
    }
    failures = []
    with tempfile.TemporaryDirectory() as directory:
        for expected, statement in planted.items():
            copy = Path(directory) / "protocol.md"
            copy.write_text(document.read_text() + "\n## Planted\n\n" + statement + "\n")
            _, problems = check(copy)
            if not any(expected in problem for problem in problems):
                failures.append(f"not reported: {expected} (got {problems})")
    for failure in failures:
        print(f"check_protocol self-test: {failure}", file=sys.stderr)
    print(f"check_protocol self-test: {len(planted) - len(failures)} of {len(planted)} planted faults reported")
    return 1 if failures else 0


def main():
    if "--self-test" in sys.argv[1:]:
        return self_test()
    document = Path(sys.argv[sys.argv.index("--document") + 1]) if "--document" in sys.argv else ROOT / "docs" / "protocol.md"
    found, problems = check(document)
    for problem in problems:
        print(f"{document.relative_to(ROOT) if document.is_relative_to(ROOT) else document}: {problem}", file=sys.stderr)
    clients = sum(1 for i, _, _ in found if i.startswith("C-"))
    print(f"check_protocol: {clients} client and {len(found) - clients} server statements, "
          f"{'each held to a test or a checker step' if not problems else f'{len(problems)} problem' + ('s' * (len(problems) != 1))}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
