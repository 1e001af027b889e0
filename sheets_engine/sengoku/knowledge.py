"""Guide Sections 2 and 5: Knowledge, tech points and the five tech trees.

Knowledge comes from buildings (step 2) and missions (step 6); at step 11 every full
`tech_point_cost` of the pool becomes an unallocated tech point (the pool keeps the rest). A
Daimyo or Shikibu Kyo spends points in the Tech Choices tab (the guide's Discord buttons); the
choices are read at the next resolution's step 1, so the new level counts from step 2 on.
"""

from __future__ import annotations

from sheets_engine.core.names import plural
from sheets_engine.sengoku.derived import building_effects, controlling_clan
from sheets_engine.sengoku.orders import find, unknown
from sheets_engine.sengoku.schema import CharacterStatus, ChoiceStatus, OrderType
from sheets_engine.sengoku.turn import Turn


def spend_tech_points(turn: Turn) -> None:
    """Step 1: each Pending Tech Choices row spends one point of its clan, in row order."""
    draft = turn.draft
    characters = draft.frame("Characters")
    titles = turn.settings.titles_for_tech
    for key, row in draft.frame("Tech Choices").iterrows():
        if row["Status"] != ChoiceStatus.PENDING.value:
            continue
        clan, discipline = row["Clan"], row["Discipline"]
        name = find(characters.index, row["Character"])
        cause = f"tech choice of {row['Character'] or 'nobody'}"
        reason = ""
        if name is None:
            reason = unknown("character", row["Character"], characters.index)
        elif characters.at[name, "Clan"] != clan or characters.at[name, "Status"] != CharacterStatus.ALIVE.value:
            reason = f"{name} is not a living member of {clan}"
        elif characters.at[name, "Title"].casefold() not in titles:
            title = characters.at[name, "Title"] or "untitled"
            reason = f"only a {turn.settings.tech_titles} may choose tech; {name} is {title}"
        elif int(draft.get("Clans", clan, "Tech Points")) < 1:
            reason = f"{clan} has no unallocated tech point"
        if reason:
            draft.set("Tech Choices", key, "Status", ChoiceStatus.REJECTED.value, cause)
            turn.notify(
                f"character:{row['Character']}",
                "private",
                f"Tech choice for {discipline} rejected: {reason}.",
            )
            continue
        level = int(draft.get("Clans", clan, discipline)) + 1
        draft.set("Clans", clan, discipline, level, cause)
        draft.set("Clans", clan, "Tech Points", int(draft.get("Clans", clan, "Tech Points")) - 1, cause)
        draft.set("Tech Choices", key, "Status", ChoiceStatus.SPENT.value, cause)
        turn.notify(f"clan:{clan}", "capital", f"{clan} advances {discipline} to level {level} (chosen by {name}).")


def building_knowledge(turn: Turn) -> None:
    """Step 2: each clan gains the Knowledge of the buildings in the provinces it controls."""
    draft = turn.draft
    provinces = draft.frame("Provinces")
    gained = (
        building_effects(provinces, draft.frame("Buildings"))["Knowledge"].groupby(controlling_clan(provinces)).sum()
    )
    for clan, amount in gained.items():
        if clan and amount and clan in draft.frame("Clans").index:
            before = int(draft.get("Clans", clan, "Knowledge"))
            draft.set("Clans", clan, "Knowledge", before + int(amount), "knowledge from buildings")


def knowledge_missions(turn: Turn) -> None:
    """Step 6, knowledge: trade-mission (with another clan), meditate, experiment."""
    clans = turn.draft.frame("Clans")
    for order in turn.pending(OrderType.TRADE_MISSION, OrderType.MEDITATE, OrderType.EXPERIMENT):
        own = turn.draft.get("Characters", order.character, "Clan")
        if not own:
            turn.reject(order, f"{order.character} belongs to no clan")
            continue
        if order.type is OrderType.TRADE_MISSION:
            partner = find(clans.index, order.target)
            if partner is None:
                turn.reject(order, unknown("clan", order.target, clans.index))
                continue
            if partner == own:
                turn.reject(order, "a trade mission goes to another clan, not your own")
                continue
            turn.resolve(order, f"Trade mission to {partner} completed")
        elif order.type is OrderType.MEDITATE:
            turn.resolve(order, "Meditation completed")
        else:
            turn.resolve(order, "Experiment completed")


def convert_knowledge(turn: Turn) -> None:
    """Step 11: Knowledge becomes tech points at tech_point_cost; the pool keeps the remainder."""
    draft = turn.draft
    cost = turn.settings.tech_point_cost
    for clan, row in draft.frame("Clans").iterrows():
        points, rest = divmod(int(row["Knowledge"]), cost)
        if points:
            cause = "knowledge becomes tech points"
            draft.set("Clans", clan, "Knowledge", rest, cause)
            draft.set("Clans", clan, "Tech Points", int(row["Tech Points"]) + points, cause)
        unspent = int(draft.get("Clans", clan, "Tech Points"))
        if unspent:
            turn.notify(
                f"clan:{clan}",
                "capital",
                f"{clan} has {plural(unspent, 'unallocated tech point')}: your Daimyo or Shikibu Kyo chooses a tree "
                "(Development, Expansion, Warfare, Piety, Learning) by adding a row to Tech Choices.",
            )
