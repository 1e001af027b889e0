"""The Sengoku Jidai tabs and columns (docs/spreadsheet.md), as typed row models.

Headers are the models' aliases, exactly as the sheet spells them. Enums hold the sheet's words.
"""

from __future__ import annotations

import math
import re
from enum import StrEnum
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from sheets_engine.core.cells import Count, Flag, Fraction, OptionalCount, Text, Timestamp, Whole, enum_cell, is_blank
from sheets_engine.core.history import HISTORY_COLUMNS, history_spec
from sheets_engine.core.tables import TabSpec


class ProvinceType(StrEnum):
    """Guide Section 3: provinces are City or standard (rural)."""

    CITY = "City"
    RURAL = "Rural"


class BuildingKind(StrEnum):
    """Guide Section 4: where a building may stand."""

    UNIVERSAL = "Universal"
    CITY = "City"
    RGO = "RGO"


class Discipline(StrEnum):
    """Guide Section 5: the five tech trees."""

    DEVELOPMENT = "Development"
    EXPANSION = "Expansion"
    WARFARE = "Warfare"
    PIETY = "Piety"
    LEARNING = "Learning"


class ArmyStatus(StrEnum):
    """Where an army stands in the war."""

    FIELD = "Field"
    GARRISONED = "Garrisoned"
    BESIEGING = "Besieging"
    DESTROYED = "Destroyed"


class CharacterStatus(StrEnum):
    """A character is alive or dead (never deleted: the graveyard is history)."""

    ALIVE = "Alive"
    DEAD = "Dead"


class OrderStatus(StrEnum):
    """What became of an order."""

    PENDING = "Pending"
    RESOLVED = "Resolved"
    REJECTED = "Rejected"
    SUPERSEDED = "Superseded"


class ChoiceStatus(StrEnum):
    """What became of a Tech Choices row."""

    PENDING = "Pending"
    SPENT = "Spent"
    REJECTED = "Rejected"


class LetterStatus(StrEnum):
    """A letter waits until the clan's Learning lets it go."""

    PENDING = "Pending"
    DELIVERED = "Delivered"


class SiegeStatus(StrEnum):
    """The Sieges tab's engine-owned `Status` (empty reads as Active: a siege a GM typed in)."""

    ACTIVE = "Active"
    LIFTED = "Lifted"  # no besieging army remains
    SURRENDERED = "Surrendered"  # the timer reached 0
    BROKEN = "Broken"  # the fortress was brought down to level 0


_COORDINATE = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", re.ASCII)  # a number as a spreadsheet reads it


def _coordinate(value: Any) -> float | None:
    """A place on the map picture: any number (a GM's own units), empty for "let the engine place it"."""
    if is_blank(value):
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ValueError("expected a number (where the map draws the province) or an empty cell")
    text = str(value).strip()
    if isinstance(value, str) and not _COORDINATE.fullmatch(text):
        raise ValueError("expected a number (where the map draws the province) or an empty cell")
    number = float(text) if isinstance(value, str) else float(value)
    if not math.isfinite(number) or abs(number) > 1e9:
        raise ValueError("expected a number (where the map draws the province) or an empty cell")
    return number


MapCoordinate = Annotated[float | None, BeforeValidator(_coordinate)]

SECRET_CHOICES = {"keep it secret": True, "make it public": False}
"""The order form's answers to its Secret question (the form offers these two; empty is public)."""
SECRET_WORDS = {**SECRET_CHOICES, "true": True, "yes": True, "y": True, "1": True, "secret": True,
                "false": False, "no": False, "n": False, "0": False, "public": False, "": False}  # fmt: skip
"""Every Secret answer the engine reads (docs/form.md): the form's two, and short words for a GM typing."""


