"""Undo is the phone's own, taking back a save is a correction, the history restores nothing
silently, and a conflict shows the difference. Each phone is a test client of its
own (its own cookies, so its own phone: scoring.web.phones)."""

import pytest
from django.test import Client

from scoring.models import Game, GameEvent
from tests.conftest import delete_post, round_post, totals
from tests.links import url
from tests.pages import read

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


def text(answer) -> str:
    return read(answer).text


def undos(answer) -> list[str]:
    """The Undo buttons the page offers."""
    return read(answer).texts("button[value=undo]")


def headings(answer) -> list[str]:
    return read(answer).texts("h2")


@pytest.fixture
def ana() -> Client:
    return Client()


@pytest.fixture
def boris() -> Client:
    return Client()


@pytest.fixture
def two_saved_by_ana(ana) -> Game:
    """Four players, two rounds saved on Ana's phone."""
    game = Game.start(["Ana", "Boris", "Cyril", "Dana"])
    page = url("game", game.edit_token)
    ana.post(page, round_post(0, {1: 10, 2: 20, 3: 30}))
    ana.post(page, round_post(1, {0: 5, 2: 6, 3: 7}))
    return game


def page(game: Game) -> str:
    return url("game", game.edit_token)


def test_a_phone_gets_its_own_name_in_a_cookie_once(two_saved_by_ana):
    ana = Client()
    first = ana.get(page(two_saved_by_ana))
    cookie = first.cookies["rami_phone"]
    assert len(cookie.value) == 22 and cookie["httponly"] and cookie["samesite"] == "Lax"
    assert "rami_phone" not in ana.get(page(two_saved_by_ana)).cookies
    # Nothing else asks for it.
    assert "rami_phone" not in Client().get("/healthz").cookies


def test_a_deletion_offers_undo_on_its_own_phone_only(ana, boris, two_saved_by_ana):
    ana.post(page(two_saved_by_ana), delete_post(two_saved_by_ana, 2))
    mine = ana.get(page(two_saved_by_ana)).content.decode()
    assert "Round 2 was deleted." in text(mine) and undos(mine) == ["Undo"]
    theirs = boris.get(page(two_saved_by_ana)).content.decode()
    assert "Round 2 was deleted on another phone." in text(theirs)
    assert undos(theirs) == []
    # The watch-only page says it too, and offers nothing.
    watching = Client().get(url("view", two_saved_by_ana.view_token)).content.decode()
    assert "Round 2 was deleted on another phone." in text(watching)

    # Boris's phone cannot undo it, even by sending the form: it says why, changes nothing.
    event = two_saved_by_ana.events.first()
    refused = boris.post(
        page(two_saved_by_ana), {"action": "undo", "event": str(event.pk)}, headers=HTMX
    )
    assert refused.status_code == 409
    assert "Only the phone that made this change can undo it." in text(refused)
    assert two_saved_by_ana.rounds.count() == 1

    answer = ana.post(
        page(two_saved_by_ana), {"action": "undo", "event": str(event.pk)}, headers=HTMX
    )
    assert "Round 2 is back as it was." in text(answer)
    assert two_saved_by_ana.totals() == [5, 10, 26, 37]
    back = two_saved_by_ana.events.first()
    assert back.kind == GameEvent.Kind.RESTORED and back.undoes_id == event.pk
    # A second tap finds it done, and changes nothing.
    again = ana.post(page(two_saved_by_ana), {"action": "undo", "event": str(event.pk)})
    assert again.status_code == 409 and "already been undone" in text(again)
    assert two_saved_by_ana.rounds.count() == 2


def test_an_undo_that_a_later_change_depends_on_says_why_and_changes_nothing(
    ana, boris, two_saved_by_ana
):
    ana.post(page(two_saved_by_ana), delete_post(two_saved_by_ana, 2))
    deletion = two_saved_by_ana.events.first()
    boris.post(page(two_saved_by_ana), round_post(2, {0: 2, 1: 3, 3: 4}))
    html = ana.get(page(two_saved_by_ana)).content.decode()
    assert "Round 2 was deleted" not in text(html)  # no longer the latest change
    refused = ana.post(page(two_saved_by_ana), {"action": "undo", "event": str(deletion.pk)})
    assert refused.status_code == 409
    assert (
        "Round 2 can no longer be undone here: round 2 was changed after it. Nothing was changed"
        in text(refused)
    )
    assert two_saved_by_ana.rounds.count() == 2


