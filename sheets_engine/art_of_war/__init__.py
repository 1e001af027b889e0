"""The Art of War: a hex game for two to six houses moving in turn, some played by people, the rest by bots."""
