"""The Clan War campaign tabs and columns, as typed row models.

Headers are the models' aliases, exactly as the sheet spells them; closed sets are enums whose values
are the sheet's words. Battles is the engine's log of where armies met; the GM's results (the winner
and each unit's and personality's fate) go in Battle Results.
"""

from __future__ import annotations

from enum import Enum, StrEnum
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from sheets_engine.core.cells import Count, Flag, OptionalCount, Text, Timestamp, Whole, enum_of, is_blank, name_text
from sheets_engine.core.history import history_spec
from sheets_engine.core.tables import TabSpec


class Phase(StrEnum):
    """The phases of a strategic turn, in the document's order. A turn rests at start or battle."""

    START = "start"
    PRIMARY = "primary"
    CAVALRY = "cavalry"
    BATTLE = "battle"
    RESERVE = "reserve"
    RECOVERY = "recovery"


class Special(StrEnum):
    """A faction's special rules (the document's "Special Rules")."""

    NONE = ""
    NAGA = "Naga"
    MONK = "Monk"
    SHADOWLANDS = "Shadowlands"
    TOTURI = "Toturi"


class ItemKind(StrEnum):
    """What a Catalogue row is."""

    UNIT = "Unit"
    PERSONALITY = "Personality"
    SPELL = "Spell"
    EQUIPMENT = "Equipment"  # mundane equipment: stockpiled, no limit of three
    SPECIAL_ITEM = "Special Item"  # assigned to a personality; at most max_non_unique unless unique
    TATTOO = "Tattoo"
    LEADERSHIP_PACKAGE = "Leadership Package"
    COMMAND_GROUP = "Command Group"


UNALIGNED = "Unaligned"  # the Catalogue's Clan of items no clan owns
NEUTRAL = "neutral"  # Battle Results' Control: leave the province neutral


class UnitStatus(StrEnum):
    """A unit's state (Destroyed: kept as a row, with no models)."""

    READY = "Ready"
    BROKEN = "Broken"
    ROUTED = "Routed"
    DESTROYED = "Destroyed"


class PersonalityStatus(StrEnum):
    """A personality's state. Released: out of play when an alliance broke (not Dead: may be hired again)."""

    READY = "Ready"
    WOUNDED = "Wounded"
    MAIMED = "Maimed"
    DEAD = "Dead"
    RELEASED = "Released"


class Action(StrEnum):
    """The Purchases tab's actions: everything the start phase allows, in any order (row order)."""

    BUY = "buy"
    PROMOTE = "promote"
    REPLACE = "replace"
    UPGRADE = "upgrade"
    STOCKPILE = "stockpile"
    TATTOO = "tattoo"  # Togashi Yokuni tattoos the unit he leads
    ASSIGN = "assign"  # from the stockpile (or a library) onto a personality
    SWAP = "swap"  # from one personality to another at the same province
    RETURN = "return"  # from a personality back to the stockpile (or a library)
    LEAD = "lead"  # a personality takes command of a unit at its province
    JOIN = "join"  # a personality joins a unit at its province, as an associated personality
    LEAVE = "leave"  # a personality leaves its unit (and the units it commands)
    TRANSFER = "transfer"  # models shifted from one unit to another (or a new one) at the same province


ITEMLESS = (Action.LEAD, Action.JOIN, Action.LEAVE, Action.TRANSFER)  # Purchases rows with no Item


class PurchaseStatus(StrEnum):
    """Accepted: paid in the start phase, placed in the recovery phase (then Resolved)."""

    PENDING = "Pending"
    ACCEPTED = "Accepted"
    RESOLVED = "Resolved"
    REJECTED = "Rejected"


class BidStatus(StrEnum):
    """What became of a sealed bid."""

    PENDING = "Pending"
    WON = "Won"
    LOST = "Lost"
    TIED = "Tied"
    REJECTED = "Rejected"
    PLACED = "Placed"  # the personality won joined the army in the recovery phase


