"""The `sheets-engine` command group: its options, and each ruleset's own commands found through the registry
(imported only when one is asked for, so a run pays for no ruleset's rules until it plays one)."""

from __future__ import annotations

from importlib import import_module

import click

from sheets_engine import rulesets
from sheets_engine.output import JsonMode

FORMATS = ("--json", "--csv", "--tsv")


class Command(click.Command):
    """A command of the engine: one output format at most (--json, --csv or --tsv), for every command
    that has them, checked here once."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        """The arguments parsed; a UsageError (exit 2) when two output formats are asked for."""
        given = args[: args.index("--")] if "--" in args else args
        asked = [f for f in FORMATS if f in given]
        if len(asked) > 1:
            raise click.UsageError(f"{' and '.join(asked)} together: give one output format", ctx)
        return super().parse_args(ctx, args)


class Commands(click.Group):
    """The engine's commands and each ruleset's own (its registry entry names the module holding each)."""

    command_class = Command

    def list_commands(self, ctx: click.Context) -> list[str]:
        """Every command, the rulesets' included, in order."""
        return sorted({*super().list_commands(ctx), *rulesets.commands()})

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        """A command by name; a ruleset's is imported from its package now."""
        found = super().get_command(ctx, name)
        module = rulesets.commands().get(name)
        if found is None and module is not None:
            command = getattr(import_module(module), name.replace("-", "_"))
            found = command if isinstance(command, click.Command) else None
        return found


@click.group(cls=Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="sheets-engine")
@click.option("--debug", is_flag=True, help="Show the full traceback of an unexpected failure.")
@click.option(
    "--credentials",
    metavar="KEY.json",
    help="Service-account key file for Google Sheets (default: $GOOGLE_APPLICATION_CREDENTIALS).",
)
@click.pass_context
def cli(ctx: click.Context, debug: bool, credentials: str | None) -> None:
    """Resolve turns of a strategy campaign kept in a spreadsheet.

    SOURCE is a campaign workbook (.xlsx) or a Google Sheet (its URL, or gsheet:KEY; the
    Google Sheets set-up guide is docs/google-sheets.md in the sheets-engine repository).

    Exit codes: 0 done, 2 bad input (every problem is listed) or a setup fault to fix (a
    read-only workbook, a full disk), 1 unexpected failure, 3 the spreadsheet changed during
    the run (nothing written), 4 another run is working on the campaign or the workbook is open
    in Excel or LibreOffice (nothing written: run again later). A usage error (an unknown
    option, a missing argument) exits 2 as well, with click's message. With --json, every
    command prints exactly one JSON object on stdout, whatever the exit.

    Example: sheets-engine init camp.xlsx --demo && sheets-engine resolve camp.xlsx
    """
    ctx.obj = {"debug": debug, "credentials": credentials}
    JsonMode.on = False  # set again by the command's --json (parsed after this)
