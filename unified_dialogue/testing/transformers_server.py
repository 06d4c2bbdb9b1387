"""``transformers serve`` on 127.0.0.1 for a model in a local folder, offline: a real
OpenAI-compatible server that nobody here wrote, for the evaluation command's tests and
smoke runs (the tool model, ``tool_model``, is the one it serves in them).

The server runs as a child process (``transformers serve FOLDER --host 127.0.0.1 --port
PORT --device cpu``) with ``HF_HUB_OFFLINE=1``: it loads the model from the folder and never
asks the Hub. Its model name, the one requests must give, is the folder's path as given
(the server refuses any other). It is ready when ``GET /v1/models`` answers.

    with TransformersServer("tool-model") as server:
        ...  # --base-url server.base_url --model server.model

Needs transformers' ``serving`` extra (``make env-serve``, requirements/serve.txt).
"""

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

from ..core.errors import ConfigError

# Seconds to wait for the server to answer: importing torch and FastAPI and loading the
# model take a few seconds on an idle machine, much longer on a busy CI one.
READY_WITHIN = 300


def free_port(host="127.0.0.1"):
    """A port nothing listens on now (the server binds it a moment later)."""
    with socket.socket() as probe:
        probe.bind((host, 0))
        return probe.getsockname()[1]


def command_path():
    """The ``transformers`` command of this Python's environment."""
    found = Path(sys.executable).parent / "transformers"
    if not found.exists():
        found = shutil.which("transformers")
    if not found:
        raise ConfigError("transformers serve: no `transformers` command; install requirements/serve.txt "
                          "(make env-serve)")
    return str(found)


class TransformersServer:
    """``transformers serve`` of the model folder ``model`` on ``host``, a context manager.

    Attributes:
        base_url: ``http://<host>:<port>/v1``.
        model: the name requests give (``model`` as given).
        log: the path of the file holding the server's output (read it when a request fails).
    """

    def __init__(self, model, host="127.0.0.1", port=None, ready_within=READY_WITHIN):
        self.model, self.host, self.port, self.ready_within = str(model), host, port, ready_within
        self.base_url, self.process, self.log = None, None, None

    def start(self):
        self.port = self.port or free_port(self.host)
        self.base_url = f"http://{self.host}:{self.port}/v1"
        self.home = tempfile.mkdtemp(prefix="transformers-serve-")
        self.log = os.path.join(self.home, "server.log")
        # Offline, with a Hub cache of its own: a local folder is all it loads. One thread, as
        # the tool model trains (tool_model.train): a tiny model on a busy machine is faster so.
        environment = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_HOME": self.home, "TOKENIZERS_PARALLELISM": "false",
                       "OMP_NUM_THREADS": "1"}
        with open(self.log, "wb") as output:
            self.process = subprocess.Popen(
                [command_path(), "serve", self.model, "--host", self.host, "--port", str(self.port), "--device",
                 "cpu", "--log-level", "warning"], stdout=output, stderr=subprocess.STDOUT, env=environment)
        deadline = time.monotonic() + self.ready_within
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise ConfigError(f"transformers serve stopped (exit status {self.process.returncode}): "
                                  f"{self.tail()}")
            try:
                with urllib.request.urlopen(self.base_url + "/models", timeout=5):
                    return self
            except (urllib.error.URLError, OSError):
                time.sleep(0.5)
        self.stop()
        raise ConfigError(f"transformers serve did not answer within {self.ready_within} s: {self.tail()}")

    def tail(self, characters=2000):
        """The end of the server's output."""
        with open(self.log, encoding="utf-8", errors="replace") as f:
            return f.read()[-characters:]

    def stop(self):
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
        shutil.rmtree(self.home, ignore_errors=True)
