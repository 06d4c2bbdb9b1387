"""A stand-in OpenAI-compatible chat server on 127.0.0.1, for examples, smoke runs and tests:
it answers each conversation with what a function of the request says (``answers``: a
chat config's predictions, or its gold completions), in OpenAI's shapes, so that any
client (the ``openai`` package, lm-eval's ``local-chat-completions`` and
``local-completions``) runs end to end without a model.

Endpoints, under ``base_url`` (``http://127.0.0.1:<port>/v1``): ``POST /chat/completions``
(``messages``, ``tools``; ``stream`` as server-sent events, ``n`` choices, ``stop``
sequences applied to the text), ``POST /completions`` (a ``prompt`` text or a list of
them) and ``GET /models``. Tool calls are answered as OpenAI writes them (``{"id",
"type": "function", "function": {"name", "arguments": "<JSON text>"}}``, ``finish_reason``
``"tool_calls"``), or, with ``calls_as_text``, written into the ``content`` as a model's
chat template writes them and a server that does not parse them returns them (``hermes``:
``<tool_call>{...}</tool_call>``, ``json``: the bare object, ``llama``: after
``<|python_tag|>``, ``mistral``: after ``[TOOL_CALLS]``).
``usage`` counts white-space separated words, not a tokenizer's tokens.
A request no answer fits is an HTTP 400 whose ``error.message`` says why; an answerer that
raises ``Status`` gets its status and headers (a 429 with ``Retry-After``, a 503).

    python -m unified_dialogue.testing.server --corpus sgd --config agent-call-chat --split validation \\
        [--variant v3] [--data-dir DIR] [--checksums TSV] [--no-verify] [--predictions FILE] [--port N] \\
        [--calls-as-text hermes|json|llama|mistral]
    python -m unified_dialogue.testing.server --agent careful [--port N] [--calls-as-text ...]

prints its base URL on one line and serves until interrupted. ``--agent`` serves a probe agent
of ``unified_dialogue.environment.probes`` instead of a config's rows: it answers any
conversation of the environment itself, from its messages and tools.
"""

import argparse
import http.server
import json
import os
import sys
import threading
import time
import uuid

from ..api import load
from ..cli import add_copy_flags, copy_options, run_command
from ..core.errors import ConfigError
from ..scoring.rows import read_predictions
from .answers import NoAnswer, UnknownIds, check_config, content_text, from_predictions, gold

__all__ = ["StandInServer", "Status", "from_predictions", "gold", "NoAnswer", "main"]


class Status(Exception):
    """Raised by an answerer: the request is answered with HTTP ``status``, ``message`` as
    its error and ``headers`` (such as ``{"Retry-After": "1"}``): a rate limit, an
    overloaded server."""

    def __init__(self, status, message="", headers=None):
        super().__init__(message)
        self.status, self.headers = status, dict(headers or {})

PROG = "python -m unified_dialogue.testing.server"
MODEL = "stand-in"
CALL_SHAPES = ("hermes", "json", "llama", "mistral")


def words(text):
    return len((text or "").split())


def stopped(text, stop):
    """``text`` cut before the first of the ``stop`` sequences it holds (a string or a
    list), as OpenAI's servers cut it; and whether one was found."""
    cuts = [text.find(s) for s in ([stop] if isinstance(stop, str) else stop or []) if s and s in text]
    return (text[:min(cuts)], True) if cuts else (text, False)


def tool_call(call, position):
    """One tool call in OpenAI's shape, its arguments as JSON text."""
    function = call["function"]
    arguments = function.get("arguments")
    if not isinstance(arguments, str):
        arguments = json.dumps(arguments if arguments is not None else {}, ensure_ascii=False)
    return {"id": call.get("id") or f"call_{position}_{uuid.uuid4().hex[:12]}", "type": "function",
            "function": {"name": function["name"], "arguments": arguments}}


