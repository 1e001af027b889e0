"""What one map picture shows (issue 27): a clan's own region, labels that never collide, a legend
that never runs off, and bordering clans in different styles."""

from __future__ import annotations

from collections.abc import Hashable

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sheets_engine.mapview import (
    Entry,
    Label,
    Views,
    borders,
    candidates,
    clan_styles,
    clan_window,
    covers,
    fit_legend,
    overlaps,
    place_labels,
)
from sheets_engine.sengoku.generate import generate
from tests.support import examples
from tests.test_map_layout import campaign_map, grid_places

SCALE, CHAR_WIDTH, CHAR_HEIGHT, RADIUS = 10.0, 6.0, 10.0, 4.0  # pixels per unit, a character, a point


def holders(provinces: int) -> tuple[list[str], dict[Hashable, str]]:
    """The clans (in row order) and each province's owner of a generated campaign."""
    tabs = generate(provinces, seed=1560)
    header, *rows = tabs["Provinces"]
    name, owner = header.index("Province"), header.index("Province Owner")
    return [row[0] for row in tabs["Clans"][1:]], {row[name]: row[owner] or "" for row in rows}


@pytest.fixture(scope="module")
def world() -> tuple[nx.Graph, dict[Hashable, tuple[float, float]], list[str], dict[Hashable, str]]:
    """A generated campaign of 10,000 provinces on the generator's own grid (a link is 1 long)."""
    graph = campaign_map(10_000)
    clans, owner = holders(10_000)
    return graph, grid_places(graph, link=1.0), clans, owner


def test_a_clans_window_holds_every_own_province_and_neighbour(world: tuple) -> None:
    graph, places, clans, owner = world
    views = Views(places, graph)
    for clan in clans:
        own = [p for p, c in owner.items() if c == clan]
        window = views.clan(own, aspect=11 / 7)
        wanted = set(own) | {q for p in own for q in graph.neighbors(p)}
        assert wanted <= set(window.provinces), clan
        assert all(window.left <= places[p][0] <= window.right for p in wanted)
        assert all(window.bottom <= places[p][1] <= window.top for p in wanted)
        assert window.width / window.height == pytest.approx(11 / 7)


def test_a_clans_window_at_10000_provinces_shows_its_region_not_the_world(world: tuple) -> None:
    graph, places, clans, owner = world
    views = Views(places, graph)
    own = [p for p, c in owner.items() if c == clans[0]]
    window = views.clan(own, aspect=11 / 7)
    assert len(own) == 16 and len(window.provinces) < 150  # of 10,000
    assert window.width < 20  # links: over 60 pixels a link on today's map, 1,210 pixels wide
    whole = views.whole(aspect=11 / 7)
    assert len(whole.provinces) == 10_000 and whole.width > 100


def test_a_window_is_at_least_its_least_size_around_a_lone_province() -> None:
    places = {f"p{k}": (float(k), 0.0) for k in range(40)}
    graph = nx.path_graph(list(places))
    window = clan_window(places, ["p20"], graph)
    assert window.box == (17.0, -3.0, 23.0, 3.0)  # six links across, centred on p20
    assert window.provinces == ("p17", "p18", "p19", "p20", "p21", "p22", "p23")


def test_a_window_at_the_maps_edge_moves_inward_and_keeps_its_clan() -> None:
    places = {f"p{k}": (float(k), 0.0) for k in range(40)}
    graph = nx.path_graph(list(places))
    window = clan_window(places, ["p0"], graph)
    assert window.box == (-1.0, -3.0, 5.0, 3.0)  # not (-3, 3): the margin is all it shows beyond the edge
    assert {"p0", "p1"} <= set(window.provinces)


def test_a_clan_without_provinces_sees_the_whole_map() -> None:
    places = {"Owari": (0.0, 0.0), "Mino": (4.0, 2.0)}
    window = clan_window(places, [], nx.Graph([("Owari", "Mino")]))
    assert window.box == (-1.0, -1.0, 5.0, 3.0) and window.provinces == ("Owari", "Mino")