class MovePhase(StrEnum):
    """The movement phases a Moves row belongs to."""

    PRIMARY = "primary"
    CAVALRY = "cavalry"
    RESERVE = "reserve"


class MoveStatus(StrEnum):
    """What became of a move."""

    PENDING = "Pending"
    RESOLVED = "Resolved"
    REJECTED = "Rejected"


class AllianceStatus(StrEnum):
    """A declared alliance: Pending until a start phase, then Active or Refused; Broken when it ends."""

    PENDING = "Pending"
    ACTIVE = "Active"
    REFUSED = "Refused"
    BROKEN = "Broken"


RINGS = ("Air", "Earth", "Fire", "Water", "Void")


def optional_enum(kind: type[Enum]) -> Any:
    """An enum column where an empty cell is allowed (read as "")."""
    words = {str(member.value).casefold(): str(member.value) for member in kind}

    def parse(value: Any) -> Any:
        if is_blank(value):
            return ""
        text = name_text(value).casefold()
        if text in words:
            return words[text]
        raise ValueError("expected one of: " + ", ".join(str(m.value) for m in kind) + " (or an empty cell)")

    return Annotated[str, BeforeValidator(parse)]


def _special(value: Any) -> Any:
    if is_blank(value):
        return ""
    text = name_text(value).casefold()
    for member in Special:
        if member.value and member.value.casefold() == text:
            return member.value
    raise ValueError("expected one of: " + ", ".join(m.value for m in Special if m.value) + " (or an empty cell)")


SpecialCell = Annotated[str, BeforeValidator(_special)]


class Row(BaseModel):
    """A sheet row: columns by header, unknown columns (a GM's notes) ignored."""

    model_config = ConfigDict(populate_by_name=True, extra="ignore", use_enum_values=True)


class GameRow(Row):
    key: Text = Field(alias="Key")
    value: Text = Field(alias="Value")
    notes: Text = Field(alias="Notes")


class FactionRow(Row):
    faction: Text = Field(alias="Faction")
    player: Text = Field(alias="Player")
    email: Text = Field(alias="Email")
    koku: Count = Field(alias="Koku")
    daimyo: Text = Field(alias="Daimyo")
    special: SpecialCell = Field(alias="Special")
    corrupted: Flag = Field(alias="Corrupted")
    rings: Count = Field(alias="Rings")
    entourage_used: Count = Field(alias="Entourage Used")
    # the cost modifiers of the faction's clan buying another clan's units ("Phoenix 120%, Crab 110%"): optional
    ally_costs: Text = Field(default="", alias="Ally Costs")


class ProvinceRow(Row):
    province: Text = Field(alias="Province")
    controller: Text = Field(alias="Controller")
    original_owner: Text = Field(alias="Original Owner")
    adjacent: Text = Field(alias="Adjacent")
    library: Flag = Field(alias="Library")
    corrupted: Flag = Field(alias="Corrupted")
    terrain: Text = Field(alias="Terrain")


class CatalogueRow(Row):
    item: Text = Field(alias="Item")
    kind: enum_of(ItemKind) = Field(alias="Kind")  # type: ignore[valid-type]
    clan: Text = Field(alias="Clan")
    cost: Count = Field(alias="Cost")
    unique: Flag = Field(alias="Unique")
    max_models: OptionalCount = Field(alias="Max Models")
    max_units: OptionalCount = Field(default=None, alias="Max Units")  # optional: a workbook may lack it
    cavalry: Flag = Field(alias="Cavalry")
    flying: Flag = Field(alias="Flying")
    experienced_of: Text = Field(alias="Experienced Of")
    ranged: Flag = Field(alias="Ranged")
    command_limit: Count = Field(alias="Command Limit")
    leadership: Whole = Field(alias="Leadership")
    ml: Count = Field(alias="ML")
    tl: Count = Field(alias="TL")
    air: Count = Field(alias="Air")
    earth: Count = Field(alias="Earth")
    fire: Count = Field(alias="Fire")
    water: Count = Field(alias="Water")
    void: Count = Field(alias="Void")
    wounds: Count = Field(alias="Wounds")
    # optional columns (a Catalogue made before them still reads): the most models in one unit of the troop
    # type; a leadership package's family and rank; a shugenja (carries spells); a troop type that may be
    # tattooed by nature (its new models bear their tattoos wherever the unit is)
    unit_size: OptionalCount = Field(default=None, alias="Unit Size")
    family: Text = Field(default="", alias="Family")
    rank: OptionalCount = Field(default=None, alias="Rank")
    shugenja: Flag = Field(default=False, alias="Shugenja")
    tattooable: Flag = Field(default=False, alias="Tattooable")
    yojimbo: Flag = Field(default=False, alias="Yojimbo")  # bodyguard troops: alone, they are not an army