def call_text(calls, shape):
    """Tool calls (OpenAI's shape) written as text in one of ``CALL_SHAPES``."""
    objects = [{"name": call["function"]["name"], "arguments": json.loads(call["function"]["arguments"])}
               for call in calls]
    if shape == "hermes":
        return "\n".join(f"<tool_call>\n{json.dumps(o, ensure_ascii=False)}\n</tool_call>" for o in objects)
    if shape == "llama":
        return "<|python_tag|>" + "; ".join(json.dumps({"name": o["name"], "parameters": o["arguments"]},
                                                       ensure_ascii=False) for o in objects)
    if shape == "mistral":
        return "[TOOL_CALLS]" + json.dumps(objects, ensure_ascii=False)
    return json.dumps(objects[0] if len(objects) == 1 else objects, ensure_ascii=False)


def assistant_message(answer, stop, calls_as_text=None):
    """The answerer's message in OpenAI's shape, and its ``finish_reason``; with
    ``calls_as_text`` (one of ``CALL_SHAPES``), its calls written into the content."""
    calls = [tool_call(call, position) for position, call in enumerate(answer.get("tool_calls") or [])]
    content = answer.get("content")
    if calls and calls_as_text:
        content, calls = call_text(calls, calls_as_text), []
    if content is not None:
        content, _ = stopped(content, stop)
    message = {"role": "assistant", "content": content if content or not calls else None}
    if calls:
        message["tool_calls"] = calls
    return message, "tool_calls" if calls else "stop"


def usage(prompt_words, message, choices=1):
    completion = choices * (words(message.get("content")) + sum(
        words(call["function"]["name"]) + words(call["function"]["arguments"]) for call in message.get("tool_calls", ())))
    return {"prompt_tokens": prompt_words, "completion_tokens": completion, "total_tokens": prompt_words + completion}


def chat_completion(request, answer, calls_as_text=None):
    """The ``chat.completion`` object answering ``request`` with the answerer's message."""
    message, finish = assistant_message(answer, request.get("stop"), calls_as_text)
    prompt_words = sum(words(content_text(m.get("content"))) for m in request["messages"] if isinstance(m, dict))
    choices = [{"index": i, "message": message, "logprobs": None, "finish_reason": finish}
               for i in range(max(1, int(request.get("n") or 1)))]
    return {"id": f"chatcmpl-{uuid.uuid4().hex}", "object": "chat.completion", "created": int(time.time()),
            "model": request.get("model") or MODEL, "choices": choices,
            "usage": usage(prompt_words, message, len(choices))}


def chunks(completion, include_usage):
    """The ``chat.completion.chunk`` objects of a streamed answer: the message in one delta
    per choice, then its finish reason (then the usage, where asked)."""
    head = {key: completion[key] for key in ("id", "created", "model")}
    head["object"] = "chat.completion.chunk"
    for choice in completion["choices"]:
        delta = dict(choice["message"])
        if "tool_calls" in delta:
            delta["tool_calls"] = [dict(call, index=i) for i, call in enumerate(delta["tool_calls"])]
        yield {**head, "choices": [{"index": choice["index"], "delta": delta, "finish_reason": None}]}
        yield {**head, "choices": [{"index": choice["index"], "delta": {}, "finish_reason": choice["finish_reason"]}]}
    if include_usage:
        yield {**head, "choices": [], "usage": completion["usage"]}


def text_completion(request, answer_of):
    """The ``text_completion`` object answering each prompt of ``request``."""
    prompts = request["prompt"] if isinstance(request.get("prompt"), list) else [request.get("prompt")]
    choices, total = [], {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}
    for position, prompt in enumerate(prompts):
        answer = answer_of({**request, "prompt": prompt})
        text, _ = stopped(answer.get("content") or "", request.get("stop"))
        choices.append({"index": position, "text": text, "logprobs": None, "finish_reason": "stop"})
        for key, value in usage(words(prompt if isinstance(prompt, str) else ""), {"content": text}).items():
            total[key] += value
    return {"id": f"cmpl-{uuid.uuid4().hex}", "object": "text_completion", "created": int(time.time()),
            "model": request.get("model") or MODEL, "choices": choices, "usage": total}


class Listener(http.server.ThreadingHTTPServer):
    # socketserver's default backlog of 5 resets connections that many concurrent clients
    # (lm-eval's num_concurrent, a thread pool) open at once.
    request_queue_size = 128

    def handle_error(self, request, client_address):
        if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):  # a client that gave up
            super().handle_error(request, client_address)