def _secret(value: Any) -> Any:
    """An Orders row's Secret: TRUE/FALSE, or any answer the form's question takes, as a form response."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float) and value in (0, 1):
        return bool(value)
    if is_blank(value):
        return False
    words = SECRET_WORDS.get(" ".join(str(value).split()).casefold())
    if words is None:
        raise ValueError('expected TRUE or FALSE (or the form\'s "Keep it secret" or "Make it public")')
    return words


SecretFlag = Annotated[bool, BeforeValidator(_secret)]


class Row(BaseModel):
    """A sheet row: columns by header, unknown columns (a GM's notes) ignored."""

    model_config = ConfigDict(populate_by_name=True, extra="ignore", use_enum_values=True)


class GameRow(Row):
    key: Text = Field(alias="Key")
    value: Text = Field(alias="Value")
    notes: Text = Field(alias="Notes")


class ClanRow(Row):
    clan: Text = Field(alias="Clan")
    treasury: Count = Field(alias="Treasury")
    knowledge: Count = Field(alias="Knowledge")
    development: Count = Field(alias="Development")
    expansion: Count = Field(alias="Expansion")
    warfare: Count = Field(alias="Warfare")
    piety: Count = Field(alias="Piety")
    learning: Count = Field(alias="Learning")
    tech_points: Count = Field(alias="Tech Points")
    capital: Text = Field(alias="Capital")


class AllianceRow(Row):
    clan: Text = Field(alias="Clan")
    ally: Text = Field(alias="Ally")
    secret: Flag = Field(alias="Secret")
    since_turn: Count = Field(alias="Since Turn")


SLOT_COLUMNS = ("Building 1", "Building 2", "Building 3", "Building 4", "Building 5")


class ProvinceRow(Row):
    province: Text = Field(alias="Province")
    type: Annotated[ProvinceType, enum_cell(ProvinceType)] = Field(alias="Type")
    resource: Text = Field(alias="Resource")
    terrain: Text = Field(alias="Terrain")
    province_owner: Text = Field(alias="Province Owner")
    controlled_by: Text = Field(alias="Controlled By")
    adjacent: Text = Field(alias="Adjacent")
    building_1: Text = Field(alias="Building 1")
    building_2: Text = Field(alias="Building 2")
    building_3: Text = Field(alias="Building 3")
    building_4: Text = Field(alias="Building 4")
    building_5: Text = Field(alias="Building 5")
    fortress_level: Count = Field(alias="Fortress Level", le=4)
    tax_stockpile: Count = Field(alias="Tax Stockpile")
    manpower_stockpile: Count = Field(alias="Manpower Stockpile")
    capital_of: Text = Field(alias="Capital Of")
    slots: Count = Field(alias="Slots")
    tax_regen: Count = Field(alias="Tax Regen")
    manpower_regen: Count = Field(alias="Manpower Regen")
    tax_cap: Count = Field(alias="Tax Cap")
    manpower_cap: Count = Field(alias="Manpower Cap")
    mon_bonus: Count = Field(alias="Mon Bonus")
    levy_bonus: Count = Field(alias="Levy Bonus")
    build_cost_reduction: Count = Field(alias="Build Cost Reduction")
    levy_unit: Text = Field(alias="Levy Unit")
    map_x: MapCoordinate = Field(default=None, alias="Map X")  # optional: where the map picture draws it
    map_y: MapCoordinate = Field(default=None, alias="Map Y")


MAP_COLUMNS = ("Map X", "Map Y")  # GM-owned and optional (an older workbook has none); `map --save-layout` adds them

DERIVED_COLUMNS = (
    "Capital Of",
    "Slots",
    "Tax Regen",
    "Manpower Regen",
    "Tax Cap",
    "Manpower Cap",
    "Mon Bonus",
    "Levy Bonus",
    "Build Cost Reduction",
    "Levy Unit",
)


class BuildingRow(Row):
    building: Text = Field(alias="Building")
    kind: Annotated[BuildingKind, enum_cell(BuildingKind)] = Field(alias="Kind")
    resource: Text = Field(alias="Resource")
    cost: Count = Field(alias="Cost")
    tax_regen: Whole = Field(alias="Tax Regen")
    manpower_regen: Whole = Field(alias="Manpower Regen")
    tax_cap: Whole = Field(alias="Tax Cap")
    manpower_cap: Whole = Field(alias="Manpower Cap")
    mon_bonus: Whole = Field(alias="Mon Bonus")
    mon_per_province: Whole = Field(alias="Mon Per Province")
    levy_bonus: Whole = Field(alias="Levy Bonus")
    cost_reduction: Whole = Field(alias="Cost Reduction")
    knowledge: Whole = Field(alias="Knowledge")
    levy_unit: Text = Field(alias="Levy Unit")


BUILDING_EFFECTS = (
    "Tax Regen",
    "Manpower Regen",
    "Tax Cap",
    "Manpower Cap",
    "Mon Bonus",
    "Mon Per Province",
    "Levy Bonus",
    "Cost Reduction",
    "Knowledge",
)


class UnitRow(Row):
    unit: Text = Field(alias="Unit")
    army_column: Text = Field(alias="Army Column")
    cs: Count = Field(alias="CS")
    basic: Flag = Field(alias="Basic")
    battle_loss_order: OptionalCount = Field(alias="Battle Loss Order")
    winter_loss_order: OptionalCount = Field(alias="Winter Loss Order")
    garrison_order: OptionalCount = Field(alias="Garrison Order")
    siege: Flag = Field(alias="Siege")


class TerrainRow(Row):
    terrain: Text = Field(alias="Terrain")
    attacker: Whole = Field(alias="Attacker")
    defender: Whole = Field(alias="Defender")


class TechRow(Row):
    discipline: Annotated[Discipline, enum_cell(Discipline)] = Field(alias="Discipline")
    level: Count = Field(alias="Level")
    effect: Text = Field(alias="Effect")
    winter_loss: Fraction = Field(alias="Winter Loss")
    letters: OptionalCount = Field(alias="Letters")


class MissionRow(Row):
    order: Text = Field(alias="Order")
    authority: Whole = Field(alias="Authority")
    knowledge: Count = Field(alias="Knowledge")
    free_action: Flag = Field(alias="Free Action")


UNIT_COLUMNS = ("Spear", "Sword", "Archer", "Cavalry", "Firearm", "Samurai", "Siege")


class ArmyRow(Row):
    army: Text = Field(alias="Army")
    clan: Text = Field(alias="Clan")
    province: Text = Field(alias="Province")
    leader: Text = Field(alias="Leader")
    spear: Count = Field(alias="Spear")
    sword: Count = Field(alias="Sword")
    archer: Count = Field(alias="Archer")
    cavalry: Count = Field(alias="Cavalry")
    firearm: Count = Field(alias="Firearm")
    samurai: Count = Field(alias="Samurai")
    siege: Count = Field(alias="Siege")
    origin: Text = Field(alias="Origin")
    moved: Flag = Field(alias="Moved")
    status: Annotated[ArmyStatus, enum_cell(ArmyStatus, ArmyStatus.FIELD)] = Field(alias="Status")


class CharacterRow(Row):
    character: Text = Field(alias="Character")
    player: Text = Field(alias="Player")
    email: Text = Field(alias="Email")
    clan: Text = Field(alias="Clan")
    title: Text = Field(alias="Title")
    authority: Whole = Field(alias="Authority")
    location: Text = Field(alias="Location")
    status: Annotated[CharacterStatus, enum_cell(CharacterStatus, CharacterStatus.ALIVE)] = Field(alias="Status")


class ResponseRow(Row):
    """A Google Form response: player text, read as text and judged as an order later."""

    timestamp: Timestamp = Field(alias="Timestamp")
    email_address: Text = Field(alias="Email Address")
    character: Text = Field(alias="Character")
    order: Text = Field(alias="Order")
    target: Text = Field(alias="Target")
    detail: Text = Field(alias="Detail")
    secret: Text = Field(alias="Secret")


class OrderRow(Row):
    turn: Count = Field(alias="Turn")
    submitted: Timestamp = Field(alias="Submitted")  # read as a form's Timestamp: a GM may type it any way
    email: Text = Field(alias="Email")
    character: Text = Field(alias="Character")
    order: Text = Field(alias="Order")
    target: Text = Field(alias="Target")
    detail: Text = Field(alias="Detail")
    secret: SecretFlag = Field(alias="Secret")  # the form's words too: a GM copies an answer in as it was given
    status: Annotated[OrderStatus, enum_cell(OrderStatus, OrderStatus.PENDING)] = Field(alias="Status")
    result: Text = Field(alias="Result")


class TechChoiceRow(Row):
    turn: Count = Field(alias="Turn")
    clan: Text = Field(alias="Clan")
    character: Text = Field(alias="Character")
    discipline: Annotated[Discipline, enum_cell(Discipline)] = Field(alias="Discipline")
    status: Annotated[ChoiceStatus, enum_cell(ChoiceStatus, ChoiceStatus.PENDING)] = Field(alias="Status")


class LetterRow(Row):
    letter: Text = Field(alias="Letter")
    turn: Count = Field(alias="Turn")
    from_: Text = Field(alias="From")
    to_clan: Text = Field(alias="To Clan")
    text: Text = Field(alias="Text")
    status: Annotated[LetterStatus, enum_cell(LetterStatus, LetterStatus.PENDING)] = Field(alias="Status")
    delivered_turn: OptionalCount = Field(alias="Delivered Turn")


class RelationRow(Row):
    clan_a: Text = Field(alias="Clan A")
    clan_b: Text = Field(alias="Clan B")
    since_turn: Count = Field(alias="Since Turn")


class SiegeRow(Row):
    province: Text = Field(alias="Province")
    besieger: Text = Field(alias="Besieger")
    defender: Text = Field(alias="Defender")
    timer: Count = Field(alias="Timer")
    started_turn: Count = Field(alias="Started Turn")
    status: Annotated[SiegeStatus, enum_cell(SiegeStatus, SiegeStatus.ACTIVE)] = Field(alias="Status")


BATTLE_HEADERS = (
    "Turn", "Province", "Attacker", "Defender", "Attacker CS", "Defender CS", "Attacker Roll",
    "Defender Roll", "Damage To Attacker", "Damage To Defender", "Outcome",
)  # fmt: skip
# Delivered: engine-owned, written by `sheets-engine notify` (when and which Discord messages).
NOTIFICATION_HEADERS = ("Turn", "Audience", "Channel", "Message", "Delivered")
HISTORY_HEADERS = HISTORY_COLUMNS  # the same for every ruleset (core/history.py)

UNIT_COLUMNS = ("Spear", "Sword", "Archer", "Cavalry", "Firearm", "Samurai", "Siege")
TECH_COLUMNS = ("Development", "Expansion", "Warfare", "Piety", "Learning")
BUILDING_COLUMNS = tuple(f"Building {n}" for n in range(1, 6))

# Each tab gives the engine the columns it may write in existing rows (engine_columns, rule_columns);
# Draft.set refuses any other. Rows the engine appends are its own.
TABS: tuple[TabSpec, ...] = (
    TabSpec("Game", GameRow, key="Key", rule_columns=("Value",)),
    TabSpec("Clans", ClanRow, key="Clan", rule_columns=("Treasury", "Knowledge", *TECH_COLUMNS, "Tech Points")),
    TabSpec("Alliances", AllianceRow, rule_columns=("Secret",)),
    TabSpec(
        "Provinces",
        ProvinceRow,
        key="Province",
        engine_columns=DERIVED_COLUMNS,
        optional=MAP_COLUMNS,
        rule_columns=(
            "Province Owner",
            "Controlled By",
            *BUILDING_COLUMNS,
            "Fortress Level",
            "Tax Stockpile",
            "Manpower Stockpile",
            *MAP_COLUMNS,  # written by `map --save-layout`
        ),
    ),
    TabSpec("Buildings", BuildingRow, key="Building", written=False),
    TabSpec("Units", UnitRow, key="Unit", written=False),
    TabSpec("Terrain", TerrainRow, key="Terrain", written=False),
    TabSpec("Tech", TechRow, written=False),
    TabSpec("Missions", MissionRow, key="Order", written=False),
    TabSpec(
        "Armies",
        ArmyRow,
        key="Army",
        engine_columns=("Origin", "Moved", "Status"),
        rule_columns=("Province", "Leader", *UNIT_COLUMNS),
    ),
    TabSpec(
        "Characters", CharacterRow, key="Character", rule_columns=("Clan", "Title", "Authority", "Location", "Status")
    ),
    TabSpec("Form Responses 1", ResponseRow, written=False),
    TabSpec("Orders", OrderRow, engine_columns=("Status", "Result")),
    TabSpec("Tech Choices", TechChoiceRow, engine_columns=("Status",)),
    TabSpec("Letters", LetterRow, key="Letter", engine_columns=("Status", "Delivered Turn")),
    TabSpec("Relations", RelationRow),
    TabSpec("Sieges", SiegeRow, engine_columns=("Status",), rule_columns=("Timer",)),
    TabSpec("Battles", None, log=True, headers=BATTLE_HEADERS),
    TabSpec("Notifications", None, log=True, headers=NOTIFICATION_HEADERS, optional=("Delivered",)),
    history_spec(),
)


class OrderType(StrEnum):
    """The `Order` column's words: one per command of the guide."""

    TAX_PROVINCE = "tax-province"
    RECRUIT_LEVIES = "recruit-levies"
    BUILD = "build"
    LEAD_ARMY = "lead-army"
    HIRE_SAMURAI = "hire-samurai"
    RALLY_SAMURAI = "rally-samurai"
    TRADE_MISSION = "trade-mission"
    MEDITATE = "meditate"
    EXPERIMENT = "experiment"
    CLAIM_DAIMYO = "claim-daimyo"
    CLAIM_SHOGUNATE = "claim-shogunate"
    ESTABLISH_RELATIONS = "establish-relations"
    DESIGNATE_ALLY = "designate-ally"
    EXECUTE = "execute"
    WRITE_LETTER = "write-letter"
