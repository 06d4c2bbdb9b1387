"""An OpenAI-compatible chat endpoint as the evaluation command asks it: one POST of
``/chat/completions`` per answer, its errors said in one line naming the command's flags.

A request the server may answer later is tried again: an HTTP 429 (rate limited), any 5xx
or no answer within the timeout, up to ``RETRIES`` more times, waiting ``BACKOFF`` seconds
before the first retry and twice as long before each next one (at most ``MAX_WAIT``), or
what the server's ``Retry-After`` header says (in seconds or as an HTTP date, at most
``MAX_WAIT``). A request still failing after that raises an ``EndpointError`` whose
``transient`` is true (the evaluation leaves its episode to a rerun); any other 4xx is not
tried again.
"""

import email.utils
import json
import socket
import time
import urllib.error
import urllib.request
from typing import NamedTuple

from ..core.errors import ConfigError

RETRIES = 5
BACKOFF = 1.0
MAX_WAIT = 60.0


class Flags(NamedTuple):
    """The command's flags an endpoint's messages name: its URL's, its model's, its key's,
    its timeout's."""

    url: str = "--base-url"
    model: str = "--model"
    key: str = "--api-key-env"
    timeout: str = "--timeout"


AGENT, USER = Flags(), Flags("--user-base-url", "--user-model", "--user-api-key-env")
# What an HTTP status most likely means, after the endpoint's own message.
HINTS = {
    401: "; give the endpoint's key in the environment variable named by {key}",
    403: "; give the endpoint's key in the environment variable named by {key}",
    404: "; give the base URL under which /chat/completions lies (often ending in /v1) and a {model} it serves",
}


class Stopped(Exception):
    """The run stopped (an interruption, or another episode's error) before this episode ended."""


class EndpointError(ConfigError):
    """An endpoint (of ``flags``) that gave no answer (``status`` None) or answered the HTTP
    error ``status``; ``proven``: it had answered a request of the run before (so the error
    is one request's, such as a conversation longer than the model's context);
    ``transient``: a 429, a 5xx or no answer in time, still so after ``RETRIES`` retries."""

    def __init__(self, message, status=None, proven=False, flags=AGENT, transient=False):
        super().__init__(message)
        self.status, self.proven, self.flags, self.transient = status, proven, flags, transient

    def of_one_request(self):
        """Whether the error ends only the episode that made the request: an HTTP 4xx but
        429 of an endpoint that has answered before. Anything else stops the run or leaves
        the episode to a rerun (``transient``)."""
        return self.proven and not self.transient and self.status is not None and 400 <= self.status < 500 \
            and self.status != 429


def retried(status):
    """Whether an answer of HTTP ``status`` (None: no answer in time) is tried again."""
    return status is None or status == 429 or status >= 500


def wait_of(retry_after, attempt, now=None):
    """The seconds to wait before retry ``attempt`` (0 the first): the ``Retry-After``
    header's (seconds, or an HTTP date) where it gives one, else ``BACKOFF * 2**attempt``;
    at most ``MAX_WAIT``, at least 0."""
    wait = BACKOFF * 2 ** attempt
    if retry_after:
        try:
            wait = float(retry_after)
        except ValueError:
            date = email.utils.parsedate_to_datetime(retry_after) if email.utils.parsedate(retry_after) else None
            if date is not None:
                wait = date.timestamp() - (time.time() if now is None else now)
    return min(max(wait, 0.0), MAX_WAIT)


def timed_out(error):
    reason = getattr(error, "reason", error)
    return isinstance(reason, (socket.timeout, TimeoutError))


def html(text, content_type):
    return "html" in (content_type or "").lower() or text.lstrip()[:15].lower().startswith(("<!doctype", "<html"))