class UnitRow(Row):
    unit: Text = Field(alias="Unit")
    faction: Text = Field(alias="Faction")
    item: Text = Field(alias="Item")
    province: Text = Field(alias="Province")
    models: Count = Field(alias="Models")
    leader: Text = Field(alias="Leader")
    package: Text = Field(alias="Package")  # the leadership package a model of the unit was promoted to
    ml: Count = Field(alias="ML")
    tl: Count = Field(alias="TL")
    experienced: Flag = Field(alias="Experienced")
    experienced_models: OptionalCount = Field(alias="Experienced Models")  # empty: all, if Experienced
    tattooed: Flag = Field(alias="Tattooed")
    tattoos: Text = Field(alias="Tattoos")  # the Tattoo items its models bear
    status: enum_of(UnitStatus, UnitStatus.READY) = Field(alias="Status")  # type: ignore[valid-type]
    from_ally: Text = Field(alias="From Ally")
    fought: Flag = Field(alias="Fought")
    entered_hostile: Flag = Field(alias="Entered Hostile")


class PersonalityRow(Row):
    personality: Text = Field(alias="Personality")
    faction: Text = Field(alias="Faction")
    item: Text = Field(alias="Item")
    province: Text = Field(alias="Province")
    unit: Text = Field(alias="Unit")
    unique: Flag = Field(alias="Unique")
    experienced: Flag = Field(alias="Experienced")
    air: Count = Field(alias="Air")
    earth: Count = Field(alias="Earth")
    fire: Count = Field(alias="Fire")
    water: Count = Field(alias="Water")
    void: Count = Field(alias="Void")
    wounds: Count = Field(alias="Wounds")
    max_wounds: Count = Field(alias="Max Wounds")
    void_points: Count = Field(alias="Void Points")
    max_void: Count = Field(alias="Max Void")
    status: enum_of(PersonalityStatus, PersonalityStatus.READY) = Field(alias="Status")  # type: ignore[valid-type]
    cavalry: Flag = Field(alias="Cavalry")
    flying: Flag = Field(alias="Flying")
    command_limit: Count = Field(alias="Command Limit")
    leadership: Whole = Field(alias="Leadership")
    items: Text = Field(alias="Items")
    from_ally: Text = Field(alias="From Ally")
    profile: Text = Field(alias="Profile")  # the Catalogue personality whose force profile it has, if not its Item's
    moved: Flag = Field(alias="Moved")
    fought: Flag = Field(alias="Fought")
    entered_hostile: Flag = Field(alias="Entered Hostile")


class StockpileRow(Row):
    faction: Text = Field(alias="Faction")
    item: Text = Field(alias="Item")
    count: Count = Field(alias="Count")
    library: Text = Field(alias="Library")


