"""Runs moto's S3 server on loopback, with every request handled under one lock.

moto checks `If-None-Match: *` and then stores the object in two steps without a lock, so with its
threaded server two racing conditional puts can both succeed. Real S3 decides them atomically;
serialising the requests gives moto the same property.
"""
import argparse
import signal
import sys
import threading

from werkzeug.serving import run_simple
from moto.moto_server.werkzeug_app import (
    DomainDispatcherApplication,
    MotoRequestHandler,
    create_backend_app,
)


class Serialized:
    """WSGI middleware: one request at a time, the response body read inside the lock."""

    def __init__(self, app):
        self.app = app
        self.lock = threading.Lock()

    def __call__(self, environ, start_response):
        with self.lock:
            captured = []

            def capture(status, headers, exc_info=None):
                captured[:] = [status, headers, exc_info]
                return lambda data: None

            body = self.app(environ, capture)
            try:
                chunks = [bytes(c) for c in body]
            finally:
                if hasattr(body, "close"):
                    body.close()
        start_response(*captured)
        return chunks


def main():
    p = argparse.ArgumentParser()
    p.add_argument("-H", "--host", default="127.0.0.1")
    p.add_argument("-p", "--port", type=int, required=True)
    p.add_argument("--unserialized", action="store_true",
                   help="moto as shipped: requests run concurrently")
    p.add_argument("--switch-interval", type=float, default=None,
                   help="sys.setswitchinterval, to widen races in experiments")
    args = p.parse_args()
    if args.switch_interval:
        sys.setswitchinterval(args.switch_interval)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    app = DomainDispatcherApplication(create_backend_app)
    run_simple(args.host, args.port, app if args.unserialized else Serialized(app),
               threaded=True, request_handler=MotoRequestHandler)


if __name__ == "__main__":
    main()
