"""What a clan may know: the provinces it sees, and the audiences of the Notifications addressed to it.

A clan sees the provinces it controls and those next to them, and every province where one of its
armies or living characters stands; it sees the armies in those provinces. Who controls which
province, battles' sides and public notifications are known to all (the guide's public channels);
treasuries, orders, letters, secret declarations and private notifications belong to their clan.
"""

from __future__ import annotations

from sheets_engine.core.cells import split_names
from sheets_engine.core.tables import GameState
from sheets_engine.sengoku.schema import ArmyStatus, CharacterStatus


def controller(state: GameState) -> dict[str, str]:
    """Each province's controlling clan (Controlled By, else Province Owner; "" for none)."""
    provinces = state.frame("Provinces")
    return {str(p): str(provinces.at[p, "Controlled By"] or provinces.at[p, "Province Owner"]) for p in provinces.index}


def visible_provinces(state: GameState, clan: str) -> set[str]:
    """The provinces the clan sees: controlled, next to one controlled, or where its armies or characters stand."""
    provinces = state.frame("Provinces")
    held = {p for p, c in controller(state).items() if c == clan}
    seen = set(held)
    for province in held:
        seen.update(n for n in split_names(str(provinces.at[province, "Adjacent"])) if n in provinces.index)
    armies = state.frame("Armies")
    seen.update(
        str(p)
        for p in armies.loc[(armies["Clan"] == clan) & (armies["Status"] != ArmyStatus.DESTROYED.value), "Province"]
    )
    characters = state.frame("Characters")
    alive = (characters["Clan"] == clan) & (characters["Status"] == CharacterStatus.ALIVE.value)
    seen.update(str(p) for p in characters.loc[alive, "Location"])
    return {p for p in seen if p}


def visible_armies(state: GameState, clan: str) -> list[str]:
    """The armies the clan sees (its own, and every army standing in a province it sees), in Armies row order."""
    armies = state.frame("Armies")
    seen = visible_provinces(state, clan)
    standing = armies["Status"] != ArmyStatus.DESTROYED.value
    return [
        str(a)
        for a in armies.index
        if standing[a] and (armies.at[a, "Clan"] == clan or armies.at[a, "Province"] in seen)
    ]


def audiences(state: GameState, clan: str) -> set[str]:
    """The Notifications audiences a clan's report shows: public, the clan, its characters (living or not)."""
    characters = state.frame("Characters")
    names = {str(c) for c in characters.index[characters["Clan"] == clan]}
    return {"public", f"clan:{clan}"} | {f"character:{n}" for n in names}


class Sight:
    """What every clan sees, computed once for a whole run (a report of 800 clans asks it 800 times):
    the same answers as `visible_provinces` and `visible_armies`, from one pass over the tabs."""

    def __init__(self, state: GameState) -> None:
        provinces, armies, characters = state.frame("Provinces"), state.frame("Armies"), state.frame("Characters")
        names = set(map(str, provinces.index))
        self.held = controller(state)
        self.owned: dict[str, list[str]] = {}  # clan -> provinces it controls or owns, in row order
        seen: dict[str, set[str]] = {}
        for province, adjacent, owner in zip(
            map(str, provinces.index), provinces["Adjacent"], provinces["Province Owner"], strict=True
        ):
            clan = self.held[province]
            if clan:
                seen.setdefault(clan, set()).add(province)
                seen[clan].update(n for n in split_names(str(adjacent)) if n in names)
            for who in dict.fromkeys((clan, str(owner or ""))):
                if who:
                    self.owned.setdefault(who, []).append(province)
        standing = [
            (str(a), str(c), str(p))
            for a, c, p, s in zip(armies.index, armies["Clan"], armies["Province"], armies["Status"], strict=True)
            if s != ArmyStatus.DESTROYED.value
        ]
        for _, clan, province in standing:
            if province:
                seen.setdefault(clan, set()).add(province)
        for clan, where, status in zip(characters["Clan"], characters["Location"], characters["Status"], strict=True):
            if status == CharacterStatus.ALIVE.value and where:
                seen.setdefault(str(clan), set()).add(str(where))
        self.seen = seen
        self.standing = standing  # (army, clan, province) of every army not destroyed, in row order
        self.at: dict[str, list[int]] = {}  # province -> its standing armies (positions in `standing`)
        self.of: dict[str, list[int]] = {}  # clan -> its own standing armies (positions in `standing`)
        for k, (_, clan, province) in enumerate(standing):
            self.at.setdefault(province, []).append(k)
            self.of.setdefault(clan, []).append(k)

    def provinces(self, clan: str) -> set[str]:
        """What `visible_provinces(state, clan)` says."""
        return set(self.seen.get(clan, ()))

    def armies(self, clan: str) -> list[str]:
        """What `visible_armies(state, clan)` says, in Armies row order."""
        rows = set(self.of.get(clan, ()))
        for province in self.seen.get(clan, ()):
            rows.update(self.at.get(province, ()))
        return [self.standing[k][0] for k in sorted(rows)]
