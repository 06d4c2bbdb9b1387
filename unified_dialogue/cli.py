"""One way in and out of every command (export, publish, cards, bench, demo, the scorers):
``run_command`` parses the command line, quiets the progress bars where asked, runs the
command's work, and turns the project's errors, and argparse's, into one line on stderr and
an exit status. Library functions raise; only a command's entry ends the process.

Also what commands share about files: ``check_output`` (before the work: a file that can be
written and is none of the command's inputs) and ``write_atomically`` (a temporary file in
the same folder, then a rename: an interrupted run leaves the old file whole).
"""

import argparse
import os
import sys
import tempfile

from .core.errors import ConfigError, UnifiedDialogueError, close_match
from .core.sources import CALLER, read_checksum_table

# The exit status of a command that stopped on one of the project's errors (argparse's
# status for a bad command line too).
ERROR_STATUS = 2


def quiet_progress():
    """Turn off ``datasets``' progress bars (a command prints its own progress)."""
    import datasets

    datasets.disable_progress_bars()


def progress(enabled):
    """Show ``datasets``' progress bars (the builds' and the scorers') only where
    ``enabled`` and stderr is a terminal: a log file or a pipe gets no bar."""
    if not enabled or not sys.stderr.isatty():
        quiet_progress()


def one_line_errors(parser):
    """Make argparse's own errors (an unknown flag, a missing value) one line, as the
    project's are, instead of the usage block and the error; an unknown flag names the
    close match among the command's flags."""
    def error(message):
        if message.startswith("unrecognized arguments:"):
            # a hidden flag (an older name) is matched, and its listed flag shown
            shown = {flag: visible(parser, action, flag) for action in parser._actions for flag in action.option_strings
                     if flag.startswith("--")}
            given = [word.partition("=")[0] for word in message.split(":", 1)[1].split() if word.startswith("--")]
            matches = [shown[match] for match in (close_match(flag, shown, cutoff=0.75) for flag in given) if match]
            message += f" (did you mean {', '.join(matches)}?)" if matches else ""
        parser.exit(ERROR_STATUS, f"{parser.prog}: {message} (see --help)\n")

    parser.error = error
    for action in parser._actions:  # subcommands' parsers too
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                one_line_errors(child)
    return parser


def visible(parser, action, flag):
    """The flag ``--help`` lists for ``flag`` of ``action``: itself, or for a hidden one (an
    older name, ``help=SUPPRESS``) the listed flag that sets the same value."""
    if action.help != argparse.SUPPRESS:
        return flag
    listed = [other for other in parser._actions if other.dest == action.dest and other.help != argparse.SUPPRESS]
    return next((flag for other in listed for flag in other.option_strings if flag.startswith("--")),
                action.option_strings[0])


def check_output(path, flag, inputs=()):
    """Raise ConfigError unless the file ``path`` (given with ``flag``) can be written
    before any work is done: not a folder, in a folder that exists and can be written, and
    none of ``inputs`` (paths the command reads; a folder stands for every file in it)."""
    where = f"{flag} {path}"
    if os.path.isdir(path) or path.endswith(("/", os.sep)):  # "newdir/": open() would say IsADirectoryError
        raise ConfigError(f"{where}: a folder; give the path of a file to write")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise ConfigError(f"{where}: the folder {folder} does not exist")
    try:  # a file made there and removed: permissions alone do not say (root, a read-only or special file system)
        tempfile.TemporaryFile(dir=folder).close()
    except OSError as error:
        raise ConfigError(f"{where}: the folder {folder} cannot be written ({error.strerror or error})") from None
    if os.path.exists(path) and not os.access(path, os.W_OK):
        raise ConfigError(f"{where}: the file cannot be written")
    target = os.path.realpath(path)
    for given in filter(None, inputs):
        source = os.path.realpath(given)
        if target == source or (os.path.isdir(source) and target.startswith(source.rstrip(os.sep) + os.sep)
                                and os.path.exists(target)):
            raise ConfigError(f"{where}: that is an input of the command ({given}); it is never overwritten, "
                              f"give another path")
    return path