class StandInServer:
    """An OpenAI-compatible server on ``host`` (127.0.0.1) answering with ``answer``.

    Args:
        answer: ``answer(request) -> message``: the parsed request body to the assistant
            message (``{"role": "assistant", "content": str | None, "tool_calls": [...]}``,
            each call's ``arguments`` a dict or JSON text); ``from_predictions`` and
            ``gold`` make one from a chat config's rows. Raising ``NoAnswer`` (or
            ``ValueError``) makes the request an HTTP 400 with its message. Called from
            one thread per connection: it must be safe to call concurrently.
        host: the address to listen on.
        port: the port; 0 takes a free one.
        calls_as_text: None, or one of ``CALL_SHAPES``: tool calls written into the
            content, as a server that does not parse a model's calls returns them.

    Attributes:
        base_url: ``http://<host>:<port>/v1``, once started.
        requests: the parsed bodies of the POST requests received, in order.

    Example:
        >>> with StandInServer(lambda request: {"role": "assistant", "content": "Hi."}) as server:  # doctest: +SKIP
        ...     openai.OpenAI(base_url=server.base_url, api_key="none").chat.completions.create(...)
    """

    def __init__(self, answer, host="127.0.0.1", port=0, calls_as_text=None):
        if calls_as_text not in (None, *CALL_SHAPES):
            raise ValueError(f"calls_as_text={calls_as_text!r}: one of {', '.join(CALL_SHAPES)}, or None")
        self.answer, self.host, self.port, self.calls_as_text = answer, host, port, calls_as_text
        self.requests, self.base_url = [], None
        self._lock, self._httpd, self._thread = threading.Lock(), None, None

    def start(self):
        """Listen and serve in a background thread; returns the server."""
        if self._httpd is None:
            self._httpd = Listener((self.host, self.port), handler(self))
            self.port = self._httpd.server_address[1]
            self.base_url = f"http://{self.host}:{self.port}/v1"
            self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
            self._thread.start()
        return self

    def stop(self):
        """Stop serving and close the socket (nothing if not started)."""
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._thread.join()
            self._httpd = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    def record(self, body):
        with self._lock:
            self.requests.append(body)


def handler(server):
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            if self.path.rstrip("/") == "/v1/models":
                self.send_json(200, {"object": "list", "data": [
                    {"id": MODEL, "object": "model", "created": 0, "owned_by": "unified-dialogue"}]})
            else:
                self.send_error_json(404, f"no endpoint GET {self.path}")

        def do_POST(self):
            path = self.path.split("?")[0].rstrip("/")
            if path not in ("/v1/chat/completions", "/v1/completions"):
                self.send_error_json(404, f"no endpoint POST {self.path} (the stand-in server has "
                                          f"/v1/chat/completions, /v1/completions, /v1/models)")
                return
            try:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"null")
            except ValueError as error:
                self.send_error_json(400, f"the request body is not JSON: {error}")
                return
            if not isinstance(body, dict):
                self.send_error_json(400, "the request body must be a JSON object")
                return
            server.record(body)
            try:
                if path == "/v1/completions":
                    self.send_json(200, text_completion(body, server.answer))
                    return
                if not isinstance(body.get("messages"), list):
                    raise NoAnswer("a chat completion request needs 'messages', a list")
                completion = chat_completion(body, server.answer(body), server.calls_as_text)
            except Status as error:
                self.send_error_json(error.status, str(error), headers=error.headers)
                return
            except ValueError as error:  # NoAnswer among them: the client's request
                self.send_error_json(400, str(error))
                return
            except Exception as error:  # an answerer's bug: said, and the server goes on
                self.send_error_json(500, f"{type(error).__name__}: {error}", kind="server_error")
                return
            if body.get("stream"):
                self.send_stream(completion, bool((body.get("stream_options") or {}).get("include_usage")))
            else:
                self.send_json(200, completion)

        def send_json(self, status, value, headers=None):
            data = json.dumps(value, ensure_ascii=False).encode()
            self.send_response(status)
            for name, header in (headers or {}).items():
                self.send_header(name, header)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def send_error_json(self, status, message, kind="invalid_request_error", headers=None):
            self.send_json(status, {"error": {"message": message, "type": kind, "param": None, "code": None}},
                           headers)

        def send_stream(self, completion, include_usage):
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.end_headers()  # HTTP/1.0: the stream ends when the connection closes
            for chunk in chunks(completion, include_usage):
                self.wfile.write(f"data: {json.dumps(chunk, ensure_ascii=False)}\n\n".encode())
            self.wfile.write(b"data: [DONE]\n\n")

        def log_message(self, *args):
            pass

    return Handler


