"""Guide Section 9, Execution (resolution step 4, "processed before mission resolution").

`execute` is a free action of the Daimyo. Valid targets: any living member of the executor's
clan wherever it stands, or a foreign character standing at the executor clan's Capital. One
attempt per Daimyo per turn: the latest execute order counts, earlier ones are Superseded.
Success when d20 <= clamp(execute_threshold + clamp(executor's - target's Authority,
-execute_authority_cap, +execute_authority_cap), 1, 20), Authority as at the start of the
resolution (Game keys; the guide's 18 and 5 are the template's values).
"""

from __future__ import annotations

from sheets_engine.sengoku.characters import alive, kill
from sheets_engine.sengoku.orders import find, unknown
from sheets_engine.sengoku.schema import OrderType
from sheets_engine.sengoku.succession import not_the_daimyo, start_authority
from sheets_engine.sengoku.turn import Order, Turn

D20_LOW, D20_HIGH = 1, 20  # the threshold stays on the die: 20 always succeeds, 1 only on a natural 1


def clamp(value: int, low: int, high: int) -> int:
    """The value, kept between low and high."""
    return max(low, min(high, value))


def execution_threshold(executor: int, target: int, base: int, cap: int) -> int:
    """clamp(base + clamp(executor - target, -cap, +cap), 1, 20): the highest d20 that succeeds."""
    return clamp(base + clamp(executor - target, -cap, cap), D20_LOW, D20_HIGH)


def settle(turn: Turn, order: Order, result: str, roll: str = "") -> None:
    """The order was carried out but earns no Missions effect (a failed execution or claim).

    `Turn.resolve` would give the Missions Authority, which the guide grants only for a
    successful execution and to a claim's winner.
    """
    turn.book.resolve(order.key, result, order.cause, roll)
    turn.summary["orders resolved"] += 1


def executions(turn: Turn) -> None:
    """Step 4: each Daimyo's latest execute order, in submission order; earlier ones are Superseded."""
    orders = turn.pending(OrderType.EXECUTE)
    latest = {order.character: order for order in orders}  # submission order: the last one stays
    for order in orders:
        kept = latest[order.character]
        if kept is not order:
            turn.book.supersede(
                order.key,
                f"only one execution attempt per Daimyo per turn: replaced by the later execute order {kept.given}",
                order.cause,
            )
    for order in orders:
        if latest[order.character] is order:
            execute(turn, order)


def execution_target(turn: Turn, order: Order) -> tuple[str, str]:
    """(target, "") for a target the executor may execute, else ("", the reason why not)."""
    draft = turn.draft
    characters = draft.frame("Characters")
    target = find(characters.index, order.target)
    if target is None:
        return "", unknown("character", order.target, characters.index)
    if target == order.character:
        return "", "a Daimyo cannot order his own execution"
    if not alive(turn, target):
        return "", f"{target} is already dead"
    clan = draft.get("Characters", order.character, "Clan")
    capital = draft.get("Clans", clan, "Capital")
    if draft.get("Characters", target, "Clan") == clan:
        return target, ""
    where = draft.get("Characters", target, "Location")
    if capital and where == capital:
        return target, ""
    return "", (
        f"{target} is neither of the {clan} clan nor at your capital {capital or '(none)'} "
        f"({target} is at {where or 'an unknown place'}); only clanmates and foreigners at your capital may be executed"
    )


def execute(turn: Turn, order: Order) -> None:
    """One execution attempt: a d20 against the threshold; the target dies or is warned."""
    reason = not_the_daimyo(turn, order)
    target, why = ("", "") if reason else execution_target(turn, order)
    if reason or why:
        return turn.reject(order, reason or why)
    executor = order.character
    clan = turn.draft.get("Characters", executor, "Clan")
    mine, theirs = start_authority(turn, executor), start_authority(turn, target)
    threshold = execution_threshold(mine, theirs, turn.settings.execute_threshold, turn.settings.execute_authority_cap)
    roll = turn.dice.d20(f"execution of {target} by {executor}")
    odds = f"d20 rolled {roll.value}, threshold {threshold} from Authority {mine} against {theirs}"
    if roll.value <= threshold:
        how = f"executed by order of {executor}, Daimyo of the {clan} clan"
        kill(turn, target, order.cause, str(roll), announce=not order.secret, how=how)
        turn.summary["executions"] += 1
        turn.resolve(order, f"{target} was executed: {odds}")
        return
    turn.notify(f"character:{executor}", "private", f"Your order to execute {target} failed: {odds}.")
    if not order.secret:
        turn.notify(
            f"character:{target}", "private",
            f"You were the subject of an assassination attempt: {executor}, Daimyo of the {clan} clan, "
            "ordered your execution, and it failed.",
        )  # fmt: skip
    settle(turn, order, f"The execution of {target} failed: {odds}", str(roll))
