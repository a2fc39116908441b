#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""The self-check of agent_powercut.py: a writer of the agent's state file (`notifier-cursor`,
same format) that is deliberately NOT durable. It makes the state directory without syncing its
parent, and replaces the file by a temporary renamed into place with no fsync of the file nor of
its directory (with --fsync-file, the temporary is fsynced before the rename: then only the
names are not durable, which cutfs --strict must catch). Each line on stdin is one mark (a record id) to add to `unsent_reads`. Run in
place of the agent (`agent_powercut.py --naive-writer`), the same checks must report lost marks.

    naive_cursor_writer.py STATE_DIRECTORY [--fsync-file] < ids
"""
import os
import sys


def main():
    directory = sys.argv[1]
    os.makedirs(directory, exist_ok=True)  # the parent is never synced
    path = os.path.join(directory, "notifier-cursor")
    marks = []

    def save():
        with open(path + ".new", "w") as file:
            file.write("# naive writer\ndatabase=naive\nlast_shown=0\n"
                       f"unsent_reads={' '.join(map(str, marks))}\n")
            if "--fsync-file" in sys.argv:
                file.flush()
                os.fsync(file.fileno())
        os.rename(path + ".new", path)  # no fsync of the directory after

    save()
    for line in sys.stdin:
        marks.append(int(line))
        save()


if __name__ == "__main__":
    main()