# ---------------------------------------------------------------- the command

def parser():
    p = argparse.ArgumentParser(prog=PROG, allow_abbrev=False,
                                description="Serve a chat config's predictions (or its gold completions) as an "
                                            "OpenAI-compatible chat server on 127.0.0.1.")
    p.add_argument("--corpus", help="the corpus (sgd, ccpe, faithdial, ...)")
    p.add_argument("--config", help="a chat config (dst-chat, agent-call-chat, ...) or d3st")
    p.add_argument("--split", help="the split whose rows are served")
    p.add_argument("--agent", help="serve a probe agent of the environment (careful, dump, ...; "
                                   "unified_dialogue.environment.probes) instead of a config's rows")
    p.add_argument("--variant", help="the corpus's variant (SGD-X: v1 ... v5)")
    add_copy_flags(p)
    p.add_argument("--predictions", help="a predictions file ({\"id\", \"text\"} lines) to answer with "
                                         "(default: each row's gold completion)")
    p.add_argument("--port", type=int, default=0, help="the port (default: a free one)")
    p.add_argument("--calls-as-text", choices=CALL_SHAPES,
                   help="write tool calls into the answer's content in this shape, as a server that does not parse "
                        "a model's calls returns them (default: as tool_calls)")
    return p


def serve(args):
    """Load the rows, check the predictions against them, print the base URL, serve."""
    if args.predictions is not None and not os.path.isfile(args.predictions):
        raise ConfigError(f"--predictions {args.predictions}: no such file")
    if not 0 <= args.port < 65536:
        raise ConfigError(f"--port {args.port}: a port is 0 (any free one) to 65535")
    answer = probe_answer(args) if args.agent is not None else rows_answer(args)
    server = StandInServer(answer, port=args.port, calls_as_text=args.calls_as_text)
    try:
        server.start()
    except OSError as error:
        raise ConfigError(f"--port {args.port}: cannot listen on 127.0.0.1:{args.port}: {error.strerror}") from None
    print(server.base_url, flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()


def probe_answer(args):
    """The answer function of ``--agent``: a probe's, with no row flag beside it."""
    from ..environment.probes import PROBES, answerer

    given = [flag for flag in ("corpus", "config", "split", "variant", "predictions", "data_dir", "checksums")
             if getattr(args, flag) is not None]
    if given:
        raise ConfigError(f"--{given[0].replace('_', '-')}: --agent {args.agent} serves a probe agent, no rows; "
                          f"leave it out")
    if args.agent not in PROBES:
        raise ConfigError(f"--agent {args.agent}: no such probe agent; the probes are {', '.join(PROBES)}")
    return answerer(args.agent)


def rows_answer(args):
    """The answer function of a config's rows (``--corpus``, ``--config``, ``--split``)."""
    missing = [flag for flag in ("corpus", "config", "split") if getattr(args, flag) is None]
    if missing:
        raise ConfigError(f"--{missing[0]}: give --corpus, --config and --split (or --agent NAME for a probe agent)")
    check_config(args.corpus, args.config)
    predictions = read_predictions(args.predictions) if args.predictions else None
    options = copy_options(args)
    rows = load(args.corpus, args.config, split=args.split, **options,
                **({"variant": args.variant} if args.variant else {}))
    try:
        answer = from_predictions(rows, predictions)
    except UnknownIds as error:
        raise ConfigError(f"--predictions {args.predictions}: {error}") from None
    if predictions is not None and len(predictions) < len(rows):
        print(f"warning: {args.predictions} answers {len(predictions)} of the {len(rows)} rows; a request for "
              f"another row is answered with an error (HTTP 400)", file=sys.stderr)
    for ids in answer.ambiguous():
        print(f"warning: rows {', '.join(ids)} have one prompt and different answers: they are answered in turn, "
              f"in row order", file=sys.stderr)
    return answer


def main(argv=None):
    run_command(parser(), serve, argv, name=PROG, flag_hints=True)


if __name__ == "__main__":
    main()