class Endpoint:
    """An OpenAI-compatible chat endpoint: ``base_url`` (ending in ``/v1`` or wherever
    ``/chat/completions`` lies), ``model``, ``api_key`` (or None), ``temperature``,
    ``timeout`` in seconds, ``seed`` (sent with each request where given), ``flags``: the
    command's flags its messages name (``AGENT``, or ``USER`` for a simulated user's),
    ``max_tokens`` (sent with each request where given). ``server``: who serves it, as its
    ``/models`` list says (``owned_by``: ``vllm``, ``sglang``, ``llamacpp``, ...), once
    ``reachable`` has asked."""

    def __init__(self, base_url, model, api_key=None, temperature=0.0, timeout=120.0, seed=None, flags=AGENT,
                 max_tokens=None):
        self.base_url = base_url.rstrip("/")
        self.url = self.base_url + "/chat/completions"
        self.model, self.api_key, self.temperature, self.timeout = model, api_key, temperature, timeout
        self.seed, self.flags, self.max_tokens = seed, flags, max_tokens
        self.answered, self.server = False, None

    def open(self, url, body=None):
        """The response to a POST of ``body`` (a GET without one) to ``url``."""
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        data = None if body is None else json.dumps(body, ensure_ascii=False).encode("utf-8")
        return urllib.request.urlopen(urllib.request.Request(url, data, headers), timeout=self.timeout)

    def failed(self, error, retries=0):
        """The EndpointError of an ``urllib`` error (after ``retries`` retries)."""
        where = f"{self.flags.url} {self.base_url}"
        after = f" (after {retries} retries)" if retries else ""
        if isinstance(error, urllib.error.HTTPError):
            text = error.read().decode("utf-8", "replace")
            if html(text, error.headers.get("Content-Type") if error.headers else None):
                return EndpointError(f"{where}: the server answered {error.code}{after} with an HTML page, not an "
                                     f"OpenAI-compatible endpoint's error; give the base URL of its API (often ending "
                                     f"in /v1)", error.code, self.answered, self.flags, retries > 0)
            hint = HINTS.get(error.code, "").format(key=self.flags.key, model=self.flags.model)
            return EndpointError(f"{where} ({self.flags.model} {self.model}): the endpoint answered {error.code}"
                                 f"{after}: {text[:300]}{hint}", error.code, self.answered, self.flags, retries > 0)
        if timed_out(error):
            return EndpointError(f"{where}: the server answered nothing within {self.flags.timeout} {self.timeout:g} "
                                 f"s{after}; is it still loading the model? raise {self.flags.timeout}, or check the "
                                 f"URL", flags=self.flags, proven=self.answered, transient=retries > 0)
        reason = getattr(error, "reason", error)
        return EndpointError(f"{where}: no answer ({reason}); start the server or fix the URL", flags=self.flags)

    def reachable(self):
        """Raise EndpointError unless the endpoint answers at all, with the key it is given:
        a GET of ``<base_url>/models``, before any long work (any other answer will do: a
        server need not list its models); read ``server`` from its list."""
        try:
            with self.open(self.base_url + "/models") as response:
                listed = json.loads(response.read().decode("utf-8"))
            self.server = str(listed["data"][0].get("owned_by") or "").lower() or None
        except urllib.error.HTTPError as error:
            if error.code in (401, 403):
                raise self.failed(error) from None
        except (urllib.error.URLError, OSError) as error:
            raise self.failed(error) from None
        except (ValueError, KeyError, IndexError, TypeError, AttributeError):
            pass  # no list of models: the chat requests will tell

    def body(self, messages, tools, seed=None):
        seed = self.seed if seed is None else seed
        return {"model": self.model, "messages": messages, "temperature": self.temperature,
                **({"tools": tools} if tools else {}), **({"seed": seed} if seed is not None else {}),
                **({"max_tokens": self.max_tokens} if self.max_tokens is not None else {})}

    def answer(self, messages, tools, seed=None, stop=None):
        """The assistant message the endpoint answers ``messages`` with (``tools``: None or
        empty for none; ``seed``: this request's, else the endpoint's), trying again as the
        module's docstring says; ``stop``: a ``threading.Event`` ending the waits between
        tries (``Stopped``)."""
        body = self.body(messages, tools, seed)
        for attempt in range(RETRIES + 1):
            try:
                with self.open(self.url, body) as response:
                    status, kind = response.status, response.headers.get("Content-Type")
                    text = response.read().decode("utf-8", "replace")
                break
            except urllib.error.HTTPError as error:
                if not retried(error.code) or attempt == RETRIES:
                    raise self.failed(error, attempt) from None
                wait = wait_of(error.headers.get("Retry-After") if error.headers else None, attempt)
            except (urllib.error.URLError, OSError) as error:
                if not timed_out(error) or attempt == RETRIES:
                    raise self.failed(error, attempt) from None
                wait = wait_of(None, attempt)
            if stop is None:
                time.sleep(wait)
            elif stop.wait(wait):
                raise Stopped()
        try:
            reply = json.loads(text)
        except ValueError:
            page = "an HTML page" if html(text, kind) else "not JSON"
            raise EndpointError(f"{self.flags.url} {self.url}: the answer (HTTP {status}) is {page}, not an "
                                f"OpenAI-compatible endpoint's; give the base URL of its API (often ending in /v1)",
                                flags=self.flags) from None
        try:
            message = reply["choices"][0]["message"]
        except (KeyError, IndexError, TypeError):
            raise EndpointError(f"{self.flags.url} {self.url}: the answer has no choices[0].message",
                                flags=self.flags) from None
        self.answered = True
        return message
