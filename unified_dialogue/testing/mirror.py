"""A file server on 127.0.0.1 that serves fixture files in an upstream URL layout, and can
misbehave as real mirrors do: corrupt a file, cut a transfer short, or accept a
connection and never answer."""

import http.server
import socket
import threading
from pathlib import Path


class Mirror:
    """Serves ``root`` under ``prefix``; records every request (``requests``) and its
    headers (``headers``). ``corrupted``: paths whose bytes are changed; ``cut_short``:
    paths whose transfer stops halfway through."""

    def __init__(self, root, prefix):
        self.root, self.prefix = Path(root), "/" + prefix.strip("/")
        self.requests, self.headers, self.corrupted, self.cut_short = [], [], set(), set()
        mirror = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_HEAD(self):
                self._serve(body=False)

            def do_GET(self):
                self._serve(body=True)

            def _serve(self, body):
                mirror.requests.append((self.command, self.path))
                mirror.headers.append(dict(self.headers))
                relpath, data = mirror.content(self.path)
                if data is None:
                    self.send_error(404)
                    return
                self.send_response(200)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                if body:
                    self.wfile.write(data[:len(data) // 2] if relpath in mirror.cut_short else data)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}{self.prefix}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def content(self, url_path):
        if not url_path.startswith(self.prefix + "/"):
            return None, None
        relpath = url_path[len(self.prefix) + 1:].split("?")[0]
        file = self.root / relpath
        if not file.is_file():
            return relpath, None
        data = file.read_bytes()
        if relpath in self.corrupted:
            data = data[:-2] + (b"X" if data[-2:-1] != b"X" else b"Y") + data[-1:]
        return relpath, data

    def fetched(self):
        return sorted({path[len(self.prefix) + 1:] for command, path in self.requests if command == "GET"})

    def close(self):
        self.server.shutdown()
        self.server.server_close()


class SilentServer:
    """A socket on 127.0.0.1 that accepts connections and never answers."""

    def __init__(self):
        self.socket = socket.socket()
        self.socket.bind(("127.0.0.1", 0))
        self.socket.listen(64)
        self.url = f"http://127.0.0.1:{self.socket.getsockname()[1]}/mirror"
        self.accepted = []
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self):
        while True:
            try:
                connection, _ = self.socket.accept()
            except OSError:
                return
            self.accepted.append(connection)  # kept open, never read nor written

    def close(self):
        self.socket.close()
        for connection in self.accepted:
            connection.close()


def closed_url():
    """A URL on 127.0.0.1 where nothing listens: a download there fails at once."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/mirror"