def test_anas_undo_to_fix_while_boriss_phone_is_open(ana, boris):
    """An evening at the table: Ana takes back round 3 to tick "Not opened yet"; Boris's
    phone never offers an Undo of it; the game ends on the corrected totals."""
    game = Game.start(["Ana", "Boris"])
    address = page(game)
    ana.post(address, round_post(1, {0: 40}))
    ana.post(address, round_post(0, {1: 30}))
    saved = ana.post(address, round_post(1, {0: 20}), headers=HTMX).content.decode()
    round_ = game.rounds.get(number=3)
    fix = read(saved).one(".banner.saved a.fix-link").get("hx-get")
    # Boris's phone, open all along: the new round, and no Undo of Ana's.
    board = boris.get(address).content.decode()
    assert totals(board) == [60, 30] and "Undo" not in read(board).texts("a, button")

    form = ana.get(fix, headers=HTMX).content.decode()
    assert "Round 3, back in the form" in text(form)
    data = round_post(1, {0: (20, "not opened")}, action="correct")
    data.update(round=str(round_.pk), revision="1", for_round="3")
    ana.post(address, data, headers=HTMX)
    assert game.totals() == [40 + 45, 30]
    round_.refresh_from_db()
    assert (round_.number, round_.revision) == (3, 2)
    board = boris.get(address).content.decode()
    assert totals(board) == [85, 30] and "Undo" not in read(board).texts("a, button")

    history = ana.get(f"{address}history/").content.decode()
    assert headings(history)[:2] == ["Round 3 corrected", "Round 3 saved"]
    # Nothing to restore: the round was never deleted; its earlier version is one edit away.
    shown = read(history)
    assert not shown.select("button[value=restore]")
    assert shown.texts("button[value=go_back]") == ["Go back to the version before"]


def test_the_undo_of_a_save_is_no_longer_offered_once_another_phone_changed_the_round(
    ana, boris, two_saved_by_ana
):
    round_ = two_saved_by_ana.rounds.get(number=2)
    data = round_post(1, {0: 9, 2: 6, 3: 7}, round=str(round_.pk), revision="1")
    boris.post(f"{page(two_saved_by_ana)}rounds/2/", data)
    answer = ana.get(f"{page(two_saved_by_ana)}?fix={round_.pk}&number=2&revision=1", headers=HTMX)
    html = text(answer)
    assert "Round 2 was changed on another phone after it was saved here" in html
    assert "back in the form" not in html


def test_the_fixing_form_can_delete_the_round_with_its_own_undo(ana, two_saved_by_ana):
    round_ = two_saved_by_ana.rounds.get(number=2)
    data = {"action": "delete", "round": round_.pk, "number": 2, "revision": 1}
    html = ana.post(page(two_saved_by_ana), data, headers=HTMX).content.decode()
    assert "Round 2 was deleted." in text(html) and undos(html) == ["Undo"]


def test_a_restore_whose_place_was_filled_asks_first_and_then_adds_an_extra_round(ana):
    """The old Undo-to-fix (a deletion, then the round saved again) left "Restore round 1" in
    the history; one tap made two rounds 1 and 2 with the old hands."""
    game = Game.start(["Ana", "Boris", "Cyril"])
    address = page(game)
    ana.post(address, round_post(0, {1: 5, 2: 6}))
    ana.post(address, delete_post(game, 1))
    ana.post(address, round_post(0, {1: 14, 2: 40}))
    history = f"{address}history/"
    html = ana.get(history).content.decode()
    assert "it would come back as an extra round 2" in text(html)
    deletion = game.events.get(kind=GameEvent.Kind.DELETED)

    asked = ana.post(history, {"action": "restore", "event": str(deletion.pk)})
    assert asked.status_code == 409
    html = text(asked)
    assert "becomes an extra round 2, after the others. Nothing was changed yet." in html
    assert "Bring it back with the points above as an extra round 2" in html
    assert game.rounds.count() == 1

    # Confirmed for a number that is no longer right (another round came meanwhile): asked again.
    ana.post(address, round_post(1, {0: 2, 2: 3}))
    stale = ana.post(history, {"action": "restore", "event": str(deletion.pk), "as_round": "2"})
    assert stale.status_code == 409 and game.rounds.count() == 2
    done = ana.post(history, {"action": "restore", "event": str(deletion.pk), "as_round": "3"})
    assert done.status_code == 303
    assert list(game.rounds.values_list("number", flat=True)) == [1, 2, 3]
    assert game.totals() == [2, 14 + 5, 40 + 3 + 6]


