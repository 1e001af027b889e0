"""Guide Sections 2 and 4: stockpiles, taxes, levies, buildings and Samurai.

Step 2 regenerates the stockpiles; step 6 resolves the economy missions in the order
tax-province, build, recruit-levies, hire-samurai, rally-samurai (each in submission order), so
Mon taxed this turn can pay for a building ordered this turn.
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Iterable

import numpy as np

from sheets_engine.sengoku.orders import find, unknown
from sheets_engine.sengoku.schema import SLOT_COLUMNS, ArmyStatus, BuildingKind, OrderType
from sheets_engine.sengoku.turn import Order, Turn

FORTRESS = "Fortress"


def regenerate(turn: Turn) -> None:
    """Both stockpiles grow by their Regen up to their Cap; the overage is lost (Section 2)."""
    provinces = turn.draft.frame("Provinces")
    for stock, regen, cap in (
        ("Tax Stockpile", "Tax Regen", "Tax Cap"),
        ("Manpower Stockpile", "Manpower Regen", "Manpower Cap"),
    ):
        grown = np.minimum(provinces[stock] + provinces[regen], provinces[cap])
        turn.draft.set_column("Provinces", stock, grown, "stockpiles regenerate")


def economy_missions(turn: Turn) -> None:
    """Step 6, economy: every tax, then builds, levies, hired and rallied Samurai."""
    done: dict[str, set[str]] = {"tax": set(), "levy": set()}
    for order in turn.pending(OrderType.TAX_PROVINCE):
        tax_province(turn, order, done["tax"])
    for order in turn.pending(OrderType.BUILD):
        build(turn, order)
    for order in turn.pending(OrderType.RECRUIT_LEVIES):
        recruit_levies(turn, order, done["levy"])
    for order in turn.pending(OrderType.HIRE_SAMURAI, OrderType.RALLY_SAMURAI):
        samurai(turn, order)


def _own_province(turn: Turn, order: Order) -> tuple[str, str] | str:
    """(province, clan) if the character's clan controls the target, else the reason why not."""
    draft = turn.draft
    clan = draft.get("Characters", order.character, "Clan")
    if not clan:
        return f"{order.character} belongs to no clan"
    provinces = draft.frame("Provinces")
    province = find(provinces.index, order.target)
    if province is None:
        return unknown("province", order.target, provinces.index)
    controller = provinces.at[province, "Controlled By"] or provinces.at[province, "Province Owner"]
    if controller != clan:
        held = f"controlled by {controller}" if controller else "held by no clan"
        return f"not your province: {province} is {held}, not {clan}"
    return province, clan


def tax_province(turn: Turn, order: Order, taxed: set[str]) -> None:
    """The entire Tax Stockpile plus the Mon Bonus go to the treasury; the stockpile resets to 0."""
    found = _own_province(turn, order)
    if isinstance(found, str):
        return turn.reject(order, found)
    province, clan = found
    if province in taxed:
        return turn.reject(order, f"{province} was already taxed this turn")
    taxed.add(province)
    draft = turn.draft
    stockpile = int(draft.get("Provinces", province, "Tax Stockpile"))
    bonus = int(draft.get("Provinces", province, "Mon Bonus"))
    treasury = int(draft.get("Clans", clan, "Treasury")) + stockpile + bonus
    draft.set("Clans", clan, "Treasury", treasury, order.cause)
    draft.set("Provinces", province, "Tax Stockpile", 0, order.cause)
    turn.resolve(
        order,
        f"Collected {stockpile + bonus} Mon from {province} (Tax Stockpile {stockpile} + Mon Bonus {bonus}); "
        f"{clan} treasury now {treasury}",
    )


def building_cost(cost: int, reduction: int) -> int:
    """Cost minus the province's Build Cost Reduction, never below 0 (Section 4)."""
    return max(0, cost - reduction)


def build(turn: Turn, order: Order) -> None:
    """A building in a free slot, paid from the treasury; a Fortress where one stands gains a level."""
    found = _own_province(turn, order)
    if isinstance(found, str):
        return turn.reject(order, found)
    province, clan = found
    draft = turn.draft
    buildings = draft.frame("Buildings")
    name = find(buildings.index, order.detail)
    if name is None:
        return turn.reject(order, unknown("building", order.detail, buildings.index))
    row = draft.row("Provinces", province)
    kind, resource = buildings.at[name, "Kind"], buildings.at[name, "Resource"]
    if kind == BuildingKind.CITY.value and row["Type"] != "City":
        return turn.reject(order, f"{name} can only be built in a City; {province} is {row['Type']}")
    if kind == BuildingKind.RGO.value and row["Resource"] != resource:
        return turn.reject(order, f"{name} needs the resource {resource}; {province} has {row['Resource'] or 'none'}")
    standing = [row[c] for c in SLOT_COLUMNS]
    raise_fortress = name == FORTRESS and FORTRESS in standing
    highest = len(turn.settings.garrison_capacity)  # one capacity per Fortress level (Game data)
    if raise_fortress and row["Fortress Level"] >= highest:
        return turn.reject(order, f"the Fortress in {province} is already at level {highest}, the highest")
    if name in standing and not raise_fortress:
        return turn.reject(order, f"{province} already has {name}")
    # a building beyond the slots (kept from a Development 3 controller) counts against them
    built = sum(1 for c in SLOT_COLUMNS if row[c])
    free = [c for c in SLOT_COLUMNS[: int(row["Slots"])] if not row[c]] if built < int(row["Slots"]) else []
    if not raise_fortress and not free:
        return turn.reject(order, f"no free slot in {province} ({int(row['Slots'])} slots, all built)")
    base, reduction = int(buildings.at[name, "Cost"]), int(row["Build Cost Reduction"])
    cost = building_cost(base, reduction)
    treasury = int(draft.get("Clans", clan, "Treasury"))
    if treasury < cost:
        return turn.reject(order, f"not enough Mon: {name} costs {cost} and the {clan} treasury holds {treasury}")
    draft.set("Clans", clan, "Treasury", treasury - cost, order.cause)
    if raise_fortress:
        level = int(row["Fortress Level"]) + 1
        draft.set("Provinces", province, "Fortress Level", level, order.cause)
        where = f"the Fortress in {province} to level {level}"
    else:
        draft.set("Provinces", province, free[0], name, order.cause)
        if name == FORTRESS:
            draft.set("Provinces", province, "Fortress Level", 1, order.cause)
        where = f"{name} in {province} ({free[0]})"
    price = f"{cost} Mon" + (f" ({base} less {reduction} reduction)" if reduction else "")
    turn.resolve(order, f"Built {where} for {price}; {clan} treasury now {treasury - cost}")


