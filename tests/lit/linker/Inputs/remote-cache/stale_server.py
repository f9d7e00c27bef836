#!/usr/bin/env python3
"""A store that speaks HTTP/1.1 but closes every connection after one answer without saying so (no
`Connection: close`), as a server whose keep-alive time runs out between two requests does: a client that
keeps connections for the next request finds them closed and must open a new one.
`stale_server.py start DIR` serves on a free localhost port in a background process (its pid in DIR/pid,
the request log in DIR/requests.log, at most 10 minutes) and prints its base URL; `stale_server.py stop DIR`
stops it."""
import http.server
import os
import signal
import sys
import threading


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    store = {}

    def log_message(self, *args):
        with open(os.path.join(self.server.dir, "requests.log"), "a") as log:
            log.write("%s %s\n" % (self.command, self.path))

    def answer(self, status, body=b""):
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        self.close_connection = True  # without a Connection: close header

    def do_GET(self):
        body = self.store.get(self.path)
        self.answer(404) if body is None else self.answer(200, body)

    def do_PUT(self):
        self.store[self.path] = self.rfile.read(int(self.headers["Content-Length"]))
        self.answer(201)


def start(d):
    os.makedirs(d, exist_ok=True)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.dir = d
    url = "http://127.0.0.1:%d" % server.server_address[1]
    if os.fork():
        print(url)
        return
    os.setsid()
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    open(os.path.join(d, "pid"), "w").write(str(os.getpid()))
    threading.Timer(600, lambda: os._exit(0)).start()
    server.serve_forever()


def stop(d):
    try:
        os.kill(int(open(os.path.join(d, "pid")).read()), signal.SIGKILL)
    except (OSError, ValueError):
        pass


if __name__ == "__main__":
    {"start": start, "stop": stop}[sys.argv[1]](sys.argv[2])
