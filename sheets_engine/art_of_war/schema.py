"""The Art of War's tabs and columns, as typed row models (headers exactly as the sheet spells them).

Game (key/value), Houses, Board, Pieces, Terrain (data: what each ground costs, covers and raises),
Orders (a person's house orders here, or through the Form), Form Responses 1, History and
Notifications (as every ruleset has them).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from sheets_engine.art_of_war.model import Kind
from sheets_engine.core.cells import Count, Flag, Text, Timestamp, enum_cell
from sheets_engine.core.history import history_spec
from sheets_engine.core.tables import TabSpec


class OrderStatus(StrEnum):
    """What became of an Orders row."""

    PENDING = "Pending"
    RESOLVED = "Resolved"
    REJECTED = "Rejected"
    SUPERSEDED = "Superseded"


class Raises(StrEnum):
    """What a terrain raises: a settler, a soldier, or nothing at all."""

    SETTLER = "settler"
    SOLDIER = "soldier"
    NOTHING = "nothing"


class Row(BaseModel):
    """A sheet row: columns by header, a GM's own columns ignored."""

    model_config = ConfigDict(populate_by_name=True, extra="ignore", use_enum_values=True)


class GameRow(Row):
    key: Text = Field(alias="Key")
    value: Text = Field(alias="Value")
    notes: Text = Field(alias="Notes")


class HouseRow(Row):
    house: Text = Field(alias="House")
    player: Text = Field(alias="Player")  # a person's email (or name); empty with a Temper: a bot plays the house
    temper: Text = Field(alias="Temper")  # a bot's temper (validate checks the word); empty: a person's house
    capital: Text = Field(alias="Capital")
    capital_raises: Annotated[Kind, enum_cell(Kind, Kind.SETTLER)] = Field(alias="Capital Raises")
    fallen: Flag = Field(alias="Fallen")
    mandate: Count = Field(alias="Mandate")
    capitals_taken: Count = Field(alias="Capitals Taken")


class BoardRow(Row):
    hex: Text = Field(alias="Hex")
    terrain: Text = Field(alias="Terrain")
    capital_of: Text = Field(alias="Capital Of")


class PieceRow(Row):
    piece: Text = Field(alias="Piece")
    house: Text = Field(alias="House")
    kind: Annotated[Kind, enum_cell(Kind)] = Field(alias="Kind")
    hex: Text = Field(alias="Hex")  # empty: the piece has left the board


class TerrainRow(Row):
    terrain: Text = Field(alias="Terrain")
    cost: Count = Field(alias="Cost", ge=1, le=2)
    cover: Count = Field(alias="Cover", le=9)
    raises: Annotated[Raises, enum_cell(Raises)] = Field(alias="Raises")


class OrderRow(Row):
    season: Count = Field(alias="Season")
    house: Text = Field(alias="House")
    order: Text = Field(alias="Order")  # raise or march (player text: judged when the house moves)
    moves: Text = Field(alias="Moves")
    capital_raises: Text = Field(alias="Capital Raises")
    status: Annotated[OrderStatus, enum_cell(OrderStatus, OrderStatus.PENDING)] = Field(alias="Status")
    result: Text = Field(alias="Result")
    marched: Text = Field(default="", alias="Marched")  # engine-owned: the steps carried out (for the map)
    email: Text = Field(default="", alias="Email")  # who sent it through the Form (empty: typed in the sheet)
    submitted: Text = Field(default="", alias="Submitted")  # when the Form response was sent


class ResponseRow(Row):
    """A Google Form response: player text, judged as an order when it is copied into Orders."""

    timestamp: Timestamp = Field(alias="Timestamp")
    email_address: Text = Field(alias="Email Address")
    house: Text = Field(alias="House")
    order: Text = Field(alias="Order")
    moves: Text = Field(alias="Moves")
    capital_raises: Text = Field(alias="Capital Raises")


NOTIFICATION_HEADERS = ("Turn", "Audience", "Channel", "Message", "Delivered")
ORDER_OPTIONAL = ("Marched", "Email", "Submitted")

TABS: tuple[TabSpec, ...] = (
    TabSpec("Game", GameRow, key="Key", rule_columns=("Value",)),
    TabSpec(
        "Houses",
        HouseRow,
        key="House",
        engine_columns=("Mandate",),
        rule_columns=("Capital Raises", "Fallen", "Capitals Taken"),
    ),
    TabSpec("Board", BoardRow, key="Hex", rule_columns=("Capital Of",)),
    TabSpec("Pieces", PieceRow, key="Piece", rule_columns=("House", "Hex")),
    TabSpec("Terrain", TerrainRow, key="Terrain", written=False),
    TabSpec("Orders", OrderRow, engine_columns=("Status", "Result", "Marched"), optional=ORDER_OPTIONAL),
    TabSpec("Form Responses 1", ResponseRow, written=False),
    TabSpec("Notifications", None, log=True, headers=NOTIFICATION_HEADERS, optional=("Delivered",)),
    history_spec(),
)
