#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The license stays said (make docs-check): LICENSE is the Apache License 2.0; every source file
the repository keeps (.swift, .py, .sh, and scripts without a suffix that start with #!) says
`SPDX-License-Identifier: Apache-2.0` in its first lines, as the Swift server ecosystem's files do;
debian/copyright is DEP-5 with intrapush's own files under Apache-2.0, and names every Swift
package linked into the binaries: those Package.swift depends on, and, once a build has resolved
them, every package of Package.resolved; the README says the license. Exits 1 naming each problem.

--self-test first plants, in a copy of the tree, a Swift file without the identifier and a
dependency debian/copyright does not name, and fails unless each is reported.

Usage: check_license.py [--self-test]
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
IDENTIFIER = "SPDX-License-Identifier: Apache-2.0"
SOURCE = re.compile(r"\.(swift|py|sh)$")


def read(root, path):
    with open(os.path.join(root, path), encoding="utf-8", errors="replace") as file:
        return file.read()


def tracked(root):
    """The files git keeps, or, in a copy without .git, every file outside .build and dist."""
    result = subprocess.run(["git", "ls-files"], cwd=root, capture_output=True, text=True)
    if result.returncode == 0 and result.stdout:
        return result.stdout.split("\n")
    found = []
    for directory, names, files in os.walk(root):
        names[:] = [n for n in names if n not in (".build", "dist", ".git")]
        found += [os.path.relpath(os.path.join(directory, f), root) for f in files]
    return found


def is_source(root, path):
    if SOURCE.search(path):
        return True
    if os.path.basename(path) == "run" or "." in os.path.basename(path) or not os.path.isfile(os.path.join(root, path)):
        return path == ".ci/run"
    with open(os.path.join(root, path), "rb") as file:
        return file.read(2) == b"#!"


def check_headers(root):
    problems = []
    for path in tracked(root):
        if path and os.path.isfile(os.path.join(root, path)) and is_source(root, path):
            head = read(root, path).split("\n")[:4]
            if not any(IDENTIFIER in line for line in head):
                problems.append(f"{path} does not begin with `{IDENTIFIER}` (in its first lines, after a #! line)")
    return problems


def dependencies(root):
    """The Swift packages the binaries link: Package.swift's, and Package.resolved's when there."""
    names = set(re.findall(r'\.package\(url: "[^"]*/([^"/]+?)(?:\.git)?"', read(root, "Package.swift")))
    resolved = os.path.join(root, "Package.resolved")
    if os.path.exists(resolved):
        with open(resolved, encoding="utf-8") as file:
            names |= {re.sub(r"\.git$", "", pin["location"].rstrip("/").split("/")[-1]) for pin in json.load(file)["pins"]}
    return names


def check_copyright(root):
    text = read(root, "debian/copyright")
    problems = []
    if not text.startswith("Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"):
        problems.append("debian/copyright is not in DEP-5 (its first line must be its Format:)")
    if not re.search(r"^Files: \*\nCopyright: .+\nLicense: Apache-2.0$", text, re.M):
        problems.append("debian/copyright: the stanza `Files: *` must say `License: Apache-2.0`")
    named = set()
    for match in re.finditer(r"^Files: (.*(?:\n .*)*)", text, re.M):
        named |= {pattern.split("/")[0] for pattern in match.group(1).split()}
    problems += [f"debian/copyright names no licence for the Swift package {name}, which the binaries link"
                 for name in sorted(dependencies(root)) if name not in named]
    for license in set(re.findall(r"^License: (\S+)$", text, re.M)):
        if not re.search(rf"^License: {re.escape(license)}\n ", text, re.M):
            problems.append(f"debian/copyright: the licence {license} has no stanza with its text")
    return problems


def check_license_file(root):
    problems = []
    head = read(root, "LICENSE")[:400] if os.path.exists(os.path.join(root, "LICENSE")) else ""
    if "Apache License" not in head or "Version 2.0, January 2004" not in head:
        problems.append("LICENSE is not the Apache License 2.0")
    if not re.search(r"^## License$", read(root, "README.md"), re.M) or "](LICENSE)" not in read(root, "README.md"):
        problems.append("README.md has no section `## License` linking LICENSE")
    return problems


def check(root):
    return check_license_file(root) + check_headers(root) + check_copyright(root)


def self_test():
    with tempfile.TemporaryDirectory() as scratch:
        copy = os.path.join(scratch, "tree")
        for path in tracked(ROOT) + ["Package.resolved"]:
            if path and os.path.isfile(os.path.join(ROOT, path)):
                os.makedirs(os.path.dirname(os.path.join(copy, path)), exist_ok=True)
                shutil.copy2(os.path.join(ROOT, path), os.path.join(copy, path))
        with open(os.path.join(copy, "Sources", "Planted.swift"), "w") as file:
            file.write("let planted = 1\n")
        package = read(copy, "Package.swift").replace(
            "dependencies: [", 'dependencies: [\n        .package(url: "https://github.com/example/swift-planted.git", from: "1.0.0"),', 1)
        with open(os.path.join(copy, "Package.swift"), "w") as file:
            file.write(package)
        found = check(copy)
        wanted = ["Sources/Planted.swift does not begin", "the Swift package swift-planted"]
        missed = [w for w in wanted if not any(w in problem for problem in found)]
        if missed:
            sys.exit(f"check_license: self-test: not reported: {missed} (found: {found})")
    print("check_license: self-test: a Swift file without the identifier and an unnamed dependency are each reported")


def main():
    if "--self-test" in sys.argv[1:]:
        self_test()
    problems = check(ROOT)
    for problem in problems:
        print(f"check_license: {problem}", file=sys.stderr)
    if problems:
        return 1
    print(f"check_license: LICENSE is Apache-2.0, every source file says so, and debian/copyright names "
          f"the licence of each of the {len(dependencies(ROOT))} Swift packages linked")
    return 0


if __name__ == "__main__":
    sys.exit(main())
