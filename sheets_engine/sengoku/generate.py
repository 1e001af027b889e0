"""Synthetic campaigns of any size, for benchmarks and scale tests: the same seed, the same campaign.

The map is a jittered grid: each province touches its right and lower neighbours, and some of
its lower-right ones, so adjacency is planar, two-way and connected, as a real map is. Clans
grow from their capitals outward; buildings respect kind, resource and slots; every order type
appears in the form responses.
"""

from __future__ import annotations

import math
import random
from collections import deque
from typing import Any

from sheets_engine.sengoku.ruleset import build
from sheets_engine.templates import template_tabs

SYLLABLES = (
    "ka", "ki", "ku", "ko", "sa", "shi", "su", "so", "ta", "chi", "tsu", "to", "na", "ni", "no", "ha",
    "hi", "fu", "mi", "mo", "ya", "yu", "yo", "ra", "ri", "ro", "wa", "ga", "go", "da", "ba", "be",
)  # fmt: skip
TERRAIN_WEIGHTS = {"Plains": 4, "Forest": 3, "Hills": 3, "Mountains": 2, "Marsh": 1, "River": 2, "Coast": 2}
RESOURCES = ("Rice", "Fish", "Gold", "Iron", "Silk", "Horses")
CLAN_NAMES = (
    "Oda", "Takeda", "Uesugi", "Mori", "Imagawa", "Hojo", "Shimazu", "Date", "Chosokabe", "Otomo",
    "Tokugawa", "Asai", "Asakura", "Miyoshi", "Rokkaku", "Saito", "Satake", "Nanbu", "Mogami", "Ukita",
)  # fmt: skip


def _name(rng: random.Random, taken: set[str], parts: int = 2) -> str:
    while True:
        name = "".join(rng.choice(SYLLABLES) for _ in range(parts)).capitalize()
        if name not in taken:
            taken.add(name)
            return name
        parts = min(parts + 1, 5) if rng.random() < 0.3 else parts


def _clan_names(count: int) -> list[str]:
    names = list(CLAN_NAMES[:count])
    while len(names) < count:
        names.append(f"{CLAN_NAMES[len(names) % len(CLAN_NAMES)]} {len(names) // len(CLAN_NAMES) + 1}")
    return names


