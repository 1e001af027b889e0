"""Guide Section 10: letters wait as Pending and go out at resolution, as many as Learning allows."""

from __future__ import annotations

import re

import pandas as pd

from sheets_engine.sengoku.characters import alive
from sheets_engine.sengoku.orders import find, unknown
from sheets_engine.sengoku.schema import Discipline, LetterStatus, OrderType
from sheets_engine.sengoku.turn import Turn


def letter_limit(tech: pd.DataFrame, learning: int) -> int | None:
    """Letters dispatched per turn at this Learning level (the highest Tech row at or below it).

    None means no limit.
    """
    rows = tech[(tech["Discipline"] == Discipline.LEARNING.value) & (tech["Level"] <= learning)]
    if rows.empty:
        return None
    value = rows.sort_values("Level").iloc[-1]["Letters"]
    return None if value is None or pd.isna(value) else int(value)


def write_letters(turn: Turn) -> None:
    """write-letter (a free action): the letter joins the Letters tab as Pending."""
    draft = turn.draft
    clans = draft.frame("Clans")
    for order in turn.pending(OrderType.WRITE_LETTER):
        if not alive(turn, order.character):  # executed earlier in this resolution (step 4)
            turn.reject(order, f"{order.character} died before the letter could be sent")
            continue
        to = find(clans.index, order.target)
        if to is None:
            turn.reject(order, unknown("clan", order.target, clans.index))
            continue
        if not order.detail.strip():
            turn.reject(order, "the letter has no text (write it in Detail)")
            continue
        name = _next_letter_id(draft.frame("Letters").index)
        draft.add_row(
            "Letters",
            {"Letter": name, "Turn": turn.number, "From": order.character, "To Clan": to,
             "Text": order.detail, "Status": LetterStatus.PENDING.value},
            order.cause,
        )  # fmt: skip
        turn.resolve(order, f"Letter {name} to {to} is waiting to be dispatched")
        turn.letters[name] = order  # dispatch (step 7) says what became of it


def _next_letter_id(taken: pd.Index) -> str:
    numbers = [int(m.group(1)) for t in taken if (m := re.fullmatch(r"L(\d+)", str(t)))]
    return f"L{max(numbers, default=0) + 1}"


def dispatch(turn: Turn) -> None:
    """Step 7: each clan's Pending letters go out oldest first, up to its Learning limit."""
    draft = turn.draft
    letters = draft.frame("Letters")
    characters = draft.frame("Characters")
    at_start = draft.state.frame("Characters")  # a sender killed this turn still counts for his clan
    clans = draft.frame("Clans")
    tech = draft.frame("Tech")
    pending = letters[letters["Status"] == LetterStatus.PENDING.value]
    pending = pending.assign(_order=range(len(pending))).sort_values(["Turn", "_order"], kind="stable")
    sent: dict[str, int] = {}
    for key, letter in pending.iterrows():
        sender = letter["From"]
        clan = characters.at[sender, "Clan"] if sender in characters.index else ""
        if not clan and sender in at_start.index:
            clan = at_start.at[sender, "Clan"]
        learning = int(clans.at[clan, "Learning"]) if clan in clans.index else 0
        limit = letter_limit(tech, learning)
        if limit is not None and sent.get(clan, 0) >= limit:
            continue
        sent[clan] = sent.get(clan, 0) + 1
        cause = f"letter {key} dispatched"
        draft.set("Letters", key, "Status", LetterStatus.DELIVERED.value, cause)
        draft.set("Letters", key, "Delivered Turn", turn.number, cause)
        origin = f" of {clan}" if clan else ""
        turn.notify(f"clan:{letter['To Clan']}", "letters", f"Letter from {sender}{origin}: {letter['Text']}")
        written = turn.letters.get(str(key))
        if written is not None:  # the Result says what the turn settled, not what it expected
            draft.set("Orders", written.key, "Result", f"Letter {key} to {letter['To Clan']} was delivered", cause)
    turn.summary["letters dispatched"] = sum(sent.values())
    turn.summary["letters waiting"] = len(pending) - sum(sent.values())
