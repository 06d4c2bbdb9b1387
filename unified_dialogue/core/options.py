"""The options a user sets on a config at load time (``load("sgd", "d3st", seed=3)``):
how a config declares them (``Option``), how given values are checked against the
declaration, and how ``NAME=VALUE`` text from a command line becomes a value.

A config's own options are plain keyword arguments of ``load`` and ``load_dataset``; the
builder keeps the ones given in its BuilderConfig (``CorpusConfig.view_options``), so
that they enter the cache fingerprint, and hands them, defaults filled in, to the
function that makes the config's rows. The options every config of a corpus takes (its
BuilderConfig's fields: ``verify``, ``checksums``, ...) are read as ``Option``s too
(``corpus_declarations``), so that their values are checked the same way.
"""

import dataclasses
import os
import typing
from dataclasses import dataclass
from typing import Any, Callable, Optional

from .errors import ConfigError, did_you_mean, with_article

TRUE = ("true", "yes", "1", "on")
FALSE = ("false", "no", "0", "off")
NONE = ("none", "null")


@dataclass(frozen=True)
class Option:
    """One option a user may set. ``type``: ``str``, ``int``, ``float`` or ``bool``; a
    default of None means "unset" and None is then accepted as a value; ``choices``: the
    values allowed, where only some are; ``problem``: a function saying why a value of the
    right type cannot be used (a text), or None where it can."""

    name: str
    type: type
    default: Any
    description: str
    choices: Optional[tuple] = None
    problem: Optional[Callable[[Any], Optional[str]]] = None

    def check(self, value, where):
        """``value`` if this option can take it (an int where a float is asked, as a float);
        else a ConfigError naming the option and ``where`` it was given."""
        if value is None and self.default is None:
            return value
        if self.type is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if not isinstance(value, self.type) or (self.type is int and isinstance(value, bool)):
            raise ConfigError(f"{where}: option {self.name} takes {with_article(self.type.__name__)}, not {value!r}")
        if self.choices is not None and value not in self.choices:
            raise ConfigError(f"{where}: option {self.name} takes one of {', '.join(map(repr, self.choices))}, "
                              f"not {value!r}")
        problem = self.problem(value) if self.problem is not None and value is not None else None
        if problem:
            raise ConfigError(f"{where}: option {self.name}={value!r}: {problem}")
        return value

    def parse(self, text, where="command line"):
        """The value written ``text`` (``true``/``false`` for a bool, ``none`` where the
        default is None), checked."""
        lowered = text.strip().lower()
        if self.default is None and lowered in NONE:
            return None
        if self.type is bool:
            if lowered not in TRUE + FALSE:
                raise ConfigError(f"{where}: option {self.name} takes true or false, not {text!r}")
            return lowered in TRUE
        try:
            value = self.type(text)
        except ValueError:
            raise ConfigError(f"{where}: option {self.name} takes {with_article(self.type.__name__)}, not {text!r}") from None
        return self.check(value, where)

    def __str__(self):
        return f"{self.name} ({self.type.__name__}, default {self.default!r}): {self.description}"


def accepted(declared):
    """The names of ``declared`` options for a message, or "none"."""
    return ", ".join(option.name for option in declared) or "none"


def elsewhere(names, configs):
    """Where the options ``names`` belong, for a message: "; level is an option of d3st"
    for each name that configs of ``configs`` (``core.corpus.Config``s) declare, else ""."""
    hints = []
    for name in names:
        owners = [config.name for config in configs if any(option.name == name for option in config.options)]
        if owners:
            hints.append(f"{name} is an option of {', '.join(owners)}")
    return "".join(f"; {hint}" for hint in hints)


def check_given(given, declared, where, configs=()):
    """``given`` (``{name: value}``) checked against the ``declared`` options: an unknown
    name is a ConfigError naming it, the accepted ones, and the ``configs`` that take it."""
    by_name = {option.name: option for option in declared}
    unknown = sorted(set(given) - set(by_name))
    if unknown:
        raise ConfigError(f"{where} takes no option {', '.join(map(repr, unknown))} "
                          f"(its options: {accepted(declared)}{elsewhere(unknown, configs)})")
    return {name: by_name[name].check(value, where) for name, value in sorted(given.items())}


def resolve(given, declared, where):
    """Every ``declared`` option's value: the ``given`` one (checked), else its default."""
    given = check_given(given or {}, declared, where)
    return {option.name: given.get(option.name, option.default) for option in declared}


def parse_assignments(assignments, declared, where="command line", configs=()):
    """``{name: value}`` from ``NAME=VALUE`` strings (as ``--option`` takes them), each
    value converted to its option's declared type; an unknown name is a ConfigError naming
    the accepted ones and the ``configs`` that take it."""
    by_name = {option.name: option for option in declared}
    values = {}
    for assignment in assignments:
        name, equals, text = assignment.partition("=")
        name = name.strip()
        if not equals or not name:
            raise ConfigError(f"{where}: {assignment!r} is not NAME=VALUE")
        if name not in by_name:
            raise ConfigError(f"{where} takes no option {name!r}{did_you_mean([name], by_name)} "
                              f"(its options: {accepted(declared)}{elsewhere([name], configs)})")
        values[name] = by_name[name].parse(text, where)
    return values


def corpus_declarations(builder):
    """The options every config of a corpus takes (``builder.corpus_options()``: base_url,
    checksums, verify, ...) as ``Option``s, typed as the fields of its config class are
    (``Optional[bool]``: a bool, or None where the default is None), with the values a
    field's ``metadata["choices"]`` allows (SGD's ``variant``)."""
    config_class, names = builder.BUILDER_CONFIG_CLASS, builder.corpus_options()
    types = typing.get_type_hints(config_class)
    return [Option(f.name, bare_type(types[f.name]), f.default, "", choices=f.metadata.get("choices"))
            for f in dataclasses.fields(config_class) if f.name in names]


def bare_type(annotation):
    """``X`` of ``Optional[X]``, or the annotation itself."""
    given = [arg for arg in typing.get_args(annotation) if arg is not type(None)]
    return given[0] if typing.get_origin(annotation) is typing.Union and len(given) == 1 else annotation


def check_present(declared, given, where):
    """Raise ConfigError naming ``where`` for a value of ``given`` one of the ``declared``
    options cannot take (a path may be a ``PathLike``); names no option declares are left."""
    for option in (o for o in declared if o.name in given):
        value = given[option.name]
        option.check(os.fspath(value) if isinstance(value, os.PathLike) else value, where)