def generate(provinces: int, clans: int | None = None, seed: int = 1) -> dict[str, list[list[Any]]]:
    """A valid Sengoku campaign with this many provinces, as tab rows (header first)."""
    if provinces < 2:
        raise ValueError("a campaign needs at least 2 provinces")
    clans = clans if clans is not None else max(2, min(provinces // 12, 400))
    clans = max(1, min(clans, provinces // 2))
    rng = random.Random(f"generate:{seed}:{provinces}:{clans}")
    tabs = template_tabs(build())
    buildings = [dict(zip(tabs["Buildings"][0], row, strict=True)) for row in tabs["Buildings"][1:]]

    # the map: a grid, width ~ sqrt(N), with some diagonals
    width = max(1, math.isqrt(provinces))
    taken: set[str] = set()
    names = [_name(rng, taken, 2 if provinces < 500 else 3) for _ in range(provinces)]
    links: list[set[int]] = [set() for _ in range(provinces)]
    for i in range(provinces):
        c = i % width
        candidates = []
        if c + 1 < width and i + 1 < provinces:
            candidates.append(i + 1)
        if i + width < provinces:
            candidates.append(i + width)
        if c + 1 < width and i + width + 1 < provinces and rng.random() < 0.5:
            candidates.append(i + width + 1)
        for j in candidates:
            links[i].add(j)
            links[j].add(i)

    # clans grow outward from capitals spread over the map
    clan_names = _clan_names(clans)
    capitals = sorted(rng.sample(range(provinces), clans))
    owner = [""] * provinces
    queue = deque((cap, k) for k, cap in enumerate(capitals))
    for cap, k in zip(capitals, range(clans), strict=True):
        owner[cap] = clan_names[k]
    while queue:
        here, k = queue.popleft()
        for there in sorted(links[here]):
            if not owner[there]:
                owner[there] = clan_names[k]
                queue.append((there, k))
    capital_set = set(capitals)
    for i in range(provinces):  # a few provinces belong to nobody
        if i not in capital_set and rng.random() < 0.04:
            owner[i] = ""

    province_rows = []
    terrain_names, weights = zip(*TERRAIN_WEIGHTS.items(), strict=True)
    for i in range(provinces):
        city = i in capital_set or rng.random() < 0.2
        resource = rng.choice(RESOURCES) if rng.random() < 0.6 else ""
        fitting = [
            b["Building"]
            for b in buildings
            if b["Kind"] == "Universal"
            or (b["Kind"] == "City" and city)
            or (b["Kind"] == "RGO" and b["Resource"] == resource)
        ]
        built = rng.sample(fitting, k=min(len(fitting), rng.choice((0, 0, 1, 1, 2, 3))))
        fortress = 0
        if "Fortress" in built or i in capital_set:
            if "Fortress" not in built:
                built = ["Fortress", *built[:3]]
            fortress = rng.randint(1, 3)
        row = {
            "Province": names[i],
            "Type": "City" if city else "Rural",
            "Resource": resource,
            "Terrain": rng.choices(terrain_names, weights)[0],
            "Province Owner": owner[i],
            "Adjacent": ", ".join(names[j] for j in sorted(links[i])),
            "Fortress Level": fortress,
            "Tax Stockpile": rng.randint(0, 3),
            "Manpower Stockpile": rng.randint(0, 3),
        }
        for slot, building in enumerate(built[:4], start=1):
            row[f"Building {slot}"] = building
        province_rows.append(row)

    clan_rows = [
        {"Clan": name, "Treasury": rng.randint(10, 60), "Knowledge": rng.randint(0, 9),
         "Development": rng.randint(0, 2), "Expansion": rng.randint(0, 2), "Warfare": rng.randint(0, 3),
         "Piety": rng.randint(0, 5), "Learning": rng.randint(0, 3), "Tech Points": 0, "Capital": names[cap]}
        for name, cap in zip(clan_names, capitals, strict=True)
    ]  # fmt: skip

    # characters: a Daimyo and up to three retainers per clan; armies in the clan's provinces
    held: dict[str, list[int]] = {n: [] for n in clan_names}
    for i, clan in enumerate(owner):
        if clan:
            held[clan].append(i)
    character_rows: list[dict[str, Any]] = []
    army_rows: list[dict[str, Any]] = []
    people: dict[str, list[str]] = {}
    titles = ("Daimyo", "Shikibu Kyo", "Karo", "")
    for k, clan in enumerate(clan_names):
        members = []
        for t, title in enumerate(titles[: 2 + rng.randint(0, 2)]):
            person = f"{clan} {_name(rng, taken)}"
            members.append(person)
            character_rows.append({
                "Character": person, "Player": f"player{k}_{t}", "Email": f"player{k}.{t}@example.com",
                "Clan": clan, "Title": title, "Authority": rng.randint(0, 8) + (3 if title == "Daimyo" else 0),
                "Location": names[capitals[k]], "Status": "Alive",
            })  # fmt: skip
        people[clan] = members
        for a in range(max(1, len(held[clan]) // 4)):
            where = capitals[k] if a == 0 else rng.choice(held[clan])
            leader = members[a] if a < len(members) else ""
            army_rows.append({
                "Army": f"{clan} Army {a + 1}", "Clan": clan, "Province": names[where], "Leader": leader,
                "Spear": rng.randint(0, 12), "Sword": rng.randint(0, 8), "Archer": rng.randint(0, 8),
                "Cavalry": rng.randint(0, 6), "Firearm": rng.randint(0, 4), "Samurai": rng.randint(0, 3),
                "Siege": rng.randint(0, 1), "Moved": False, "Status": "Field",
            })  # fmt: skip
            if leader:
                for row in character_rows:
                    if row["Character"] == leader:
                        row["Location"] = names[where]

    responses = _responses(rng, clan_names, people, held, names, army_rows, links, buildings)
    alliances = []
    for k in range(0, clans - 1, 3):
        one, other = clan_names[k], clan_names[k + 1]
        alliances += [{"Clan": one, "Ally": other, "Secret": False, "Since Turn": 0},
                      {"Clan": other, "Ally": one, "Secret": False, "Since Turn": 0}]  # fmt: skip

    def rows(tab: str, records: list[dict[str, Any]]) -> list[list[Any]]:
        header = tabs[tab][0]
        return [header] + [[r.get(c) for c in header] for r in records]

    tabs["Game"] = [r if r[0] != "campaign" else ["campaign", f"Generated {provinces} provinces", r[2]]
                    for r in tabs["Game"]]  # fmt: skip
    tabs["Game"] = [r if r[0] != "seed" else ["seed", str(seed), r[2]] for r in tabs["Game"]]
    tabs["Clans"] = rows("Clans", clan_rows)
    tabs["Provinces"] = rows("Provinces", province_rows)
    tabs["Characters"] = rows("Characters", character_rows)
    tabs["Armies"] = rows("Armies", army_rows)
    tabs["Alliances"] = rows("Alliances", alliances)
    tabs["Form Responses 1"] = rows("Form Responses 1", responses)
    return tabs


def _responses(
    rng: random.Random,
    clan_names: list[str],
    people: dict[str, list[str]],
    held: dict[str, list[int]],
    names: list[str],
    armies: list[dict[str, Any]],
    links: list[set[int]],
    buildings: list[dict[str, Any]],
) -> list[dict[str, Any]]:
    """One order per character, every order type in turn, mostly valid."""
    orders = ("tax-province", "recruit-levies", "build", "meditate", "trade-mission", "experiment",
              "hire-samurai", "lead-army", "write-letter", "establish-relations", "designate-ally",
              "claim-daimyo", "rally-samurai", "claim-shogunate", "execute")  # fmt: skip
    index = {n: i for i, n in enumerate(names)}
    by_clan_army: dict[str, list[dict[str, Any]]] = {}
    for army in armies:
        by_clan_army.setdefault(army["Clan"], []).append(army)
    responses = []
    n = 0
    for k, clan in enumerate(clan_names):
        other = clan_names[(k + 1) % len(clan_names)]
        for t, person in enumerate(people[clan]):
            order = orders[n % len(orders)]
            n += 1
            target = detail = ""
            mine = held[clan] or [0]
            if order in ("tax-province", "recruit-levies"):
                target = names[rng.choice(mine)]
            elif order == "build":
                target = names[rng.choice(mine)]
                detail = rng.choice([b["Building"] for b in buildings if b["Kind"] == "Universal"])
            elif order in ("hire-samurai", "rally-samurai"):
                target, detail = by_clan_army[clan][0]["Army"], "1"
            elif order == "lead-army":
                army = by_clan_army[clan][0]
                target = army["Army"]
                detail = names[min(links[index[army["Province"]]])]
            elif order in ("trade-mission", "establish-relations", "designate-ally"):
                target = other
            elif order == "write-letter":
                target, detail = other, f"Greetings from the {clan} clan."
            elif order == "execute":
                target = people[clan][-1]
            minute = n % 60
            responses.append({
                "Timestamp": f"2026-11-28 {10 + (n // 60) % 12:02d}:{minute:02d}:00",
                "Email Address": f"player{k}.{t}@example.com", "Character": person, "Order": order,
                "Target": target, "Detail": detail, "Secret": "",
            })  # fmt: skip
    return responses
