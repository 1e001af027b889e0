"""sheets-engine: turn resolution for play-by-post strategy campaigns kept in a spreadsheet."""

__version__ = "0.1.0"
