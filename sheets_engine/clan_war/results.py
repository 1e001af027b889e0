"""The GM's Battle Results, checked before any is applied: every listed battle needs its Winner row; a
row must name a unit or personality that fought there, once; withdrawals go to one province the faction
controlled at the start of the turn, and every surviving unit of a losing faction withdraws."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from sheets_engine.clan_war import reincarnation, sides
from sheets_engine.clan_war.battles import Battle, result_rows
from sheets_engine.clan_war.game import Turn
from sheets_engine.clan_war.schema import NEUTRAL, UnitStatus
from sheets_engine.core.names import plural
from sheets_engine.core.problems import InvalidCampaign, Problem, Severity


def _and(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def waiting_for(turn: Turn, battles: list[Battle]) -> list[str]:
    """The provinces of the listed battles with no Battle Results row naming a winner yet, in order."""
    results = turn.draft.frame("Battle Results")
    mine = results[(results["Turn"] == turn.number) & (results["Winner"] != "")]
    have = set(mine["Province"])
    return [b.province for b in battles if b.province not in have]


def waiting_reason(turn: int, provinces: list[str], listed: int) -> str:
    """What a paused turn waits for, in the words `resolve` and `validate` use."""
    of = plural(len(provinces), "battle") if len(provinces) == listed else f"{len(provinces)} of its {listed} battles"
    return (
        f"turn {turn} waits for the Battle Results of {of}: {_and(provinces)} "
        "(no row with Turn, Province and Winner yet)"
    )


def missing(turn: Turn, battles: list[Battle]) -> list[Problem]:
    """A warning for every listed battle with no Battle Results row naming its winner: what the turn waits for."""
    waiting = waiting_for(turn, battles)
    return [
        Problem(
            "Battle Results",
            None,
            "Winner",
            "",
            f"a row with Turn {turn.number}, Province {b.province} and the Winner of the battle there "
            f"({', '.join(b.factions)}): the turn waits for it",
            Severity.WARNING,
        )
        for b in battles
        if b.province in waiting
    ]


def refuse_unusable(turn: Turn, battles: list[Battle]) -> None:
    """Raise InvalidCampaign (nothing written) for results that cannot be applied as they stand."""
    found = problems(turn, battles)
    if found:
        raise InvalidCampaign(found)


def problems(turn: Turn, battles: list[Battle]) -> list[Problem]:
    """Battle Results that cannot be applied as they stand (each at its row)."""
    found: list[Problem] = []
    rows_of = turn.draft.state.rows["Battle Results"]
    # a row of this turn for a province where nobody fought would be ignored: a typo or a battle that never was
    fought = [b.province for b in battles]
    frame = turn.draft.frame("Battle Results")
    for key in frame.index[(frame["Turn"] == turn.number) & ~frame["Province"].isin(fought)]:
        listed = f"turn {turn.number}: {', '.join(fought)}" if fought else f"turn {turn.number} has none"
        province = frame.at[key, "Province"]
        found.append(
            Problem(
                "Battle Results",
                rows_of.get(key),
                "Province",
                province,
                f"a province with a battle this turn ({listed})",
            )
        )
    for battle in battles:
        rows = result_rows(turn, battle.province)
        winners = [(k, r) for k, r in rows if r["Winner"]]
        if len(winners) > 1:
            key, row = winners[1]
            found.append(
                Problem(
                    "Battle Results",
                    rows_of.get(key),
                    "Winner",
                    row["Winner"],
                    f"one Winner row for the battle at {battle.province}",
                )
            )
        if not winners:
            continue
        wkey, wrow = winners[0]
        winner = str(wrow["Winner"])
        if winner not in battle.factions:
            found.append(
                Problem(
                    "Battle Results",
                    rows_of.get(wkey),
                    "Winner",
                    winner,
                    f"one of the factions that fought at {battle.province}: {', '.join(battle.factions)}",
                )
            )
            continue
        switched = sides.switches(rows)
        for key, row in rows:
            if row["Switched Sides"]:
                why = sides.switch_problem(turn, battle.factions, str(row["Switched Sides"]), str(row["Sided With"]))
                column = "Switched Sides" if str(row["Switched Sides"]) not in battle.factions else "Sided With"
                if why:
                    found.append(Problem("Battle Results", rows_of.get(key), column, row[column], why))
        found += reincarnation.problems(turn, battle.province, rows)
        side = sides.winning_side(turn, battle.factions, winner, switched)
        control = str(wrow["Control"])
        allowed = set(side) | {NEUTRAL}
        owner = str(turn.draft.get("Provinces", battle.province, "Original Owner"))
        if owner and owner in turn.allies(winner):
            allowed.add(owner)  # a liberated ally's province may be returned to it
        if control and control not in allowed:
            found.append(
                Problem(
                    "Battle Results",
                    rows_of.get(wkey),
                    "Control",
                    control,
                    f"empty (by the rules), neutral, or one of: {', '.join(sorted(allowed - {NEUTRAL}))}",
                )
            )
        withdraw: dict[str, str] = {}
        named: set[str] = set()  # factions whose rows name a province to withdraw to (good or not)
        seen: dict[str, int | None] = {}  # unit or personality -> its row
        for key, row in rows:
            if not (row["Unit"] or row["Personality"]):
                continue
            name = str(row["Unit"] or row["Personality"])
            tab = "Units" if row["Unit"] else "Personalities"
            column = "Unit" if row["Unit"] else "Personality"
            where = str(turn.draft.get(tab, name, "Province"))
            faction = str(turn.draft.get(tab, name, "Faction"))
            if name in seen:
                twice = f"one row for {name} in the battle at {battle.province} (row {seen[name]} has it)"
                found.append(Problem("Battle Results", rows_of.get(key), column, name, twice))
                continue
            seen[name] = rows_of.get(key)
            in_play = turn.units(where) if row["Unit"] else turn.personalities(where)
            if name not in in_play:
                status = turn.draft.get(tab, name, "Status")
                gone = f"a unit or personality still in play ({name} is {status})"
                found.append(Problem("Battle Results", rows_of.get(key), column, name, gone))
                continue
            if where != battle.province:
                found.append(
                    Problem(
                        "Battle Results",
                        rows_of.get(key),
                        "Unit" if row["Unit"] else "Personality",
                        name,
                        f"a unit or personality that fought at {battle.province} (it is at {where})",
                    )
                )
                continue
            if row["Unit"] and row["Models Lost"] > int(turn.draft.get("Units", name, "Models")):
                found.append(
                    Problem(
                        "Battle Results",
                        rows_of.get(key),
                        "Models Lost",
                        row["Models Lost"],
                        f"at most the {turn.draft.get('Units', name, 'Models')} models of {name}",
                    )
                )
            target = str(row["Withdraw To"])
            if target:
                named.add(faction)
                if target not in retreats(turn, faction, battle.province, lost=faction not in side):
                    here = f" other than {target}, where it lost" if target == battle.province else ""
                    found.append(
                        Problem(
                            "Battle Results",
                            rows_of.get(key),
                            "Withdraw To",
                            target,
                            f"a province {faction} controlled at the start of the turn{here}",
                        )
                    )
                elif withdraw.setdefault(faction, target) != target:
                    found.append(
                        Problem(
                            "Battle Results",
                            rows_of.get(key),
                            "Withdraw To",
                            target,
                            f"{withdraw[faction]}: all of {faction}'s withdrawing forces retreat to the same province",
                        )
                    )
            elif row["Left Table"]:
                found.append(
                    Problem(
                        "Battle Results",
                        rows_of.get(key),
                        "Withdraw To",
                        "",
                        f"the province {name} withdraws to (one {faction} controlled at the start of the turn)",
                    )
                )
        for faction in battle.factions:
            if faction in side or faction in named:
                continue
            standing = [u for u in turn.units(battle.province, faction) if not _destroyed_by(rows, u)]
            if standing:
                found.append(_no_withdrawal(turn, battle, faction, standing, rows))
    return found


def retreats(turn: Turn, faction: str, province: str, lost: bool = True) -> set[str]:
    """Where a faction's forces may withdraw: a province it controlled at the start of the turn, for the losers
    never the one they lost (a faction that held no other, as Toturi's Army may, withdraws next to the battle)."""
    held = {p for p, holder in turn.start_control.items() if holder == faction and not (lost and p == province)}
    return held or set(turn.neighbours(province))


def _no_withdrawal(
    turn: Turn, battle: Battle, faction: str, standing: list[str], rows: list[tuple[Hashable, dict[str, Any]]]
) -> Problem:
    """A losing faction whose rows name no Withdraw To: at its own first row, else (no row at all) at no row,
    naming its units."""
    rows_of = turn.draft.state.rows["Battle Results"]
    why = (
        f"{faction} lost at {battle.province}: {', '.join(standing)} withdraw to a province {faction} controlled "
        "at the start of the turn"
    )
    for key, row in rows:
        name = str(row["Unit"] or row["Personality"])
        tab = "Units" if row["Unit"] else "Personalities"
        if name and turn.draft.has(tab, name) and turn.draft.get(tab, name, "Faction") == faction:
            return Problem("Battle Results", rows_of.get(key), "Withdraw To", "", f"the province where {why}")
    return Problem(
        "Battle Results",
        None,
        "Unit",
        standing[0],
        f"a row for {standing[0]} at {battle.province} with its Withdraw To: {why}",
    )


def _destroyed_by(rows: list[tuple[Hashable, dict[str, Any]]], unit: str) -> bool:
    return any(r["Unit"] == unit and r["Final Status"] == UnitStatus.DESTROYED.value for _, r in rows)
