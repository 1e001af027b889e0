"""The `sheets-engine` command: parses, calls the service layer, formats. No rules here.

One module per group of commands (campaign, audit, players, delivery, forms); each ruleset's own
commands come from its package (its registry entry names them). Exit codes: 0 done; 2 bad input
(every problem listed) or a setup fault that lasts (a read-only workbook, a full disk: the message
says what to do); 1 unexpected failure or a passing one (the network, a 5xx); 3 the spreadsheet
changed while the engine worked (nothing written: run again); 4 another run is working on the
campaign, or the workbook is open in Excel or LibreOffice (nothing written: run again later).
"""

from __future__ import annotations

import atexit
import gc
import os
import sys
from typing import Any

import click

from sheets_engine.cli import audit, campaign, delivery, forms, players  # noqa: F401  (each registers its commands)
from sheets_engine.cli.common import EXIT_BAD_INPUT, EXIT_BUSY, EXIT_CONFLICT, EXIT_FAILURE, EXIT_OK, print_problems
from sheets_engine.cli.group import cli
from sheets_engine.output import JsonMode, emit_json, payload, visible

__all__ = ["EXIT_BAD_INPUT", "EXIT_BUSY", "EXIT_CONFLICT", "EXIT_FAILURE", "EXIT_OK", "cli", "main", "visible"]


def _show_warnings() -> None:
    """The library's warnings (a stale lock taken over) as `Warning: ...` lines on stderr."""
    import logging

    class Echo(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            click.echo(f"Warning: {record.getMessage()}", err=True)  # whatever stderr is now

    engine = logging.getLogger("sheets_engine")
    if not any(type(h).__name__ == "Echo" for h in engine.handlers):
        engine.addHandler(Echo(logging.WARNING))
        engine.setLevel(logging.WARNING)


def _fail(code: int, status: str, message: str, problems: list[Any] | None = None) -> None:
    """One error line on stderr (and with --json, one JSON object on stdout), then exit."""
    if JsonMode.on:
        body = payload(status, code, error=message)
        if problems is not None:
            body["problems"] = [p.as_dict() for p in problems]
        emit_json(body)
    elif problems:
        print_problems(problems)
    click.echo(f"Error: {visible(message)}", err=True)
    sys.exit(code)


def main() -> None:
    """Entry point: map failures to exit codes and one clear line (a JSON object with --json)."""
    # A run is one short process that builds its state and keeps it to the end. With the collector's
    # default thresholds (a collection every 700 new objects, 160 of them a 1,000-province turn, 100
    # in pandas' import alone) it spent 0.07-0.1 s of a 0.85 s run walking objects all still alive.
    # Set first, before the imports below; cycles are still collected, every 200,000 new objects (none in
    # a 1,000-province turn, where 100,000 still cost one 0.02 s collection; memory the same at 10,000).
    gc.set_threshold(200_000, 20, 20)
    # At exit the interpreter collects again while it tears the run's state down, walking every object
    # still alive (some 0.055 s of a 1,000-province turn's 0.75 s). Frozen objects are left out of those
    # collections (they are still freed); done at exit, so a caller that runs main() in-process keeps
    # its collector as it was until then.
    atexit.unregister(gc.freeze)  # once, however often main() runs in one process
    atexit.register(gc.freeze)
    # numpy's OpenBLAS starts a thread a core when it loads, and they spin: some 0.05 s of CPU at import
    # and more after each call, for a run that does no linear algebra worth a second thread (0.13 s of a
    # 10,000-province turn's 1.26 s). One thread unless the machine's owner asked for more; read when
    # numpy loads, which is below (not when this module is imported).
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    from sheets_engine.core.names import UnknownName
    from sheets_engine.core.problems import InvalidCampaign
    from sheets_engine.stores.base import StoreError, StoreUnavailable
    from sheets_engine.stores.guard import ConflictError
    from sheets_engine.stores.lock import CampaignBusy
    from sheets_engine.templates import TemplateError

    _show_warnings()
    debug = "--debug" in sys.argv[1:]
    JsonMode.on = False
    try:
        cli.main(standalone_mode=False)
    except click.exceptions.Exit as done:
        sys.exit(done.exit_code)
    except click.Abort:
        _fail(EXIT_FAILURE, "aborted", "Aborted.")
    except click.UsageError as error:  # click's own exit 2, with its usage line
        if JsonMode.on or "--json" in sys.argv[1:]:
            JsonMode.on = True
            emit_json(payload("usage", error.exit_code, error=error.format_message()))
        error.show()
        sys.exit(error.exit_code)
    except click.ClickException as error:
        _fail(error.exit_code, "bad_input", error.format_message())
    except InvalidCampaign as error:
        _fail(EXIT_BAD_INPUT, "invalid", str(error), error.problems)
    except ConflictError as error:
        _fail(EXIT_CONFLICT, "conflict", str(error))
    except CampaignBusy as error:
        _fail(EXIT_BUSY, "busy", str(error))
    except StoreError as error:
        _fail(EXIT_BAD_INPUT, "bad_input", str(error))
    except StoreUnavailable as error:  # Google kept failing within the bounded retries: try later
        _fail(EXIT_FAILURE, "unavailable", str(error))
    except UnknownName as error:  # a name typed on the command line that the campaign does not know
        _fail(EXIT_BAD_INPUT, "bad_input", str(error))
    except TemplateError as error:  # the installed package itself is broken
        _fail(EXIT_FAILURE, "failed", f"{error}: reinstall sheets-engine")
    except Exception as error:  # the last line of defence: one line, no traceback
        if debug:
            raise
        _fail(
            EXIT_FAILURE,
            "failed",
            f"unexpected failure: {type(error).__name__}: {error} (run with --debug for details)",
        )