class PurchaseRow(Row):
    turn: Count = Field(alias="Turn")
    faction: Text = Field(alias="Faction")
    action: enum_of(Action) = Field(alias="Action")  # type: ignore[valid-type]
    item: Text = Field(alias="Item")
    count: OptionalCount = Field(alias="Count")
    from_: Text = Field(default="", alias="From")  # the personality or unit an assignment or a transfer takes from
    target: Text = Field(alias="Target")
    province: Text = Field(alias="Province")
    ally_ok: Flag = Field(alias="Ally OK")
    status: enum_of(PurchaseStatus, PurchaseStatus.PENDING) = Field(alias="Status")  # type: ignore[valid-type]
    result: Text = Field(alias="Result")
    # optional: a row copied from the Form keeps when it was sent and who sent it (empty: typed in the sheet)
    submitted: Timestamp = Field(default="", alias="Submitted")
    email: Text = Field(default="", alias="Email")


class BidRow(Row):
    turn: Count = Field(alias="Turn")
    faction: Text = Field(alias="Faction")
    personality: Text = Field(alias="Personality")
    bid: Count = Field(alias="Bid")
    count: OptionalCount = Field(default=None, alias="Count")  # models of a unit (empty: 1)
    target: Text = Field(default="", alias="Target")  # the new unit's name; the personality a special item goes to
    province: Text = Field(alias="Province")
    status: enum_of(BidStatus, BidStatus.PENDING) = Field(alias="Status")  # type: ignore[valid-type]
    result: Text = Field(alias="Result")
    # optional: a row copied from the Form keeps when it was sent and who sent it (empty: typed in the sheet)
    submitted: Timestamp = Field(default="", alias="Submitted")
    email: Text = Field(default="", alias="Email")


class MoveRow(Row):
    turn: Count = Field(alias="Turn")
    phase: enum_of(MovePhase) = Field(alias="Phase")  # type: ignore[valid-type]
    faction: Text = Field(alias="Faction")
    mover: Text = Field(alias="Mover")
    to: Text = Field(alias="To")
    status: enum_of(MoveStatus, MoveStatus.PENDING) = Field(alias="Status")  # type: ignore[valid-type]
    result: Text = Field(alias="Result")
    # optional: a row copied from the Form keeps when it was sent and who sent it (empty: typed in the sheet)
    submitted: Timestamp = Field(default="", alias="Submitted")
    email: Text = Field(default="", alias="Email")


class BattleResultRow(Row):
    turn: Count = Field(alias="Turn")
    province: Text = Field(alias="Province")
    winner: Text = Field(alias="Winner")
    control: Text = Field(alias="Control")
    unit: Text = Field(alias="Unit")
    models_lost: Count = Field(alias="Models Lost")
    final_status: optional_enum(UnitStatus) = Field(alias="Final Status")  # type: ignore[valid-type]
    left_table: Flag = Field(alias="Left Table")
    withdraw_to: Text = Field(alias="Withdraw To")
    personality: Text = Field(alias="Personality")
    wounds_over_max: Count = Field(alias="Wounds Over Max")
    # optional: a faction that turned on its allies during the battle, and the faction it sided with
    switched_sides: Text = Field(default="", alias="Switched Sides")
    sided_with: Text = Field(default="", alias="Sided With")
    # optional: Shiba Ujimitsu used his reincarnation in the battle; the personality he reincarnates into
    reincarnated: Flag = Field(default=False, alias="Reincarnated")
    reincarnate_into: Text = Field(default="", alias="Reincarnate Into")


class ResponseRow(Row):
    """A Google Form response (Form Responses 1): player text, judged when it is copied into Purchases, Bids
    or Moves (sheets_engine/clan_war/intake.py). The Form's text questions may be left out of it."""

    timestamp: Timestamp = Field(alias="Timestamp")
    email_address: Text = Field(alias="Email Address")
    faction: Text = Field(alias="Faction")
    order: Text = Field(alias="Order")
    item: Text = Field(default="", alias="Item")
    count: Text = Field(default="", alias="Count")
    from_: Text = Field(default="", alias="From")
    target: Text = Field(default="", alias="Target")
    province: Text = Field(default="", alias="Province")
    ally_ok: Text = Field(default="", alias="Ally OK")
    bid: Text = Field(default="", alias="Bid")
    mover: Text = Field(default="", alias="Mover")
    to: Text = Field(default="", alias="To")