def recruit_levies(turn: Turn, order: Order, recruited: set[str]) -> None:
    """Manpower Stockpile plus Levy Bonus units of the Levy Unit join the clan's army there."""
    found = _own_province(turn, order)
    if isinstance(found, str):
        return turn.reject(order, found)
    province, clan = found
    if province in recruited:
        return turn.reject(order, f"levies were already recruited in {province} this turn")
    draft = turn.draft
    stockpile = int(draft.get("Provinces", province, "Manpower Stockpile"))
    bonus = int(draft.get("Provinces", province, "Levy Bonus"))
    if stockpile + bonus == 0:
        return turn.reject(order, f"no manpower to recruit in {province} (Manpower Stockpile 0, Levy Bonus 0)")
    recruited.add(province)
    unit = str(draft.get("Provinces", province, "Levy Unit"))
    column = str(draft.get("Units", unit, "Army Column"))
    count = stockpile + bonus
    armies = draft.frame("Armies")
    here = armies[  # numpy arrays compared (a pandas comparison costs 5 times as much)
        (armies["Clan"].to_numpy() == clan) & (armies["Province"].to_numpy() == province)
        & (armies["Status"].to_numpy() != ArmyStatus.DESTROYED.value)
    ]  # fmt: skip
    draft.set("Provinces", province, "Manpower Stockpile", 0, order.cause)
    if len(here):
        army = str(here.index[0])
        draft.set("Armies", army, column, int(here.at[army, column]) + count, order.cause)
        joined = f"joined {army}"
    else:
        army = _new_army_name(armies.index.tolist(), clan, province)  # a list: iterating an Index boxes each name
        draft.add_row(
            "Armies",
            {"Army": army, "Clan": clan, "Province": province, column: count,
             "Status": ArmyStatus.FIELD.value, "Moved": False},
            order.cause,
        )  # fmt: skip
        joined = f"formed a new army, {army}"
    turn.resolve(
        order,
        f"Recruited {count} {unit} in {province} (Manpower Stockpile {stockpile} + Levy Bonus {bonus}); {joined}",
    )


def _new_army_name(taken: Iterable[Hashable], clan: str, province: str) -> str:
    names = set(taken)
    name, number = f"{clan} Levies of {province}", 2
    while name in names:
        name, number = f"{clan} Levies of {province} {number}", number + 1
    return name


def samurai(turn: Turn, order: Order) -> None:
    """hire-samurai (any clan) and rally-samurai (the Shogun's clan: cheaper, at most a few)."""
    draft = turn.draft
    settings = turn.settings
    clan = draft.get("Characters", order.character, "Clan")
    if not clan:
        return turn.reject(order, f"{order.character} belongs to no clan")
    rally = order.type is OrderType.RALLY_SAMURAI
    if rally and clan != settings.shogun_clan:
        return turn.reject(order, "only the Shogun's clan may rally Samurai")
    armies = draft.frame("Armies")
    army = find(armies.index, order.target)
    if army is None:
        return turn.reject(order, unknown("army", order.target, armies.index))
    if armies.at[army, "Clan"] != clan:
        return turn.reject(order, f"not your army: {army} belongs to {armies.at[army, 'Clan']}")
    if armies.at[army, "Status"] == ArmyStatus.DESTROYED.value:
        return turn.reject(order, f"{army} was destroyed")
    text = order.detail.strip() or "1"
    if not re.fullmatch(r"[0-9]+", text) or int(text) < 1:  # ASCII digits only: "²".isdigit() is True
        return turn.reject(order, f'"{order.detail}" is not a number of Samurai (write a whole number such as 2)')
    count = int(text)
    if rally and count > settings.rally_samurai_max:
        return turn.reject(order, f"at most {settings.rally_samurai_max} Samurai can be rallied in one order")
    price = settings.rally_samurai_cost if rally else settings.hire_samurai_cost
    cost = count * price
    treasury = int(draft.get("Clans", clan, "Treasury"))
    if treasury < cost:
        return turn.reject(
            order,
            f"not enough Mon: {count} Samurai cost {cost} ({price} each) and the treasury holds {treasury}",
        )
    draft.set("Clans", clan, "Treasury", treasury - cost, order.cause)
    draft.set("Armies", army, "Samurai", int(armies.at[army, "Samurai"]) + count, order.cause)
    verb = "Rallied" if rally else "Hired"
    turn.resolve(order, f"{verb} {count} Samurai into {army} for {cost} Mon; {clan} treasury now {treasury - cost}")
