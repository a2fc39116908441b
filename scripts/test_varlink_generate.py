#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The generator's tests (make generated-check, so make check and make test).

Golden files: each interface of Tests/Generator/*.varlink (every construct of the IDL, Swift
keywords as names, declared types that nested ones would hide, anonymous types among an error's
parameters) must generate exactly Tests/IntrapushInterfaceTests/Generator/<Name>Interface.swift.
Those files are compiled into the Swift tests, and GeneratorCaseTests there checks that they
mean what the interface says (a keyword field is that field, not the value itself; a declared type
stays the declared one; an error's enum is an enum). So a generator that writes a construct wrongly
fails here, and blessing its output with --update fails the build or those tests.

Refusals: each Tests/Generator/invalid/*.varlink, which cannot be written as Swift that keeps its
meaning, must fail with the words on its `# expect:` line.

Usage: test_varlink_generate.py [--update]   (--update rewrites the golden files)
"""
import glob
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from varlink_generate import ROOT, description, interface_source, swift_name_of  # noqa: E402
from varlink_idl import IDLError  # noqa: E402

CASES = os.path.join(ROOT, "Tests", "Generator")
GOLDEN = os.path.join(ROOT, "Tests", "IntrapushInterfaceTests", "Generator")
# Outside the module of the local API, the golden files import it.
IMPORTS = ("IntrapushInterface", "IntrapushSupport")


def golden(update):
    problems, seen = [], set()
    for path in sorted(glob.glob(os.path.join(CASES, "*.varlink"))):
        try:
            interface, text = interface_source(path, IMPORTS)
        except IDLError as error:
            problems.append(f"{os.path.relpath(path, ROOT)}: {error}")
            continue
        text += "\n" + "\n".join(description(interface))
        target = os.path.join(GOLDEN, swift_name_of(interface) + ".swift")
        seen.add(target)
        current = open(target, encoding="utf-8").read() if os.path.exists(target) else None
        if current == text:
            continue
        if update:
            os.makedirs(GOLDEN, exist_ok=True)
            with open(target, "w", encoding="utf-8") as file:
                file.write(text)
            print(f"wrote {os.path.relpath(target, ROOT)}")
        else:
            problems.append(f"{os.path.relpath(target, ROOT)} is not what {os.path.relpath(path, ROOT)} generates"
                            + (" (missing)" if current is None else f": first difference at line {first_difference(current, text)}"))
    for stale in sorted(set(glob.glob(os.path.join(GOLDEN, "*Interface.swift"))) - seen):
        problems.append(f"{os.path.relpath(stale, ROOT)}: no interface of Tests/Generator generates it")
    return problems, len(seen)


def first_difference(old, new):
    for number, (a, b) in enumerate(zip(old.split("\n"), new.split("\n")), start=1):
        if a != b:
            return f"{number}:\n    golden:    {a.strip()}\n    generated: {b.strip()}"
    return min(old.count("\n"), new.count("\n")) + 1


def refusals():
    problems, count = [], 0
    for path in sorted(glob.glob(os.path.join(CASES, "invalid", "*.varlink"))):
        count += 1
        with open(path, encoding="utf-8") as file:
            expected = file.readline().removeprefix("# expect:").strip()
        shown = os.path.relpath(path, ROOT)
        try:
            interface_source(path, IMPORTS)
        except IDLError as error:
            if expected not in str(error):
                problems.append(f"{shown}: refused, but with \"{error}\", not \"{expected}\"")
            continue
        problems.append(f"{shown}: generated, where it must be refused with \"{expected}\"")
    return problems, count


def main():
    update = "--update" in sys.argv[1:]
    golden_problems, interfaces = golden(update)
    refusal_problems, invalid = refusals()
    problems = golden_problems + refusal_problems
    for problem in problems:
        print(f"test_varlink_generate: {problem}", file=sys.stderr)
    if problems:
        if golden_problems and not update:
            print("test_varlink_generate: if the change is meant, `scripts/test_varlink_generate.py --update`, "
                  "then `swift build --build-tests` and the GeneratorCaseTests", file=sys.stderr)
        return 1
    print(f"test_varlink_generate: {interfaces} interfaces generate their golden files; {invalid} invalid ones are refused")
    return 0


if __name__ == "__main__":
    sys.exit(main())