def test_go_back_to_the_version_before_an_edit(ana, two_saved_by_ana):
    round_ = two_saved_by_ana.rounds.get(number=1)
    data = round_post(0, {1: 11, 2: 20, 3: 30}, round=str(round_.pk), revision="1")
    ana.post(f"{page(two_saved_by_ana)}rounds/1/", data)
    history = f"{page(two_saved_by_ana)}history/"
    revision_2 = 'form.restore:has(input[name=revision][value="2"])'
    event = read(ana.get(history)).one(revision_2).one("input[name=event]").get("value")
    answer = ana.post(history, {"action": "go_back", "event": event, "revision": "2"})
    assert answer.status_code == 303
    assert two_saved_by_ana.totals() == [5, 10, 26, 37]
    # From a page that showed an older revision: refused, said why.
    stale = ana.post(history, {"action": "go_back", "event": event, "revision": "2"})
    assert stale.status_code == 409 and "was changed on another phone" in text(stale)


def test_a_conflict_shows_where_the_two_versions_differ_and_can_replace_the_saved_one(
    ana, boris, two_saved_by_ana
):
    address = page(two_saved_by_ana)
    ana.post(address, round_post(2, {0: 12, 1: 4, 3: 9}, for_round="3"))
    answer = boris.post(address, round_post(2, {0: 12, 1: 4, 3: 13}, for_round="3"), headers=HTMX)
    # Another phone's change came first: a conflict (swapped in by htmx, as every 409 is).
    assert answer.status_code == 409
    shown = read(answer)
    # The heading names the round in question, not the next one; one box says what happened.
    assert shown.one("#entry-title").text == "Round 3, saved on another phone first"
    assert len(shown.select("#round-entry .banner")) == 1
    table = shown.one("table.versions")
    # Only Dana differs: 9 saved, 13 typed here.
    assert table.texts('th[scope="row"]') == ["Dana"]
    assert table.texts(".points") == ["9", "13"]
    buttons = shown.texts("a.link-button, button")
    assert "Keep the saved one" in buttons and "Save mine as round 4" in buttons
    assert "Replace round 3 with mine" in buttons
    # The form holds Boris's round: a live update leaves it alone.
    typing = shown.one("input#typing")
    assert (typing.get("type"), typing.get("name"), typing.get("value")) == (
        "hidden",
        "typing",
        "1",
    )

    fields = {field.get("name"): field.get("value") for field in shown.select("input[type=hidden]")}
    data = round_post(2, {0: 12, 1: 4, 3: 13}, action="replace")
    data.update({name: fields[name] for name in ("round", "revision", "number")})
    replaced = boris.post(address, data, headers=HTMX)
    assert "Round 3 saved with your changes." in text(replaced) and undos(replaced) == ["Undo"]
    assert two_saved_by_ana.rounds.count() == 3 and two_saved_by_ana.totals()[3] == 30 + 7 + 13
    # The replacement has its own Undo, on Boris's phone.
    event = two_saved_by_ana.events.first()
    boris.post(address, {"action": "undo", "event": str(event.pk)})
    assert two_saved_by_ana.totals()[3] == 30 + 7 + 9


def test_a_saved_round_back_in_the_form_is_left_out_of_the_totals_beside_it(
    ana, boris, two_saved_by_ana
):
    """Undo after a save: the round goes back in the form with its points beside each total
    ("→ 4"). The totals beside the names leave it out, so that nobody counts it twice in
    their head; it still counts everywhere else, and the totals come back as they were when
    it is kept as saved."""
    saved = ana.post(page(two_saved_by_ana), round_post(2, {0: 3, 1: 4, 3: 5}), headers=HTMX)
    assert totals(saved) == [8, 14, 26, 42]
    fix = read(saved.content.decode()).one(".banner.saved a.fix-link").get("hx-get")
    form = ana.get(fix, headers=HTMX)
    shown = read(form.content.decode())
    assert "Round 3, back in the form" in shown.text
    assert totals(form) == [5, 10, 26, 37]
    assert shown.texts(".points-preview") == ["3", "4", "0", "5"]
    assert "The totals here leave it out while it is in the form." in shown.text
    # Boris saves round 4 meanwhile: Ana's live update brings it, and still leaves round 3 out.
    poll = shown.one(".poller").get("hx-get")
    boris.post(page(two_saved_by_ana), round_post(0, {1: 3, 2: 3, 3: 3}))
    fixing = shown.one("#fixing").get("value")
    update = ana.get(f"{poll}&typing=1&fixing={fixing}&shown=playing", headers=HTMX)
    assert update["HX-Reswap"] == "none"  # the #changes part: the totals of the rows
    assert totals(update) == [5, 13, 29, 40]
    # It still counts: on Boris's phone, and for Ana once she keeps it as saved.
    assert totals(boris.get(page(two_saved_by_ana))) == [8, 17, 29, 45]
    assert totals(ana.get(page(two_saved_by_ana))) == [8, 17, 29, 45]
