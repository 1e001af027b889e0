"""A small campaign for rule tests: two clans, four provinces, a few characters and armies."""

from __future__ import annotations

from typing import Any

from sheets_engine.core.tables import GameState
from tests.support import clan, province, state

ODA_DAIMYO = "oda.nobunaga@example.com"
KATSUIE = "shibata.katsuie@example.com"
SHINGEN = "takeda.shingen@example.com"


def characters() -> list[dict[str, Any]]:
    """Oda Nobunaga (Daimyo), Shibata Katsuie, Takeda Shingen (Daimyo), a dead Saito Dosan."""
    return [
        {"Character": "Oda Nobunaga", "Email": ODA_DAIMYO, "Clan": "Oda", "Title": "Daimyo",
         "Authority": 7, "Location": "Owari", "Status": "Alive"},
        {"Character": "Shibata Katsuie", "Email": KATSUIE, "Clan": "Oda", "Title": "Karo",
         "Authority": 4, "Location": "Mino", "Status": "Alive"},
        {"Character": "Takeda Shingen", "Email": SHINGEN, "Clan": "Takeda", "Title": "Daimyo",
         "Authority": 6, "Location": "Kai", "Status": "Alive"},
        {"Character": "Saito Dosan", "Email": "saito.dosan@example.com", "Clan": "", "Title": "",
         "Authority": 2, "Location": "Mino", "Status": "Dead"},
    ]  # fmt: skip


def provinces(**changes: dict[str, Any]) -> list[dict[str, Any]]:
    """Owari (Oda capital, City), Mino (Oda), Kai (Takeda capital), Shinano (Takeda)."""
    rows = {
        "Owari": province("Owari", Type="City", Adjacent="Mino", Tax_Stockpile=2, Manpower_Stockpile=1),
        "Mino": province("Mino", Adjacent="Owari, Shinano", Tax_Stockpile=1, Manpower_Stockpile=2),
        "Kai": province("Kai", Type="City", Province_Owner="Takeda", Adjacent="Shinano"),
        "Shinano": province("Shinano", Province_Owner="Takeda", Adjacent="Kai, Mino"),
    }
    for name, values in changes.items():
        rows[name].update({k.replace("_", " "): v for k, v in values.items()})
    return list(rows.values())


def responses(*orders: tuple[str, str, str, str, str]) -> list[dict[str, Any]]:
    """Form responses (email, character, order, target, detail), a minute apart."""
    return [
        {"Timestamp": f"2026-11-28 12:{i:02d}:00", "Email Address": e, "Character": c, "Order": o,
         "Target": t, "Detail": d}
        for i, (e, c, o, t, d) in enumerate(orders)
    ]  # fmt: skip


def small(
    *orders: tuple[str, str, str, str, str],
    oda: dict[str, Any] | None = None,
    takeda: dict[str, Any] | None = None,
    game: dict[str, Any] | None = None,
    **tabs: Any,
) -> GameState:
    """The small campaign with these form responses and changes."""
    tabs.setdefault("provinces", provinces())
    tabs.setdefault("characters", characters())
    tabs.setdefault(
        "armies",
        [{"Army": "Oda Main Host", "Clan": "Oda", "Province": "Owari", "Spear": 4, "Status": "Field"}],
    )
    return state(
        game=game,
        clans=[
            clan("Oda", **{"Capital": "Owari", "Treasury": 10, **(oda or {})}),
            clan("Takeda", **{"Capital": "Kai", "Treasury": 10, **(takeda or {})}),
        ],
        form_responses_1=responses(*orders),
        **tabs,
    )
