"""The Sengoku Jidai ruleset: the Province Tracker campaign of the rules guide."""
