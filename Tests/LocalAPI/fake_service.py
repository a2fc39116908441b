# SPDX-License-Identifier: Apache-2.0
"""The self-test's service: a tiny Varlink server in this process (a thread per connection on a
Unix socket) that serves the local API's interface files and answers every call as they say it
should (parameters decoded strictly, replies of the declared output type), except the planted
faults: so a checker that passes against the daemon is shown able to fail.
"""
import json
import socketserver
import threading

import varlink
from varlink.scanner import _Method

from interface_types import InterfaceTypes

SERVICE = "org.varlink.service"


def error(name, **parameters):
    return {"error": f"{SERVICE}.{name}", "parameters": parameters}


class FakeService(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    """Serves `descriptions` (interface file texts) at `path`. `faults` maps a qualified method
    name to a function of the conformant reply giving the message to send instead."""

    daemon_threads = True

    def __init__(self, path, descriptions, faults):
        self.interfaces = {}
        self.descriptions = {}
        for text in descriptions:
            parsed = varlink.Interface(text)
            self.interfaces[parsed.name] = InterfaceTypes(parsed)
            self.descriptions[parsed.name] = text
        self.faults = faults
        super().__init__(path, _Connection)
        threading.Thread(target=self.serve_forever, daemon=True).start()

    def close(self):
        self.shutdown()
        self.server_close()

    def answer(self, call):
        """The one reply to a call (a stream here is a single reply)."""
        name = call.get("method", "")
        interface, _, member = name.rpartition(".")
        types = self.interfaces.get(interface)
        if types is None:
            return error("InterfaceNotFound", interface=interface)
        method = types.interface.members.get(member)
        if not isinstance(method, _Method):
            return error("MethodNotFound", method=name)
        problems = types.problems(call.get("parameters") or {}, method.in_type)
        if problems:
            return error("InvalidParameter", parameter=problems[0][0])
        reply = self._reply(types, method, call.get("parameters") or {})
        if "error" in reply or name not in self.faults:
            return reply
        return self.faults[name](reply["parameters"])

    def _reply(self, types, method, parameters):
        """What the service's own methods say, from the files served; any other method a value of
        its output type made up from the type alone."""
        if types.name == SERVICE and method.name == "GetInfo":
            return {"parameters": {"vendor": "intrapush", "product": "conformance self-test", "version": "0",
                                   "url": "", "interfaces": sorted(self.interfaces)}}
        if types.name == SERVICE and method.name == "GetInterfaceDescription":
            if parameters["interface"] not in self.descriptions:
                return error("InterfaceNotFound", interface=parameters["interface"])
            return {"parameters": {"description": self.descriptions[parameters["interface"]]}}
        return {"parameters": types.sample(method.out_type)}


class _Connection(socketserver.BaseRequestHandler):
    """Reads NUL-ended calls and writes each one's reply; a oneway call gets none."""

    def handle(self):
        buffer = b""
        while chunk := self.request.recv(65536):
            buffer += chunk
            while b"\0" in buffer:
                message, buffer = buffer.split(b"\0", 1)
                call = json.loads(message)
                if not call.get("oneway"):
                    self.request.sendall(json.dumps(self.server.answer(call)).encode() + b"\0")