RESPONSES = "Form Responses 1"
RESPONSE_OPTIONAL = ("Item", "Count", "From", "Target", "Province", "Ally OK", "Bid", "Mover", "To")
FORM_COLUMNS = ("Submitted", "Email")  # the order tabs' columns a copied response fills (optional in a workbook)


class AllianceRow(Row):
    faction_a: Text = Field(alias="Faction A")
    faction_b: Text = Field(alias="Faction B")
    since_turn: OptionalCount = Field(alias="Since Turn")
    broken_turn: OptionalCount = Field(alias="Broken Turn")
    free_to_break: Text = Field(alias="Free To Break")  # who may break it without penalty, and why
    status: enum_of(AllianceStatus, AllianceStatus.PENDING) = Field(alias="Status")  # type: ignore[valid-type]
    result: Text = Field(alias="Result")


BATTLE_HEADERS = ("Turn", "Province", "Factions", "Defender", "Terrain Chosen By")
NOTIFICATION_HEADERS = ("Turn", "Audience", "Channel", "Message", "Delivered")
RING_COLUMNS = RINGS

TABS: tuple[TabSpec, ...] = (
    TabSpec("Game", GameRow, key="Key", rule_columns=("Value",)),
    TabSpec(
        "Factions",
        FactionRow,
        key="Faction",
        rule_columns=("Koku", "Rings", "Entourage Used"),
        optional=("Ally Costs",),
    ),
    TabSpec("Provinces", ProvinceRow, key="Province", rule_columns=("Controller",)),
    TabSpec(
        "Catalogue",
        CatalogueRow,
        key="Item",
        written=False,
        optional=("Max Units", "Unit Size", "Family", "Rank", "Shugenja", "Tattooable", "Yojimbo"),
    ),
    TabSpec(
        "Units",
        UnitRow,
        key="Unit",
        engine_columns=("Fought", "Entered Hostile"),
        rule_columns=(
            "Province",
            "Models",
            "Leader",
            "Package",
            "ML",
            "TL",
            "Experienced",
            "Experienced Models",
            "Tattooed",
            "Tattoos",
            "Status",
        ),
    ),
    TabSpec(
        "Personalities",
        PersonalityRow,
        key="Personality",
        engine_columns=("Moved", "Fought", "Entered Hostile"),
        rule_columns=(
            "Faction",
            "From Ally",
            "Province",
            "Unit",
            "Item",
            "Unique",
            "Experienced",
            *RINGS,
            "Wounds",
            "Max Wounds",
            "Void Points",
            "Max Void",
            "Status",
            "Command Limit",
            "Leadership",
            "Cavalry",
            "Flying",
            "Items",
            "Profile",
        ),
    ),
    TabSpec("Stockpile", StockpileRow, rule_columns=("Faction", "Count")),
    TabSpec("Purchases", PurchaseRow, engine_columns=("Status", "Result"), optional=("From", *FORM_COLUMNS)),
    TabSpec("Bids", BidRow, engine_columns=("Status", "Result"), optional=("Count", "Target", *FORM_COLUMNS)),
    TabSpec("Moves", MoveRow, engine_columns=("Status", "Result"), optional=FORM_COLUMNS),
    # a workbook made before the player loop may lack the Form's tab: it reads as no responses
    TabSpec(RESPONSES, ResponseRow, written=False, required=False, optional=RESPONSE_OPTIONAL),
    TabSpec("Battles", None, log=True, headers=BATTLE_HEADERS),
    TabSpec(
        "Battle Results",
        BattleResultRow,
        written=False,
        optional=("Switched Sides", "Sided With", "Reincarnated", "Reincarnate Into"),
    ),
    TabSpec(
        "Alliances",
        AllianceRow,
        engine_columns=("Status", "Result"),
        rule_columns=("Since Turn", "Broken Turn", "Free To Break"),
    ),
    TabSpec("Notifications", None, log=True, headers=NOTIFICATION_HEADERS, optional=("Delivered",)),
    history_spec(),
)