def write_atomically(path, text):
    """Write ``text`` to ``path`` through a temporary file in the same folder, renamed over
    ``path`` once complete, with the permissions a new file would get."""
    folder = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=f".{os.path.basename(path)}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as f:
            f.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.remove(temporary)
        raise
    return path


def run_command(parser, work, argv=None, *, name=None, quiet=True, flag_hints=False):
    """Run one command: ``work(args)`` with the arguments ``parser`` reads from ``argv``
    (default: the process's).

    Args:
        parser: the command's ``argparse.ArgumentParser``; its own errors become one line.
        work: a function of the parsed arguments doing the command's work.
        argv: the command line, without the program's name.
        name: what an error line starts with (default: ``parser.prog``).
        quiet: turn off ``datasets``' progress bars first.
        flag_hints: hints in errors name the command's own flags (``--data-dir``,
            ``--no-verify``) instead of ``load``'s arguments.

    Returns:
        What ``work`` returns. A ``UnifiedDialogueError`` ends the process instead, with
        ``<name>: <message>`` on stderr and exit status 2 (no traceback).

    Example:
        >>> def main(argv=None):  # doctest: +SKIP
        ...     parser = argparse.ArgumentParser()
        ...     parser.add_argument("corpus")
        ...     run_command(parser, lambda args: export(args.corpus), argv, name="export")
    """
    args = one_line_errors(parser).parse_args(argv)
    if quiet:
        quiet_progress()
    token = CALLER.set("cli") if flag_hints else None
    try:
        return work(args)
    except UnifiedDialogueError as error:
        parser.exit(ERROR_STATUS, f"{name or parser.prog}: {error}\n")
    finally:
        if token is not None:
            CALLER.reset(token)


def add_no_verify_flag(parser):
    """Add ``--no-verify``: the command line's one word for loading a partial or changed copy
    (``load``'s ``verify=False``). ``--no-checks``, its older name, still works, unlisted, so
    that scripts written with it keep running."""
    parser.add_argument("--no-verify", action="store_true",
                        help="do not check the sizes and sha256 of the source files, nor that the copy has all of "
                             "them (a partial or changed copy)")
    parser.add_argument("--no-checks", dest="no_verify", action="store_true", help=argparse.SUPPRESS)
    return parser


def add_copy_flags(parser):
    """Add the flags of a command that loads a corpus from a local copy or a mirror's table:
    ``--data-dir``, ``--checksums``, ``--no-verify`` and ``--cache-dir``; ``copy_options``
    turns them into ``load``'s arguments."""
    parser.add_argument("--data-dir", help="a local copy of the corpus (default: the pinned download)")
    parser.add_argument("--checksums", help="the checksum table of the local copy or mirror")
    add_no_verify_flag(parser)
    parser.add_argument("--cache-dir", help="the datasets cache to build the rows in")
    return parser


def copy_options(args):
    """``load``'s arguments from the flags of ``add_copy_flags``, after checking that
    ``--data-dir`` is a folder, ``--checksums`` a file and ``--cache-dir`` no file."""
    if args.data_dir and not os.path.isdir(args.data_dir):
        raise ConfigError(f"--data-dir {args.data_dir}: no such folder")
    if args.cache_dir and os.path.exists(args.cache_dir) and not os.path.isdir(args.cache_dir):
        raise ConfigError(f"--cache-dir {args.cache_dir}: a file, not a folder; give a folder to build the rows in")
    if args.checksums:
        read_checksum_table(args.checksums)  # before anything loads: a checksum table
    options = {name: getattr(args, name) for name in ("data_dir", "checksums", "cache_dir") if getattr(args, name)}
    return {**options, "verify": False} if args.no_verify else options
