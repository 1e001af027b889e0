"""`python -m sheets_engine` runs the CLI."""

from sheets_engine.cli import main

main()
