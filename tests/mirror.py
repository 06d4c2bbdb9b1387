"""A file server on 127.0.0.1 that serves fixture files in an upstream URL layout."""

import http.server
import threading
from pathlib import Path


class Mirror:
    """Serves ``root`` under ``prefix``; records every request; can corrupt a file."""

    def __init__(self, root, prefix):
        self.root, self.prefix = Path(root), "/" + prefix.strip("/")
        self.requests, self.corrupted = [], set()
        mirror = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_HEAD(self):
                self._serve(body=False)

            def do_GET(self):
                self._serve(body=True)

            def _serve(self, body):
                mirror.requests.append((self.command, self.path))
                data = mirror.content(self.path)
                if data is None:
                    self.send_error(404)
                    return
                self.send_response(200)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                if body:
                    self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}{self.prefix}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def content(self, url_path):
        if not url_path.startswith(self.prefix + "/"):
            return None
        relpath = url_path[len(self.prefix) + 1:].split("?")[0]
        file = self.root / relpath
        if not file.is_file():
            return None
        data = file.read_bytes()
        if relpath in self.corrupted:
            data = data[:-2] + (b"X" if data[-2:-1] != b"X" else b"Y") + data[-1:]
        return data

    def fetched(self):
        return sorted({path[len(self.prefix) + 1:] for command, path in self.requests if command == "GET"})

    def close(self):
        self.server.shutdown()
        self.server.server_close()
