"""Test and benchmark support for the Google Sheets store: a local stand-in for the Sheets API,
throwaway service-account keys, scaled-up campaigns, and the cassette scenarios with their recorder.

Nothing here is used by the engine itself; vcrpy (a test dependency) is imported only by the
recorder and the cassette helpers.
"""
