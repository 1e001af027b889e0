"""The Clan War campaign ruleset: koku, purchases, three movement phases, the GM's battle results, recovery."""
