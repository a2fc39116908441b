#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The local API through PyPI's varlink client, a client nobody here wrote (it reads the
interfaces from the daemon's own GetInterfaceDescription): prints what the caller sees, a line
a fact, for the system test to check.

Usage: varlink_pypi_probe.py SOCKET OTHERS_ID
"""
import json
import sys

import varlink

socket_path, others_id = sys.argv[1], int(sys.argv[2])
with varlink.Client(address="unix:" + socket_path) as client:
    with client.open("io.intrapush.Notifications") as notifications:
        listed = notifications.List({"grep": "gate"}, 100, None)
        for notification in listed["notifications"]:
            print("title", notification["title"])
        try:
            notifications.Show(others_id)
            print("show shown")
        except varlink.VarlinkError as error:
            print("show", error.error())
        print("missing", json.dumps(notifications.MarkRead([others_id], None)["missing"]))
    with client.open("io.intrapush.Daemon") as daemon:
        print("reads_all", json.dumps(daemon.WhoAmI()["reads_all"]))
