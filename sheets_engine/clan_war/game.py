"""What every phase of a Clan War turn is given (the `Turn`), and the read-only views the rules share:
who controls what, who is allied with whom, which units stand where."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sheets_engine.clan_war.schema import (
    UNALIGNED,
    AllianceStatus,
    BidStatus,
    MoveStatus,
    PersonalityStatus,
    PurchaseStatus,
    Special,
    UnitStatus,
)
from sheets_engine.clan_war.settings import Settings
from sheets_engine.core.cells import split_names
from sheets_engine.core.dice import Dice
from sheets_engine.core.orderbook import OrderBook, Verdict
from sheets_engine.core.tables import Draft

PURCHASE_WORDS = {
    Verdict.RESOLVED: PurchaseStatus.RESOLVED.value,
    Verdict.REJECTED: PurchaseStatus.REJECTED.value,
    Verdict.SUPERSEDED: PurchaseStatus.REJECTED.value,
}
MOVE_WORDS = {
    Verdict.RESOLVED: MoveStatus.RESOLVED.value,
    Verdict.REJECTED: MoveStatus.REJECTED.value,
    Verdict.SUPERSEDED: MoveStatus.REJECTED.value,
}
BID_WORDS = {
    Verdict.RESOLVED: BidStatus.WON.value,
    Verdict.REJECTED: BidStatus.REJECTED.value,
    Verdict.SUPERSEDED: BidStatus.LOST.value,
}


@dataclass
class Turn:
    """Everything a phase needs: the draft, the settings, the dice, and what the turn has seen so far."""

    draft: Draft
    settings: Settings
    dice: Dice
    number: int
    # who controlled each province when the turn began (withdrawals and new forces go only there)
    start_control: dict[str, str] = field(default_factory=dict)
    summary: Counter[str] = field(default_factory=Counter)
    # per faction, casualties of the turn's battles to recover: unit -> (models lost, won)
    casualties: dict[str, tuple[int, bool]] = field(default_factory=dict)
    # per unit, how many of those casualties were experienced models (recovered ones come back experienced)
    veterans_lost: dict[str, int] = field(default_factory=dict)
    # Shiba Ujimitsu died from his rolls: he reincarnates into this personality in the recovery phase
    reincarnations: dict[str, str] = field(default_factory=dict)
    resumed: bool = False  # this run resumes the turn paused for its battles
    battles: list[Any] = field(default_factory=list)  # the turn's battles (clan_war.battles.Battle), once found
    cutoff: datetime | None = None  # Form responses sent after it wait for a later turn (None: every one joins)

    def __post_init__(self) -> None:
        if not self.start_control:
            provinces = self.draft.frame("Provinces")
            self.start_control = {str(p): str(c) for p, c in provinces["Controller"].items()}

    @property
    def purchases(self) -> OrderBook:
        """The Purchases tab's order book."""
        return OrderBook(self.draft, "Purchases", PURCHASE_WORDS, self._settled, self._refusals)

    @property
    def moves(self) -> OrderBook:
        """The Moves tab's order book."""
        return OrderBook(self.draft, "Moves", MOVE_WORDS, self._settled, self._refusals)

    @property
    def bids(self) -> OrderBook:
        """The Bids tab's order book (Won, Lost, Rejected)."""
        return OrderBook(self.draft, "Bids", BID_WORDS, self._settled, self._refusals)

    _settled: Counter[Verdict] = field(default_factory=Counter)
    _refusals: Counter[str] = field(default_factory=Counter)

    def notify(self, audience: str, channel: str, message: str) -> None:
        """A Notifications row."""
        self.draft.notify(self.number, audience, channel, message)

    # views --------------------------------------------------------------------------------------
    def faction(self, name: str) -> dict[str, Any]:
        """A Factions row as it stands."""
        return self.draft.row("Factions", name)

    def special(self, name: str) -> str:
        """The faction's special rules word ("" for none)."""
        return str(self.draft.get("Factions", name, "Special")) if self.draft.has("Factions", name) else ""

    def corrupt(self, name: str) -> bool:
        """Shadowlands or corrupted: the factions Naga and Monks stand against."""
        if not self.draft.has("Factions", name):
            return False
        return self.special(name) == Special.SHADOWLANDS.value or bool(self.draft.get("Factions", name, "Corrupted"))

    def controller(self, province: str) -> str:
        """Who controls the province now ("" = neutral)."""
        return str(self.draft.get("Provinces", province, "Controller"))

    def neighbours(self, province: str) -> list[str]:
        """The provinces joined to this one by a road."""
        return split_names(str(self.draft.get("Provinces", province, "Adjacent")))

    def allies(self, faction: str) -> set[str]:
        """The factions with an Active alliance with this one."""
        return allies_of(self.draft, faction)

    def friendly(self, faction: str, province: str) -> bool:
        """Controlled by the faction or an ally."""
        owner = self.controller(province)
        return bool(owner) and (owner == faction or owner in self.allies(faction))

    def opposed(self, a: str, b: str) -> bool:
        """Do the forces of two factions fight when they meet? Not allies; a Monk fights only the
        Shadowlands, the corrupt, and a faction that holds a province the Monk lost."""
        if a == b or b in self.allies(a):
            return False
        for monk, other in ((a, b), (b, a)):
            if self.special(monk) == Special.MONK.value and not self.corrupt(other):
                return self.holds_monk_province(other, monk)
        return True

    def holds_monk_province(self, faction: str, monk: str) -> bool:
        """Has `faction` conquered a province the Monk faction owned?"""
        provinces = self.draft.frame("Provinces")
        return bool(((provinces["Controller"] == faction) & (provinces["Original Owner"] == monk)).any())

    def units(self, province: str | None = None, faction: str | None = None) -> list[str]:
        """Units still in the field (not Destroyed, with models), by name."""
        frame = self.draft.frame("Units")
        alive = frame[(frame["Status"] != UnitStatus.DESTROYED.value) & (frame["Models"] > 0)]
        if province is not None:
            alive = alive[alive["Province"] == province]
        if faction is not None:
            alive = alive[alive["Faction"] == faction]
        return sorted(str(k) for k in alive.index)

    def personalities(self, province: str | None = None) -> list[str]:
        """Personalities in play (not Dead or Released), by name."""
        frame = self.draft.frame("Personalities")
        alive = frame[~frame["Status"].isin([PersonalityStatus.DEAD.value, PersonalityStatus.RELEASED.value])]
        if province is not None:
            alive = alive[alive["Province"] == province]
        return sorted(str(k) for k in alive.index)

    def catalogue(self, item: str) -> dict[str, Any] | None:
        """A Catalogue row, or None."""
        return self.draft.row("Catalogue", item) if self.draft.has("Catalogue", item) else None

    def unit_kind(self, unit: str, flag: str) -> bool:
        """Is the unit's troop type Cavalry (or Flying)?"""
        entry = self.catalogue(str(self.draft.get("Units", unit, "Item")))
        return bool(entry and entry[flag])

    def armies_at(self, province: str) -> dict[str, list[str]]:
        """The factions with an army in the province and their units: "To be considered an Army, a force must
        have at least one Unit of non-yojimbo troops" (the Catalogue's Yojimbo)."""
        found: dict[str, list[str]] = {}
        for unit in self.units(province):
            found.setdefault(str(self.draft.get("Units", unit, "Faction")), []).append(unit)
        return {f: units for f, units in found.items() if not all(self.unit_kind(u, "Yojimbo") for u in units)}

    def enemy_forces_at(self, faction: str, province: str) -> bool:
        """Does an opposing faction have units in the province?"""
        return any(self.opposed(faction, other) for other in self.armies_at(province))


def allies_of(draft: Draft, faction: str) -> set[str]:
    """The factions with an Active alliance with this one."""
    frame = draft.frame("Alliances")
    active = frame[frame["Status"] == AllianceStatus.ACTIVE.value]
    found = set()
    for a, b in zip(active["Faction A"], active["Faction B"], strict=True):
        if a == faction:
            found.add(str(b))
        elif b == faction:
            found.add(str(a))
    return found


def played_clans(draft: Draft) -> set[str]:
    """The clans some player plays (the Factions tab's names)."""
    return {str(k) for k in draft.frame("Factions").index}


def is_unaligned(clan: str) -> bool:
    """The Catalogue's Clan of items no clan owns."""
    return clan.casefold() == UNALIGNED.casefold()


def share(amount: int, rate: float) -> int:
    """A share of a whole amount, rounded down (casualties recovered, koku to an ally)."""
    return math.floor(amount * rate + 1e-9)


def key_text(key: Hashable) -> str:
    """A row key as text."""
    return str(key)
