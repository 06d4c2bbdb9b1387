"""One way in and out of every command (export, publish, cards, bench, demo, the DST scorer):
``run_command`` parses the command line, quiets the progress bars where asked, runs the
command's work, and turns the project's errors into one line on stderr and an exit status.
Library functions raise; only a command's entry ends the process.
"""

from .core.errors import UnifiedDialogueError
from .core.sources import CALLER

# The exit status of a command that stopped on one of the project's errors (argparse's
# status for a bad command line too).
ERROR_STATUS = 2


def quiet_progress():
    """Turn off ``datasets``' progress bars (a command prints its own progress)."""
    import datasets

    datasets.disable_progress_bars()


def run_command(parser, work, argv=None, *, name=None, quiet=True, flag_hints=False):
    """Run one command: ``work(args)`` with the arguments ``parser`` reads from ``argv``
    (default: the process's).

    Args:
        parser: the command's ``argparse.ArgumentParser``.
        work: a function of the parsed arguments doing the command's work.
        argv: the command line, without the program's name.
        name: what an error line starts with (default: ``parser.prog``).
        quiet: turn off ``datasets``' progress bars first.
        flag_hints: hints in errors name the command's own flags (``--data-dir``,
            ``--no-checks``) instead of ``load``'s arguments.

    Returns:
        What ``work`` returns. A ``UnifiedDialogueError`` ends the process instead, with
        ``<name>: <message>`` on stderr and exit status 2 (no traceback).

    Example:
        >>> def main(argv=None):  # doctest: +SKIP
        ...     parser = argparse.ArgumentParser()
        ...     parser.add_argument("corpus")
        ...     run_command(parser, lambda args: export(args.corpus), argv, name="export")
    """
    args = parser.parse_args(argv)
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