def test_a_label_goes_above_its_point_when_nothing_is_in_the_way() -> None:
    shown = place_labels([Label("Owari", "Owari", 0.0, 0.0)], SCALE, CHAR_WIDTH, CHAR_HEIGHT, RADIUS)
    # 5 characters of 6 pixels and a pixel of air each side: 32 pixels wide; 5 pixels above the centre
    assert [(p.key, p.box) for p in shown] == [("Owari", (-1.6, 0.5, 1.6, 1.5))]
    assert (shown[0].x, shown[0].y) == (0.0, 1.0)


def test_the_label_that_matters_more_keeps_its_place_and_the_other_moves_below() -> None:
    labels = [Label("Mino", "Mino", 0.0, 0.0, priority=1), Label("Owari", "Owari", 0.5, 0.0, priority=3)]
    shown = {p.key: p.box for p in place_labels(labels, SCALE, CHAR_WIDTH, CHAR_HEIGHT, RADIUS)}
    above, below = candidates(labels[0], SCALE, CHAR_WIDTH, CHAR_HEIGHT, RADIUS)[:2]
    assert shown == {"Owari": candidates(labels[1], SCALE, CHAR_WIDTH, CHAR_HEIGHT, RADIUS)[0], "Mino": below}
    assert overlaps(above, shown["Owari"])  # Mino's first choice was Owari's


def test_labels_never_collide_on_a_crowded_map(world: tuple) -> None:
    graph, places, clans, owner = world
    window = Views(places, graph).clan([p for p, c in owner.items() if c == clans[0]], aspect=11 / 7)
    scale = 1210 / window.width
    labels = [Label(p, str(p), *places[p], priority=2 if owner[p] == clans[0] else 1) for p in window.provinces]
    points = [places[p] for p in window.provinces]
    shown = place_labels(labels, scale, 6.6, 12.8, 0.28 * scale, points, window.box)
    assert len(shown) > 0.8 * len(labels)  # at a clan's scale nearly every province keeps its name
    boxes = [p.box for p in shown]
    assert not [(a, b) for k, a in enumerate(boxes) for b in boxes[k + 1 :] if overlaps(a, b)]
    assert not [(b, pt) for b in boxes for pt in points if covers(b, pt, 0.28)]


texts = st.text(alphabet="abcdefgh ", min_size=1, max_size=8)
labels_strategy = st.lists(
    st.tuples(
        texts,
        st.floats(0, 12, allow_nan=False),
        st.floats(0, 12, allow_nan=False),
        st.integers(0, 3),
    ),
    max_size=30,
)


@settings(max_examples=examples(150), deadline=None)
@given(
    drawn=labels_strategy,
    extra=st.lists(st.tuples(st.floats(0, 12), st.floats(0, 12)), max_size=10),
    windowed=st.booleans(),
    obstacle=st.one_of(st.none(), st.tuples(st.floats(0, 10), st.floats(0, 10))),
)
def test_shown_labels_never_overlap_never_cover_a_point_and_are_dropped_only_when_blocked(
    drawn: list[tuple[str, float, float, int]],
    extra: list[tuple[float, float]],
    windowed: bool,
    obstacle: tuple[float, float] | None,
) -> None:
    labels = [Label(k, text, x, y, float(priority)) for k, (text, x, y, priority) in enumerate(drawn)]
    points = [(label.x, label.y) for label in labels] + extra
    window = (1.0, 1.0, 11.0, 11.0) if windowed else None
    obstacles = [(obstacle[0], obstacle[1], obstacle[0] + 2, obstacle[1] + 1)] if obstacle else []
    shown = place_labels(labels, SCALE, CHAR_WIDTH, CHAR_HEIGHT, RADIUS, points, window, obstacles)
    disc = RADIUS / SCALE
    boxes = {p.key: p.box for p in shown}
    assert [p.key for p in shown] == sorted(boxes)  # in the order given
    for k, box in boxes.items():
        assert box in candidates(labels[k], SCALE, CHAR_WIDTH, CHAR_HEIGHT, RADIUS)
        assert not any(covers(box, point, disc) for point in points)
        assert not any(overlaps(box, other) for other in obstacles)
        assert not any(overlaps(box, boxes[o]) for o in boxes if o != k)
        if window:
            assert window[0] <= box[0] and box[2] <= window[2] and window[1] <= box[1] and box[3] <= window[3]
    for label in labels:
        if label.key in boxes or (window and not (1 <= label.x <= 11 and 1 <= label.y <= 11)):
            continue
        turn = (-label.priority, label.key)
        before = [boxes[o.key] for o in labels if o.key in boxes and (-o.priority, o.key) < turn]  # placed first
        for box in candidates(label, SCALE, CHAR_WIDTH, CHAR_HEIGHT, RADIUS):  # every spot was blocked
            outside = window is not None and not (
                window[0] <= box[0] and box[2] <= window[2] and window[1] <= box[1] and box[3] <= window[3]
            )
            assert (
                outside
                or any(covers(box, point, disc) for point in points)
                or any(overlaps(box, other) for other in obstacles + before)
            )


def entries(count: int) -> list[Entry]:
    return [Entry(f"Clan {k}", k % 7, 100 - k) for k in range(count)]


@settings(max_examples=examples(200), deadline=None)
@given(
    clans=st.integers(0, 450),
    height=st.floats(0, 900),
    row=st.floats(1, 40),
    width=st.one_of(st.none(), st.floats(1, 300)),
)
def test_the_legend_never_runs_off_its_space(clans: int, height: float, row: float, width: float | None) -> None:
    legend = fit_legend(entries(clans), height, row, width, 6.0, viewer="Clan 3", near=["Clan 9"])
    rows = len(legend.shown) + (1 if legend.more_text else 0)
    assert rows * row <= height
    assert len(legend.shown) + legend.more == clans
    if width is not None:
        assert all(len(text) * 6.0 <= max(width, 6.0) for text in (*legend.texts, legend.more_text))


def test_the_legend_shows_the_viewer_then_the_clans_near_it_then_the_largest() -> None:
    clans = [Entry("Oda", "a", 5), Entry("Takeda", "b", 40), Entry("Uesugi", "c", 9), Entry("Mori", "d", 30)]
    clans += [Entry("Hojo", "e", 12), Entry("Date", "f", 3)]
    legend = fit_legend(clans, height=100, row_height=20, viewer="Oda", near=["Date", "Uesugi"])
    assert [e.name for e in legend.shown] == ["Oda", "Uesugi", "Date", "Takeda"]
    assert legend.texts == ("Oda (5)", "Uesugi (9)", "Date (3)", "Takeda (40)")
    assert (legend.more, legend.more_text) == (2, "and 2 more clans")


def test_every_clan_fits_without_a_more_row_and_the_more_row_takes_the_last_place() -> None:
    assert fit_legend(entries(5), 100, 20).more_text == ""
    legend = fit_legend(entries(6), 100, 20)  # five rows: four clans, then the fifth row says the rest
    assert (len(legend.shown), legend.more_text) == (4, "and 2 more clans")
    assert fit_legend(entries(2), 20, 20).more_text == "and 2 more clans"
    nothing = fit_legend(entries(2), 19, 20)  # not a row's height: nothing is written
    assert (nothing.shown, nothing.more, nothing.more_text) == ((), 2, "")


def test_a_long_clan_name_is_cut_to_the_legends_width_keeping_its_count() -> None:
    legend = fit_legend([Entry("Chosokabe of Tosa and Awa", "a", 12)], 20, 20, width=72, char_width=6)
    assert legend.texts == ("Chosok… (12)",)  # twelve characters of six pixels


def test_bordering_clans_never_share_a_style_and_the_first_keep_their_own(world: tuple) -> None:
    graph, _, clans, owner = world
    touching = borders(graph, owner)
    styles = clan_styles(clans, touching, 28)  # 7 colours times 4 hatches
    assert len(clans) == 400 and len(touching) > 900
    assert [(a, b) for a, b in touching if styles[a] == styles[b]] == []
    assert [styles[c] for c in clans[:28]] == list(range(28))  # the demo's colours stay as they are
    assert set(styles.values()) <= set(range(28))


def test_styles_run_out_gracefully_on_a_map_where_every_clan_borders_every_other() -> None:
    clans = [f"c{k}" for k in range(5)]
    styles = clan_styles(clans, [(a, b) for a in clans for b in clans if a < b], 3)
    assert styles == {"c0": 0, "c1": 1, "c2": 2, "c3": 0, "c4": 1}  # the least used around it
